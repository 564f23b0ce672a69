#!/usr/bin/env python3
"""Replays `kerntime ab`'s sequential decision over A/A runs already made, once per statistic of a
preparation, to see what another statistic would have decided on the same preparations:

    PYTHONPATH=build/python python3 bench/ab/replay_statistic.py aa_preparations.json \
        [--band 0.01] [--alpha 0.05] [--min-rounds 4]

The input is bench/ab/preparation_stats.py's (ab_cli_check.sh writes it as aa_preparations.json).
Each round is one A B B A block from a fresh process pair (the defaults of `kerntime ab`), so the
k-th block is A's preparations 2k and 2k+1 and B's 2k and 2k+1. The decision core is kerntime's
own (`_kerntime.SequentialRatio`); a replay stops where the run stopped at the latest (its
preparations end there), so a statistic that needs more rounds than the run made ends
inconclusive here.

Statistics:
- median: the trial's median, as `kerntime ab` decides today; the interval is never narrower than
  the timer's step. Its verdicts should be the run's own (a check of the replay).
- clipped_mean: the mean of the iterations within max(2 timer steps, 4 scaled MADs) of the
  median. A kernel's start falls anywhere between two ticks of the timer, so a duration reads one
  step long or short at random and the mean of many readings resolves finer than a step; the
  interval's floor is the step over the square root of the iterations.
"""

import argparse
import json
import math
import statistics
from collections import Counter, defaultdict

from kerntime import _kerntime

MEDIAN, CLIPPED, MEAN, STEP, ITERATIONS = 0, 1, 2, 3, 4


def replay(state, statistic, band, alpha, min_rounds):
    a, b = state["a"], state["b"]
    blocks = min(len(a), len(b)) // 2
    if blocks == 0:
        return "none", 0
    column = MEDIAN if statistic == "median" else CLIPPED
    step = max(row[STEP] for row in a[:2 * blocks] + b[:2 * blocks])
    typical = statistics.median(row[MEDIAN] for row in a[:2 * blocks] + b[:2 * blocks])
    fraction = step / typical
    if statistic != "median":
        fraction /= math.sqrt(min(row[ITERATIONS] for row in a + b))
    sequence = _kerntime.SequentialRatio(alpha, fraction)
    for k in range(blocks):
        sequence.add_block(_kerntime.block_log_ratio(
            [a[2 * k][column], b[2 * k][column], b[2 * k + 1][column], a[2 * k + 1][column]]))
        if k + 1 < min_rounds:
            continue
        decision = sequence.decision(band)
        if decision != "undecided":
            return decision, k + 1
        if statistic == "median" and sequence.no_verdict_reachable(band):
            return "inconclusive", k + 1
    return sequence.conclusion(band), blocks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("preparations")
    parser.add_argument("--band", type=float, default=0.01)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--min-rounds", type=int, default=4)
    args = parser.parse_args()
    states = json.load(open(args.preparations))
    print(f"{len(states)} state decisions, band ±{100 * args.band:g} %\n")
    print("| statistic | slower | faster | same | inconclusive | rounds to a verdict (median) |")
    print("|---|---:|---:|---:|---:|---:|")
    by_state = defaultdict(dict)
    for statistic in ("median", "clipped_mean"):
        verdicts = Counter()
        rounds = []
        for state in states:
            verdict, used = replay(state, statistic, args.band, args.alpha, args.min_rounds)
            verdicts[verdict] += 1
            by_state[state["state"]].setdefault(statistic, Counter())[verdict] += 1
            if verdict in ("slower", "faster", "same"):
                rounds.append(used)
        print(f"| {statistic} | {verdicts['slower']} | {verdicts['faster']} | {verdicts['same']} | "
              f"{verdicts['inconclusive']} | {statistics.median(rounds) if rounds else '-'} |")
        print(f"RESULT ab_replay statistic={statistic} states={len(states)} "
              f"slower={verdicts['slower']} faster={verdicts['faster']} same={verdicts['same']} "
              f"inconclusive={verdicts['inconclusive']}")
    print("\n| state | median | clipped_mean |\n|---|---|---|")
    for name, counts in sorted(by_state.items()):
        cells = [", ".join(f"{v} {n}" for v, n in sorted(counts.get(s, {}).items()))
                 for s in ("median", "clipped_mean")]
        print(f"| {name} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
