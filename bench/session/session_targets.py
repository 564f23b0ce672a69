#!/usr/bin/env python3
"""The speed targets of a worker that keeps CUPTI for all its states (issue 27, docs/queue.md):

    python3 bench/session/session_targets.py KERNTIME [--out DIR] [--runs N]

- the bundled suite (default protocol), N runs with the session (the default) and N with
  --no-session, alternated: the command's wall time, each state's fixed cost (its measurement's
  wall minus its trials, host_phases_seconds), the first state's, and the suite's sum of state walls;
- kerntime compare of each session run against the no-session run beside it: keeping CUPTI must
  change no number beyond the runs' noise (the verdicts are counted);
- one state alone (spin/duration_us=1), with and without the session: the command's wall time
  beside the state's and the worker's start;
- tiny_kernel/kernels=16 --repeat 2000, and kernels=1: the measurement's wall against the GPU time
  of its flushes and work (target <= 1.5).

Prints RESULT lines (scripts/gpu_check.sh keeps them) and a short table last.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import statistics
import subprocess
import sys
import time


def run(kerntime: str, out: pathlib.Path, name: str, *flags: str) -> tuple[dict, float]:
    path = out / f"{name}.json"
    started = time.monotonic()
    done = subprocess.run([kerntime, "run", "-q", "--json", str(path), *flags],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    wall = time.monotonic() - started
    (out / f"{name}.log").write_text(done.stdout)
    if done.returncode != 0:
        sys.exit(f"kerntime run {' '.join(flags)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    return json.loads(path.read_text()), wall


def fixed_costs(suite: dict) -> list[float]:
    """Each measured state's fixed cost in ms, in the order the worker ran them."""
    runs = [r for r in suite["runs"] if r.get("result")]
    return [1e3 * (r["result"]["wall_seconds"] - r["result"]["host_phases_seconds"]["trials"])
            for r in runs]


def gpu_seconds(result: dict) -> float:
    return sum(s + result["flush_median_ns"] for t in result["trials"] for s in t["span_ns"]) / 1e9


# What CUDA's initialisation alone costs a fresh process here (loading libcuda and cuInit), the
# part of a command's floor that a supervisor no longer pays before its worker starts.
CUINIT_PROBE = ("import ctypes, time\n"
                "t = time.perf_counter()\n"
                "cuda = ctypes.CDLL('libcuda.so.1')\n"
                "loaded = time.perf_counter()\n"
                "status = cuda.cuInit(0)\n"
                "print(status, loaded - t, time.perf_counter() - loaded)\n")


def cuinit_seconds() -> tuple[float, float] | None:
    done = subprocess.run([sys.executable, "-c", CUINIT_PROBE], capture_output=True, text=True,
                          timeout=60)
    words = done.stdout.split()
    if done.returncode != 0 or len(words) != 3 or words[0] != "0":
        return None
    return float(words[1]), float(words[2])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kerntime")
    parser.add_argument("--out", default="session-targets")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--tiny-kernels", default="1,16",
                        help="the tiny_kernel states to run at 2,000 repeats (scripts/gpu_check.sh "
                             "gives 16: its queue step runs kernels=1)")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    by_mode: dict[str, dict[str, list[float]]] = {}
    verdicts: dict[str, int] = {}
    for i in range(args.runs):
        pair = {}
        for mode, flags in (("no_session", ("--no-session",)), ("session", ())):
            suite, wall = run(args.kerntime, out, f"suite_{mode}_{i + 1}", *flags)
            pair[mode] = out / f"suite_{mode}_{i + 1}.json"
            fixed = fixed_costs(suite)
            state_walls = [r["wall_seconds"] for r in suite["runs"]]
            log = (out / f"suite_{mode}_{i + 1}.log").read_text()
            started = re.search(r"\(([0-9.]+) s to start, ([0-9.]+) s to exit", log)
            m = by_mode.setdefault(mode, {"wall": [], "median_fixed": [], "first": [], "states": []})
            m["wall"].append(wall)
            m["median_fixed"].append(statistics.median(fixed))
            m["first"].append(fixed[0])
            m["states"].append(sum(state_walls))
            print(f"RESULT session_suite mode={mode} run={i + 1} states={len(suite['runs'])} "
                  f"command_wall_s={wall:.3f} state_walls_s={sum(state_walls):.3f} "
                  f"median_fixed_ms={statistics.median(fixed):.2f} "
                  f"first_fixed_ms={fixed[0]:.2f} max_fixed_ms={max(fixed):.2f} "
                  f"worker_start_s={started.group(1) if started else 'unknown'} "
                  f"worker_exit_s={started.group(2) if started else 'unknown'}", flush=True)
        compared = out / f"compare_{i + 1}.json"
        subprocess.run([args.kerntime, "compare", "--base", str(pair["no_session"]), "--new",
                        str(pair["session"]), "--json", str(compared), "-q"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        states = json.loads(compared.read_text())["states"]
        counts: dict[str, int] = {}
        for s in states:
            counts[s["verdict"]] = counts.get(s["verdict"], 0) + 1
            verdicts[s["verdict"]] = verdicts.get(s["verdict"], 0) + 1
        changed = [f"{s['state_name']}:{s['verdict']}:{100 * (s['ratio'] - 1):+.2f}%"
                   for s in states if s["verdict"] not in ("same", "undecided")]
        print(f"RESULT session_vs_no_session run={i + 1} "
              + " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
              + (f" changed={','.join(changed)}" if changed else ""), flush=True)

    for i in range(3):
        probe = cuinit_seconds()
        print(f"RESULT session_cuinit run={i + 1} "
              + (f"load_libcuda_ms={1e3 * probe[0]:.1f} cuinit_ms={1e3 * probe[1]:.1f}"
                 if probe else "error=cuInit_failed"), flush=True)

    # One state alone: what the command costs beyond it (both processes' start and exit).
    for i in range(2):
        for mode, flags in (("no_session", ("--no-session",)), ("session", ())):
            name = f"one_{mode}_{i + 1}"
            suite, wall = run(args.kerntime, out, name, "--filter", "spin/duration_us=1$", *flags)
            log = (out / f"{name}.log").read_text()
            started = re.search(r"\(([0-9.]+) s to start, ([0-9.]+) s to exit", log)
            state = suite["runs"][0]
            print(f"RESULT session_one_state mode={mode} run={i + 1} command_wall_s={wall:.3f} "
                  f"state_ms={1e3 * state['wall_seconds']:.1f} "
                  f"worker_start_s={started.group(1) if started else 'unknown'} "
                  f"worker_exit_s={started.group(2) if started else 'unknown'}", flush=True)

    ratios = {}
    for kernels in (int(k) for k in args.tiny_kernels.split(",")):
        suite, _ = run(args.kerntime, out, f"tiny{kernels}", "--filter",
                       f"tiny_kernel/kernels={kernels}$", "--repeat", "2000")
        result = suite["runs"][0]["result"]
        gpu = gpu_seconds(result)
        ratios[kernels] = result["wall_seconds"] / gpu
        phases = result["host_phases_seconds"]
        print(f"RESULT session_tiny_repeat2000 kernels={kernels} wall_s={result['wall_seconds']:.3f} "
              f"gpu_s={gpu:.3f} ratio={ratios[kernels]:.2f} trials_s={phases['trials']:.3f} "
              f"summarise_s={phases['summarise']:.3f} detach_s={phases['detach']:.3f}", flush=True)

    def med(mode: str, key: str) -> float:
        return statistics.median(by_mode[mode][key])

    rows = [
        ("suite command wall (s)", med("no_session", "wall"), med("session", "wall"), "<= 1.0"),
        ("suite sum of state walls (s)", med("no_session", "states"), med("session", "states"), ""),
        ("median fixed cost per state (ms)", med("no_session", "median_fixed"),
         med("session", "median_fixed"), "<= 4"),
        ("first state's fixed cost (ms)", med("no_session", "first"), med("session", "first"),
         "<= 20"),
    ]
    print("\n| | no session | session | target |\n|---|---|---|---|")
    for name, without, with_, target in rows:
        print(f"| {name} | {without:.3g} | {with_:.3g} | {target} |")
    for kernels, ratio in ratios.items():
        print(f"| tiny_kernel/kernels={kernels} --repeat 2000: wall / GPU | | {ratio:.2f} | <= 1.5 |")
    print("| session vs no session, compare verdicts | | "
          + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())) + " | all same |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
