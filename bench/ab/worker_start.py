#!/usr/bin/env python3
"""What a worker process costs to start and end, piece by piece, on the GPU machine:

    python3 bench/ab/worker_start.py build/kerntime [--times 7]

`kerntime ab` starts a fresh process pair every round, and a round's trials wait for both to be
ready (docs/ab.md, "Cheaper rounds"). Each line below is a whole `kerntime` process, run --times
times one after another (the median wall and its range); each adds one piece to the line above:

- version: exec and dynamic linking;
- list: the suite's plan (registration, axes) without CUDA;
- info: CUDA initialised, the devices read, CUPTI checked;
- run events: one state measured once by CUDA events in this process, no telemetry (a CUDA
  context, the flush buffer, the blocking kernel, the teardown);
- run cupti: the same through CUPTI;
- run cupti+nvml: the same with telemetry (NVML), as a worker of `kerntime ab` runs.

It prints a RESULT line per piece (gpu_check.sh gathers them) and a table last.
"""

import argparse
import statistics
import subprocess
import sys
import time


def pieces(kerntime, state):
    one = [kerntime, "run", "--filter", state, "--trials", "1", "--preparations", "1",
           "--warmup", "1", "--repeat", "2", "--no-isolation", "-q"]
    return [
        ("version", [kerntime, "--version"]),
        ("list", [kerntime, "list", "--json", "-"]),
        ("info", [kerntime, "info"]),
        ("run events", one + ["--backend", "events", "--no-telemetry"]),
        ("run cupti", one + ["--backend", "cupti", "--no-telemetry"]),
        ("run cupti+nvml", one + ["--backend", "cupti"]),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kerntime")
    parser.add_argument("--times", type=int, default=7)
    parser.add_argument("--state", default="^spin/duration_us=1$")
    args = parser.parse_args()
    rows = []
    for name, argv in pieces(args.kerntime, args.state):
        walls = []
        for _ in range(args.times):
            started = time.perf_counter()
            done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, check=False)
            walls.append(1e3 * (time.perf_counter() - started))
            if done.returncode != 0:
                print(f"RESULT worker_start piece={name.replace(' ', '_')} "
                      f"error=exit_{done.returncode}")
                print(f"{name}: exit {done.returncode}: {done.stderr.strip()[:300]}",
                      file=sys.stderr)
                return 1
        rows.append((name, statistics.median(walls), min(walls), max(walls)))
        print(f"RESULT worker_start piece={name.replace(' ', '_')} "
              f"median_ms={rows[-1][1]:.1f} min_ms={rows[-1][2]:.1f} max_ms={rows[-1][3]:.1f}")
    print("\n| piece | median ms | range | added to the line above |")
    print("|---|---:|---:|---:|")
    before = 0.0
    for name, mid, low, high in rows:
        print(f"| {name} | {mid:.1f} | {low:.1f}–{high:.1f} | {mid - before:+.1f} |")
        before = mid
    return 0


if __name__ == "__main__":
    sys.exit(main())
