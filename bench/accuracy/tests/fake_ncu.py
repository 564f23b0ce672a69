#!/usr/bin/env python3
"""A stand-in for `ncu` in the CPU end-to-end test: for `kerntime run --filter ^STATE$` it writes
the CSV Nsight Compute would (set-up kernels, the warm-up call, kerntime's blocking kernel, then
20 calls), with made-up durations; anything else (the PyTorch script) it runs unprofiled."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_kerntime  # noqa: E402

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
          '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
          '"Metric Value"')


def main() -> int:
    args = sys.argv[1:]
    log = args[args.index("--log-file") + 1]
    app = args[args.index("--log-file") + 2:]
    if "run" not in app:
        return subprocess.call(app)
    state = app[app.index("--filter") + 1].strip("^$").replace("\\", "")
    repeats = int(app[app.index("--repeat") + 1])
    kernels = [(n, c) for n, k, c in fake_kerntime.KERNELS[state.split("/")[0]] if k == "kernel"]
    t = fake_kerntime.latency_us(state) * 1e3
    names = ["_ZN8kerntime5suite12_GLOBAL__N_111fill_kernelEv"]
    names += [n for n, c in kernels for _ in range(c)]
    names += ["_ZN8kerntime6detail12_GLOBAL__N_116wait_for_releaseEPVim"]
    names += [n for _ in range(repeats) for n, c in kernels for _ in range(c)]
    per_call = sum(c for _, c in kernels) or 1
    lines = ["==PROF== Connected to process 1", HEADER]
    for i, name in enumerate(names):
        value = f"{t / per_call + (i % 3):,.0f}"
        lines.append(f'"{i}","1","kerntime","h","{name}","1","13","(1, 1, 1)","(1, 1, 1)","0",'
                     f'"9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond",'
                     f'"{value}"')
    with open(log, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
