#!/usr/bin/env python3
"""Where a process pair's offset comes from (docs/ab.md, "How many process pairs a band needs"):

    python3 bench/ab/offset_source.py KERNTIME OUT [--rounds 30] [--repeats 2]

A/A runs of `kerntime ab` over the process-bound states of the suite (small memory- and
launch-bound states whose rounds spread by 2-5 % on an H100), each run exactly --rounds process
pairs (one A B B A block each, no decision before the last: --min-rounds = --rounds), under
set-ups that each remove one suspect:

- fresh:    the default, a fresh process pair every round;
- one_core: the same, every process (the supervisor and both workers) held to one CPU core
            (taskset): a worker's CPU, its cache and its memory node are then the same every round;
- eager:    the same, every process loading all its GPU code when CUDA starts
            (CUDA_MODULE_LOADING=EAGER) instead of each kernel at its first launch: where the
            kernels' code lies is then the same in every process;
- kept:     one process pair for every round (--keep-workers): the process's own offset is then
            the same in every round, so what is left is the spread of blocks within a process.
- blocksN:  fresh process pairs of N blocks each (--pairs-per-round 2N), a pair's observation the
            mean of its N blocks: how far more blocks per pair narrow what the sequence sees
            (--rounds is then the process pairs, each N blocks).

For every state and set-up it gives the SD of a round's log-ratio B/A (what the confidence
sequence sees); split by side, the SD of a worker's preparations within its round and the part
of its rounds' means that this does not explain (one-way analysis of variance, two preparations
per round and side; a drift of the GPU common to both sides shows here too); and the process
pair's offset: the part of the round SD that the preparations' spread within their rounds does
not explain. A suspect that is the source shrinks that offset toward what `kept` shows.
Every preparation's time is the clipped mean of its iterations, as `kerntime ab` reads it.
It changes no setting of the card.
"""

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

import preparation_stats  # each preparation's clipped mean: the time `kerntime ab` reads

STATES = ("reduce_sum/T=float/elements=65536", "tiny_kernel/kernels=16",
          "radix_sort/elements=65536", "spin/duration_us=10")


def preparations(path):
    """Per state, each preparation's time (its only trial's clipped mean), in run order."""
    return {state: [row[1] for row in rows]
            for state, rows in preparation_stats.preparations(path).items()}


def sd(values):
    return statistics.stdev(values) if len(values) > 1 else float("nan")


def blocks_of(setup):
    """A set-up's blocks per process pair: blocksN has N, the others one."""
    return int(setup[len("blocks"):]) if setup.startswith("blocks") else 1


def analyse(a, b, m=1):
    """a, b: one side's preparation times in run order, 2m per process pair (m blocks of A B B A).
    SDs in percent."""
    n = 2 * m
    rounds = min(len(a), len(b)) // n
    la = [math.log(x) for x in a[:n * rounds]]
    lb = [math.log(x) for x in b[:n * rounds]]
    # A block's log-ratio, and a pair's observation: the mean of its m blocks.
    blocks = [(lb[2 * j] + lb[2 * j + 1] - la[2 * j] - la[2 * j + 1]) / 2 for j in range(m * rounds)]
    ratio = [statistics.fmean(blocks[m * r:m * (r + 1)]) for r in range(rounds)]
    row = {"rounds": rounds, "round_sd": 100 * sd(ratio), "mean": 100 * statistics.fmean(ratio)}
    if m > 1:  # the blocks' spread within their pairs, pooled
        row["block_sd"] = 100 * math.sqrt(statistics.fmean(
            statistics.variance(blocks[m * r:m * (r + 1)]) for r in range(rounds)))
    for side, logs in (("a", la), ("b", lb)):
        # A side's 2m preparations per pair: their variance within the pair, pooled (the spread
        # of one preparation); the pairs' means carry that over 2m plus what the pair adds.
        within = statistics.fmean(statistics.variance(logs[n * r:n * (r + 1)])
                                  for r in range(rounds))
        between = statistics.variance([statistics.fmean(logs[n * r:n * (r + 1)])
                                       for r in range(rounds)])
        row[f"{side}_within_sd"] = 100 * math.sqrt(within)
        row[f"{side}_offset_sd"] = 100 * math.sqrt(max(0.0, between - within / n))
    # The part of a pair's B/A that the preparations' spread within their pairs does not
    # explain: what the process pair (or, kept, the time of its blocks) adds.
    round_var = (row["round_sd"] / 100) ** 2
    inside = ((row["a_within_sd"] / 100) ** 2 + (row["b_within_sd"] / 100) ** 2) / n
    row["pair_offset_sd"] = 100 * math.sqrt(max(0.0, round_var - inside))
    return row


def costs(out, name, m):
    """What a process pair and a block cost in this run: per process pair, the wall time the
    rounds waited for their workers to start and to exit (the run's last line); per state, the
    seconds of one block's four preparations (the workers' own wall times, pooled per side)."""
    text = open(f"{out}/{name}.err").read()
    found = re.search(r"\(([\d.]+) s waiting for them to start, ([\d.]+) s to exit\)", text)
    blocks = {state: len(times) // 2
              for state, times in preparations(f"{out}/{name}_a.json").items()}
    wall = {}
    for side in ("a", "b"):
        for run in json.load(open(f"{out}/{name}_{side}.json"))["runs"]:
            if run.get("result"):
                wall[run["state_name"]] = wall.get(run["state_name"], 0.0) + run["wall_seconds"]
    row = {"block_s": {state: seconds / blocks[state] for state, seconds in wall.items()
                       if blocks.get(state)}}
    # Every state ran in every process pair until its last: the most pairs any state saw is the
    # number of pairs started.
    pairs = max(blocks.values(), default=0) // m
    if found and pairs:
        row["start_per_pair_s"] = float(found[1]) / pairs
        row["exit_per_pair_s"] = float(found[2]) / pairs
    return row


def milliseconds(rows, key):
    return "–".join(sorted({f"{1000 * r[key]:.0f}" for r in rows}))


def run_ab(kerntime, out, name, setup, rounds):
    command = [kerntime, "ab", kerntime, kerntime,
               "--filter", "^(" + "|".join(STATES) + ")$",
               "--pairs-per-round", str(2 * blocks_of(setup)),
               "--max-pairs", str(2 * blocks_of(setup) * rounds),
               "--min-rounds", str(rounds), "--max-time", "120", "--state-timeout", "60",
               "--json", f"{out}/{name}.json", "--results-a", f"{out}/{name}_a.json",
               "--results-b", f"{out}/{name}_b.json", "-q"]
    if setup == "kept":
        command.append("--keep-workers")
    if setup == "one_core":
        command = ["taskset", "-c", str(os.cpu_count() // 2)] + command
    env = dict(os.environ)
    if setup == "eager":
        env["CUDA_MODULE_LOADING"] = "EAGER"
    with open(f"{out}/{name}.err", "w") as err:
        try:
            return subprocess.call(command, stderr=err, timeout=600, env=env)
        except subprocess.TimeoutExpired:
            return "timed out after 600 s"  # its result files, if any, are read as they are


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kerntime")
    parser.add_argument("out")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--setups", default="fresh,one_core,eager,kept")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    setups = args.setups.split(",")
    if "one_core" in setups and shutil.which("taskset") is None:
        sys.exit("offset_source: taskset is missing, which the one_core set-up needs")
    rows = []
    pair_costs = []
    # The set-ups interleaved, so a drift of the machine spreads over all of them alike.
    for repeat in range(1, args.repeats + 1):
        for setup in setups:
            name = f"{setup}_{repeat}"
            code = run_ab(args.kerntime, args.out, name, setup, args.rounds)
            print(f"{name}: exit {code}", flush=True)
            try:
                a = preparations(f"{args.out}/{name}_a.json")
                b = preparations(f"{args.out}/{name}_b.json")
            except (OSError, ValueError, KeyError) as e:
                print(f"RESULT ab_offset setup={setup} run={repeat} error={type(e).__name__}")
                continue
            cost = costs(args.out, name, blocks_of(setup))
            pair_costs.append(dict(cost, setup=setup))
            print(f"RESULT ab_cost setup={setup} run={repeat} "
                  f"start_per_pair_s={cost.get('start_per_pair_s', float('nan')):.3f} "
                  f"exit_per_pair_s={cost.get('exit_per_pair_s', float('nan')):.3f}", flush=True)
            for state in STATES:
                if min(len(a.get(state, [])), len(b.get(state, []))) >= 4 * blocks_of(setup):
                    row = analyse(a[state], b[state], blocks_of(setup))
                    row.update(setup=setup, run=repeat, state=state,
                               block_s=cost["block_s"].get(state, float("nan")))
                    rows.append(row)
                    print("RESULT ab_offset " + " ".join(
                        f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in row.items()), flush=True)
    print("\n| set-up | start per process pair | exit per process pair |")
    print("|---|---:|---:|")
    for setup in setups:
        mine = [c for c in pair_costs if c["setup"] == setup and "start_per_pair_s" in c]
        if mine:
            print(f"| {setup} | {milliseconds(mine, 'start_per_pair_s')} ms | "
                  f"{milliseconds(mine, 'exit_per_pair_s')} ms |")
    print("\n| state | set-up | process pairs | a pair's SD (B/A) | a block's SD in its pair | "
          "a preparation's within its pair (A; B) | a side's pairs beyond that (A; B) | "
          "what the pair adds | a block's trials |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for state in STATES:
        for setup in setups:
            mine = [r for r in rows if r["state"] == state and r["setup"] == setup]
            if not mine:
                continue
            cell = lambda key: "–".join(sorted({f"{r[key]:.2f}" for r in mine if key in r})) or "–"
            print(f"| `{state}` | {setup} | {'/'.join(str(r['rounds']) for r in mine)} | "
                  f"{cell('round_sd')} % | {cell('block_sd')} % | "
                  f"{cell('a_within_sd')}; {cell('b_within_sd')} % | "
                  f"{cell('a_offset_sd')}; {cell('b_offset_sd')} % | {cell('pair_offset_sd')} % | "
                  f"{milliseconds(mine, 'block_s')} ms |")


if __name__ == "__main__":
    main()
