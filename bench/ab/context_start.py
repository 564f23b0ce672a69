#!/usr/bin/env python3
"""What a CUDA context costs to make, and what changes that cost, on the GPU machine:

    python3 bench/ab/context_start.py [--times 8]

`kerntime ab` starts a fresh process pair every round, and about 0.2 s of each worker's start is
CUDA's context (bench/ab/worker_start.py; docs/ab.md, "Cheaper rounds"). Each sample here is a
fresh Python process that calls the driver API through ctypes and times, inside itself:
cuInit, the primary context made current with one allocation (the context really made), and the
context released (the teardown). The set-ups change one thing each:

- alone: nothing else holds the GPU between the samples;
- held_init: another process holds the driver open (cuInit, no context) throughout;
- held_context: another process holds a context of its own (idle) throughout;
- connections1: CUDA_DEVICE_MAX_CONNECTIONS=1 in the sample's process;
- in_process: one process makes and destroys a context again and again (cuCtxCreate /
  cuCtxDestroy after the first): what a fresh context costs where the process is kept.

It prints the GPU's persistence mode (read only), a RESULT line per set-up and a table last.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

CHILD = r"""
import ctypes, sys, time
cu = ctypes.CDLL("libcuda.so.1")
cu.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
cu.cuMemFree_v2.argtypes = [ctypes.c_uint64]
def check(r, what):
    if r != 0:
        print(f"error {what} {r}", flush=True); sys.exit(2)
t0 = time.perf_counter()
check(cu.cuInit(0), "cuInit")
t1 = time.perf_counter()
dev = ctypes.c_int()
check(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
mode = sys.argv[1]
ctx = ctypes.c_void_p()
ptr = ctypes.c_uint64()
rows = []
if mode == "in_process":
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
    check(cu.cuCtxSetCurrent(ctx), "current")
    check(cu.cuMemAlloc_v2(ctypes.byref(ptr), 1 << 20), "alloc")
    check(cu.cuMemFree_v2(ptr), "free")
    check(cu.cuDevicePrimaryCtxRelease_v2(dev), "release")
    for _ in range(int(sys.argv[2])):
        a = time.perf_counter()
        own = ctypes.c_void_p()
        check(cu.cuCtxCreate_v2(ctypes.byref(own), 0, dev), "create")
        check(cu.cuMemAlloc_v2(ctypes.byref(ptr), 1 << 20), "alloc")
        b = time.perf_counter()
        check(cu.cuMemFree_v2(ptr), "free")
        check(cu.cuCtxDestroy_v2(own), "destroy")
        c = time.perf_counter()
        rows.append((0.0, b - a, c - b))
elif mode == "hold_init":
    print("ready", flush=True); sys.stdin.read(); sys.exit(0)
elif mode == "hold_context":
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
    check(cu.cuCtxSetCurrent(ctx), "current")
    check(cu.cuMemAlloc_v2(ctypes.byref(ptr), 1 << 20), "alloc")
    print("ready", flush=True); sys.stdin.read(); sys.exit(0)
else:
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
    check(cu.cuCtxSetCurrent(ctx), "current")
    check(cu.cuMemAlloc_v2(ctypes.byref(ptr), 1 << 20), "alloc")
    t2 = time.perf_counter()
    check(cu.cuMemFree_v2(ptr), "free")
    check(cu.cuDevicePrimaryCtxRelease_v2(dev), "release")
    t3 = time.perf_counter()
    rows.append((t1 - t0, t2 - t1, t3 - t2))
for r in rows:
    print("sample %.6f %.6f %.6f" % r, flush=True)
"""


def child(mode, env, count=1):
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, mode, str(count)], env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{mode}: exit {done.returncode}: {done.stdout} {done.stderr[:300]}")
    return [tuple(map(float, l.split()[1:])) for l in done.stdout.splitlines()
            if l.startswith("sample")], wall


def holder(mode):
    h = subprocess.Popen([sys.executable, "-c", CHILD, mode, "0"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    if h.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the {mode} holder did not start")
    return h


def persistence_mode():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=persistence_mode", "--format=csv,noheader"],
                              capture_output=True, text=True, check=False).stdout.strip() or "?"
    except OSError:
        return "nvidia-smi not found"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=int, default=8)
    args = parser.parse_args()
    print(f"persistence mode: {persistence_mode()}")
    base = dict(os.environ)
    setups = [("alone", "sample", base, None), ("held_init", "sample", base, "hold_init"),
              ("held_context", "sample", base, "hold_context"),
              ("connections1", "sample", {**base, "CUDA_DEVICE_MAX_CONNECTIONS": "1"}, None)]
    table = []
    for name, mode, env, hold in setups:
        h = holder(hold) if hold else None
        try:
            samples, walls = [], []
            for _ in range(args.times):
                got, wall = child(mode, env)
                samples += got
                walls.append(wall)
        finally:
            if h:
                h.stdin.close()
                h.wait()
        table.append((name, samples, walls))
    got, wall = child("in_process", base, args.times)
    table.append(("in_process", got, [wall / max(len(got), 1)] * len(got)))
    lines = []
    for name, samples, walls in table:
        med = [1e3 * statistics.median(s[i] for s in samples) for i in range(3)]
        rng = [(1e3 * min(s[i] for s in samples), 1e3 * max(s[i] for s in samples))
               for i in range(3)]
        print(f"RESULT context_start setup={name} init_ms={med[0]:.1f} context_ms={med[1]:.1f} "
              f"release_ms={med[2]:.1f} wall_ms={1e3 * statistics.median(walls):.1f}")
        cells = [f"{m:.1f} ({lo:.1f}–{hi:.1f})" for m, (lo, hi) in zip(med, rng)]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {1e3 * statistics.median(walls):.1f} |")
    print("\n| set-up | cuInit ms | context made ms | released ms | process wall ms |")
    print("|---|---:|---:|---:|---:|")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
