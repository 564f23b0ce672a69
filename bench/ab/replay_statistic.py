#!/usr/bin/env python3
"""Replays `kerntime ab`'s sequential decision over A/A runs already made, once per statistic of a
preparation, to see what another statistic would have decided on the same preparations:

    PYTHONPATH=build/python python3 bench/ab/replay_statistic.py aa_preparations.json \
        [--band 0.01] [--alpha 0.05] [--min-rounds 6]

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
- clipped_mean+floor: what `kerntime ab` decides today (--max-pairs 100, 50 rounds): the clipped
  mean, and a state whose rounds spread too widely to settle `same` within the 50 goes on, from
  its 10th round, with `same` judged at the narrowest band up to 5 x the band its spread could
  settle (sequential_ratio::reachable_band; `slower` and `faster` stay at the band), and stops
  inconclusive where not even 5 x the band could settle `same` within 100.
- clipped_mean+floor+reference: the same, each round's observation of a state taken less
  beta x the observation of the reference state (REFERENCE, launch-bound like the states the
  process modes move; docs/ab.md "One mode for the whole process") in the same round, the same
  process pair. beta is the regression through the origin of the state's observations on the
  reference's over the earlier rounds only (0 before three of them; held to [0, 2]), so each
  adjusted observation's mean is the state's own log ratio whenever the reference's true ratio
  is 1 (the same code on both sides, as in an A/A run): a control variate that keeps the
  sequence valid. The reference state itself is not adjusted.
"""

import argparse
import json
import math
import statistics
from collections import Counter, defaultdict

from kerntime import _kerntime

MEDIAN, CLIPPED, MEAN, STEP, ITERATIONS = 0, 1, 2, 3, 4


ROUNDS = 50  # kerntime ab's default --max-pairs 100, one block a round
REFERENCE = "tiny_kernel/kernels=16"
MIN_BETA_ROUNDS = 3  # earlier rounds with a reference before beta is used


def block(rows_a, rows_b, k, column):
    """The k-th round's A B B A block of one state as kerntime ab reads it: its log ratio."""
    return _kerntime.block_log_ratio(
        [rows_a[2 * k][column], rows_b[2 * k][column], rows_b[2 * k + 1][column],
         rows_a[2 * k + 1][column]])


def adjusted(observation, reference, earlier):
    """The observation less beta x the reference's, beta from the earlier (y, x) pairs only."""
    if reference is None:
        return observation
    beta = 0.0
    if len(earlier) >= MIN_BETA_ROUNDS:
        xx = sum(x * x for _, x in earlier)
        beta = min(2.0, max(0.0, sum(y * x for y, x in earlier) / xx)) if xx > 0 else 0.0
    earlier.append((observation, reference))
    return observation - beta * reference


def replay(state, statistic, band, alpha, min_rounds, reference=None):
    """The verdict, the rounds it took and the band it was judged at. reference: the reference
    state's record in the same run (for the +reference statistic)."""
    a, b = state["a"], state["b"]
    blocks = min(len(a), len(b)) // 2
    if blocks == 0:
        return "none", 0, band
    column = MEDIAN if statistic == "median" else CLIPPED
    step = max(row[STEP] for row in a[:2 * blocks] + b[:2 * blocks])
    typical = statistics.median(row[MEDIAN] for row in a[:2 * blocks] + b[:2 * blocks])
    fraction = step / typical
    if statistic != "median":
        fraction /= math.sqrt(min(row[ITERATIONS] for row in a + b))
    sequence = _kerntime.SequentialRatio(alpha, fraction)
    floor = "+floor" in statistic
    use_reference = (statistic.endswith("+reference") and reference is not None and
                     reference is not state)
    ref_blocks = min(len(reference["a"]), len(reference["b"])) // 2 if use_reference else 0
    earlier = []
    judged_at = band
    for k in range(blocks):
        observation = block(a, b, k, column)
        if k < ref_blocks:
            observation = adjusted(observation, block(reference["a"], reference["b"], k, column),
                                   earlier)
        sequence.add_block(observation)
        if k + 1 < min_rounds:
            continue
        give_up = False
        if floor and sequence.decision(band, judged_at) == "undecided":
            give_up, wider = _kerntime.look_at_spread(
                sequence, band, judged_at, ROUNDS, _kerntime.widest_band_factor * band,
                _kerntime.give_up_margin * ROUNDS)
            if wider is not None:
                judged_at = wider
        decision = sequence.decision(band, judged_at)
        if decision != "undecided":
            return decision, k + 1, judged_at
        if statistic != "clipped_mean" and sequence.no_verdict_reachable(judged_at):
            return "inconclusive", k + 1, judged_at
        if give_up:
            return "inconclusive", k + 1, judged_at
    return sequence.conclusion(band, judged_at), blocks, judged_at


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("preparations")
    parser.add_argument("--band", type=float, default=0.01)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--min-rounds", type=int, default=6)  # kerntime ab's default
    args = parser.parse_args()
    states = json.load(open(args.preparations))
    print(f"{len(states)} state decisions, band ±{100 * args.band:g} %\n")
    print("| statistic | slower | faster | same | inconclusive | rounds to a verdict (median) | "
          "judged at a wider band |")
    print("|---|---:|---:|---:|---:|---:|---|")
    by_state = defaultdict(dict)
    statistics_replayed = ("median", "clipped_mean", "clipped_mean+floor",
                           "clipped_mean+floor+reference")
    references = {s["run"]: s for s in states if s["state"] == REFERENCE}
    for statistic in statistics_replayed:
        verdicts = Counter()
        rounds = []
        widened = []
        for state in states:
            verdict, used, judged_at = replay(state, statistic, args.band, args.alpha,
                                              args.min_rounds, references.get(state["run"]))
            verdicts[verdict] += 1
            label = verdict if judged_at == args.band else f"{verdict} ±{100 * judged_at:g} %"
            by_state[state["state"]].setdefault(statistic, Counter())[label] += 1
            if verdict in ("slower", "faster", "same"):
                rounds.append(used)
            if judged_at != args.band:
                widened.append(judged_at)
        bands = (f"{len(widened)}, ±{100 * min(widened):g}–{100 * max(widened):g} %"
                 if widened else "0")
        print(f"| {statistic} | {verdicts['slower']} | {verdicts['faster']} | {verdicts['same']} | "
              f"{verdicts['inconclusive']} | {statistics.median(rounds) if rounds else '-'} | "
              f"{bands} |")
        print(f"RESULT ab_replay statistic={statistic} states={len(states)} "
              f"slower={verdicts['slower']} faster={verdicts['faster']} same={verdicts['same']} "
              f"inconclusive={verdicts['inconclusive']}")
    print("\n| state | " + " | ".join(statistics_replayed) + " |\n|---|---|---|---|---|")
    for name, counts in sorted(by_state.items()):
        cells = [", ".join(f"{v} {n}" for v, n in sorted(counts.get(s, {}).items()))
                 for s in statistics_replayed]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
