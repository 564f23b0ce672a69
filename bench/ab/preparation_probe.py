#!/usr/bin/env python3
"""Where a preparation's offset comes from (issue 45, docs/ab.md "What moves a preparation"):

    python3 bench/ab/preparation_probe.py PROBE OUT [--processes 6] [--preparations 24]
                                                    [--setups pad,nopad,...]
                                                    [--variants plain,conn1,cpu_first,cpu_last]

Runs bench_preparation_probe (PROBE) in --processes processes one after the other; each
prepares the suite's process-bound states --preparations times under every set-up, in a drawn
order (bench/ab/preparation_probe.cu says what each set-up changes). Writes every preparation to
OUT/preparations.jsonl and prints, per state and set-up, in percent of the state's time:

- trial: a preparation's own noise, the SD of its readings over the square root of their number
  (what its clipped mean would spread by if nothing else moved);
- between preparations: the SD of the log of the preparations' clipped means within a process,
  pooled over the processes (what `kerntime ab` sees from one preparation to the next);
- process adds: the SD of the processes' mean logs beyond what the preparations' spread explains;
- the same between preparations for the busy time (the kernels' own durations, no gaps);
- for `fixedpad`, `streams8` and `code8`, the SD between their groups (the four placements, the
  eight streams, the eight copies of the code, each visited again and again) and within one;
- the SM clock range of the trials, and for the one-warp kernels how many SMs the blocks used;
  for the stamped 16 kernels the same spreads of the span their own clock reads (no CUPTI);
- then, per state, its two modes (the split of all its preparations with the least spread within
  each side, and how many within-side SDs apart they are), and per process variant and set-up
  how many of each process's preparations read the high mode;
- and whether one state's mode tells another's: each preparation's correlation with the last
  `tiny_kernel/kernels=16` preparation before it in the same process, and its spread with that
  part taken out (kerntime's own kernel as a control variate).

Each process runs as one of --variants, taken in turn: plain; conn1 (CUDA_DEVICE_MAX_CONNECTIONS=1:
every stream on one hardware connection); cpu_first and cpu_last (taskset to the first or the last
CPU: the host memory the driver places near the process). Then a RESULT line per state, variant
and set-up for scripts/gpu_check.sh. It changes no setting of the card.
"""

import argparse
import collections
import json
import math
import os
import statistics
import subprocess
import sys


def pooled_sd(groups):
    """The SD of values around their own group's mean, pooled over groups."""
    ss, dof = 0.0, 0
    for g in groups:
        if len(g) > 1:
            m = statistics.fmean(g)
            ss += sum((x - m) ** 2 for x in g)
            dof += len(g) - 1
    return math.sqrt(ss / dof) if dof else float("nan")


def analyse(rows):
    """rows: one (state, set-up)'s preparations. Returns the table's numbers, SDs in percent."""
    logs_by_pid = collections.defaultdict(list)
    busy_by_pid = collections.defaultdict(list)
    for r in rows:
        logs_by_pid[r["pid"]].append(math.log(r["clipped_mean"]))
        if r.get("busy"):  # files of the first version of the probe have no busy time
            busy_by_pid[r["pid"]].append(math.log(r["busy"]))
    groups = list(logs_by_pid.values())
    within = pooled_sd(groups)
    out = {
        "n": len(rows),
        "time_ns": statistics.median(r["clipped_mean"] for r in rows),
        "trial": 100 * statistics.median(r["reading_sd"] / math.sqrt(r["n"]) / r["clipped_mean"]
                                         for r in rows),
        "between": 100 * within,
        "busy_between": 100 * pooled_sd(busy_by_pid.values()) if busy_by_pid else float("nan"),
    }
    if all(r.get("inside", 0) > 0 for r in rows):  # the stamped kernels: the GPU's own span
        inside_by_pid = collections.defaultdict(list)
        for r in rows:
            inside_by_pid[r["pid"]].append(math.log(r["inside"]))
        out["inside_between"] = 100 * pooled_sd(inside_by_pid.values())
        out["inside_ns"] = statistics.median(r["inside"] for r in rows)
        means = [statistics.fmean(g) for g in inside_by_pid.values()]
        if len(means) > 1:
            out["inside_process"] = 100 * math.sqrt(max(0.0, statistics.variance(means) - (
                out["inside_between"] / 100) ** 2 / statistics.fmean(
                    len(g) for g in inside_by_pid.values())))
    means = [statistics.fmean(g) for g in groups if g]
    m = statistics.fmean(len(g) for g in groups)
    if len(means) > 1:
        var = statistics.variance(means) - within ** 2 / m
        out["process"] = 100 * math.sqrt(max(0.0, var))
    clocks = [r["sm_clock_mhz"] for r in rows if r.get("sm_clock_mhz")]
    out["clock"] = f"{min(clocks):.0f}-{max(clocks):.0f}" if clocks else "-"
    kinds = {"fixedpad": 4, "streams8": 8, "code8": 8}
    if rows[0]["setup"] in kinds:
        by_place = collections.defaultdict(list)
        for r in rows:
            by_place[(r["pid"], r["visit"] % kinds[r["setup"]])].append(
                math.log(r["clipped_mean"]))
        out["within_place"] = 100 * pooled_sd(by_place.values())
        place_means = collections.defaultdict(list)
        for (pid, _), g in by_place.items():
            place_means[pid].append(statistics.fmean(g))
        out["between_places"] = 100 * pooled_sd(place_means.values())
    sms = [r["sms"] for r in rows if r.get("sms")]
    if sms:
        used = collections.Counter()
        for h in sms:
            used.update(h)
        out["sms"] = f"{len(used)} SMs, {statistics.median(len(h) for h in sms):.0f} per trial"
    return out


def two_modes(logs):
    """The split of sorted log times into two groups with the least within-group sum of squares
    (1-D two-means): (threshold, separation in within-group SDs), or None for under 4 values."""
    xs = sorted(logs)
    if len(xs) < 4:
        return None
    best = None
    for k in range(2, len(xs) - 1):
        low, high = xs[:k], xs[k:]
        ss = (sum((x - statistics.fmean(low)) ** 2 for x in low) +
              sum((x - statistics.fmean(high)) ** 2 for x in high))
        if best is None or ss < best[0]:
            best = (ss, k)
    ss, k = best
    within = math.sqrt(ss / (len(xs) - 2))
    gap = statistics.fmean(xs[k:]) - statistics.fmean(xs[:k])
    return (xs[k - 1] + xs[k]) / 2, gap / within if within > 0 else float("inf")


def mode_table(rows):
    """Per state and set-up (which may change the time itself, as `hot` does): its two modes over
    every process of a variant, and how many of each process's preparations read the high one
    (e.g. 0/16 16/16 5/16). Processes are in the order they ran, so a column is one process
    across the rows of a variant."""
    cells = collections.defaultdict(list)
    for r in rows:
        cells[(r["state"], r.get("variant", "plain"), r["setup"])].append(r)
    print("\n| state | process | set-up | modes (µs), separation | high mode per process |")
    print("|---|---|---|---|---|")
    shown = None
    for (state, variant, setup), group in sorted(cells.items()):
        split = two_modes([math.log(r["clipped_mean"]) for r in group])
        if split is None:
            continue
        threshold, separation = split
        low = [r["clipped_mean"] for r in group if math.log(r["clipped_mean"]) <= threshold]
        high = [r["clipped_mean"] for r in group if math.log(r["clipped_mean"]) > threshold]
        by_pid = collections.defaultdict(list)
        for r in group:
            by_pid[r["pid"]].append(math.log(r["clipped_mean"]) > threshold)
        shares = " ".join(f"{sum(v)}/{len(v)}" for _, v in sorted(by_pid.items()))
        print(f"| {state if state != shown else ''} | {variant} | {setup} | "
              f"{statistics.median(low) / 1e3:.3f} / {statistics.median(high) / 1e3:.3f}, "
              f"{separation:.1f} SD | {shares} |")
        shown = state


REFERENCE = "tiny_kernel/kernels=16"


def reference_table(rows):
    """Whether one state's mode tells another's: each preparation paired with the reference
    state's (REFERENCE) last preparation before it in the same process (rows are in the order
    they ran), both as log times about their own state and set-up's mean over every process. Per
    state: the correlation, and the spread before and after taking out the reference's part (a
    control variate: kerntime's own kernel measured beside the user's, whose true A/B ratio is 1).
    CUDA graphs and the hot L2 launch otherwise, so they neither give nor take a reference."""
    means = collections.defaultdict(list)
    for r in rows:
        means[(r["state"], r["setup"])].append(math.log(r["clipped_mean"]))
    means = {k: statistics.fmean(v) for k, v in means.items()}
    pairs = collections.defaultdict(list)
    last = {}
    for r in rows:
        if r["setup"] in ("graph", "hot"):
            continue
        x = math.log(r["clipped_mean"]) - means[(r["state"], r["setup"])]
        if r["state"] == REFERENCE:
            last[r["pid"]] = x
        elif r["pid"] in last:
            pairs[r["state"]].append((x, last[r["pid"]]))
    if not pairs:
        return
    print(f"\n| state | preparations | SD | correlation with {REFERENCE} before it | "
          "SD with its part taken out |")
    print("|---|---:|---:|---:|---:|")
    results = []
    for state, xy in sorted(pairs.items()):
        if len(xy) < 4:
            continue
        xs, ys = [p[0] for p in xy], [p[1] for p in xy]
        sd_x, sd_y = statistics.pstdev(xs), statistics.pstdev(ys)
        if sd_x == 0 or sd_y == 0:
            continue
        r = statistics.fmean((x - statistics.fmean(xs)) * (y - statistics.fmean(ys))
                             for x, y in xy) / (sd_x * sd_y)
        print(f"| {state} | {len(xy)} | {100 * sd_x:.2f} % | {r:+.2f} | "
              f"{100 * sd_x * math.sqrt(1 - r * r):.2f} % |")
        results.append(f"RESULT probe_reference state={state.replace('/', '_')} n={len(xy)} "
                       f"sd_pct={100 * sd_x:.3g} correlation={r:.3g} "
                       f"residual_pct={100 * sd_x * math.sqrt(1 - r * r):.3g}")
    print("\n".join(results))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("probe")
    parser.add_argument("out")
    parser.add_argument("--processes", type=int, default=6)
    parser.add_argument("--preparations", type=int, default=24)
    parser.add_argument("--setups", default="")
    parser.add_argument("--variants", default="plain")
    parser.add_argument("--analyse-only", action="store_true",
                        help="read OUT/preparations.jsonl instead of running the probe")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "preparations.jsonl")
    if not args.analyse_only:
        with open(path, "w") as f:
            variants = args.variants.split(",")
            last_cpu = str(os.cpu_count() - 1)
            for i in range(args.processes * len(variants)):
                variant = variants[i % len(variants)]
                cmd = [args.probe, "--preparations", str(args.preparations)]
                if args.setups:
                    cmd += ["--setups", args.setups]
                env = dict(os.environ)
                if variant == "conn1":
                    env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"
                elif variant == "cpu_first":
                    cmd = ["taskset", "-c", "0"] + cmd
                elif variant == "cpu_last":
                    cmd = ["taskset", "-c", last_cpu] + cmd
                elif variant != "plain":
                    print(f"no variant {variant}", file=sys.stderr)
                    return 2
                done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, timeout=600,
                                      env=env)
                for line in done.stdout.splitlines():
                    if line.startswith("{"):
                        row = json.loads(line)
                        row["variant"] = variant
                        f.write(json.dumps(row) + "\n")
                if done.returncode != 0:
                    print(f"RESULT preparation_probe error=exit_{done.returncode}")
                    return 1
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    by_key = collections.defaultdict(list)
    for r in rows:
        by_key[(r["state"], r.get("variant", "plain"), r["setup"])].append(r)
    print("| state | process | set-up | time | trial | between preparations (busy) | "
          "process adds | groups: between / within | SM clock | SMs |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|---|")
    for (state, variant, setup), group in sorted(by_key.items()):
        a = analyse(group)
        places = (f"{a['between_places']:.2f} / {a['within_place']:.2f} %"
                  if "within_place" in a else "-")
        process = f"{a['process']:.2f} %" if "process" in a else "-"
        if "inside_between" in a:  # the GPU's own span: in the SMs column's place
            a["sms"] = (f"inside {a['inside_ns'] / 1e3:.2f} µs: between {a['inside_between']:.2f} %,"
                        f" process {a.get('inside_process', float('nan')):.2f} %")
        print(f"| {state} | {variant} | {setup} | {a['time_ns'] / 1e3:.2f} µs | "
              f"{a['trial']:.2f} % | {a['between']:.2f} % ({a['busy_between']:.2f} %) | "
              f"{process} | {places} | {a['clock']} | {a.get('sms', '-')} |")
    mode_table(rows)
    reference_table(rows)
    for (state, variant, setup), group in sorted(by_key.items()):
        a = analyse(group)
        print(f"RESULT probe_{state.replace('/', '_')}_{variant}_{setup} "
              f"time_us={a['time_ns'] / 1e3:.4g} trial_pct={a['trial']:.3g} "
              f"between_pct={a['between']:.3g} busy_between_pct={a['busy_between']:.3g} "
              f"process_pct={a.get('process', float('nan')):.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
