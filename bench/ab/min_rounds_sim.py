#!/usr/bin/env python3
"""How often `kerntime ab` errs on an A/A state whose rounds spread wide, by --min-rounds:
simulated process-pair observations through kerntime's own sequence (`_kerntime.SequentialRatio`),
looked at after every round from --min-rounds on, as `kerntime ab` does, up to 50 rounds:

    PYTHONPATH=build/python python3 bench/ab/min_rounds_sim.py [--runs 20000] [--seed 7]

Each round's observation (the mean log-ratio of one process pair) is drawn with no true change,
with a spread like the process-bound states' on the H100s (a round SD of 2-4 %, docs/ab.md), from
three shapes: normal; Student t with 3 degrees of freedom (heavy tails); and a mixture where one
process pair in five carries an offset three times as wide. A fourth, `two_modes`, is the 1 µs
spin on the H200 (2026-12-06): each worker process independently reads 6.25 % high (three timer
steps, 1632 against 1536 ns) with a chance of 16 %, else not, plus 0.2 % of normal noise per
round; it has no SD to choose. It prints, per shape, SD and minimum,
the share of false slower/faster decisions and the counts of same and inconclusive.
"""

import argparse
import math
import random

from kerntime import _kerntime


# The 1 µs spin on the H200: 87 of 532 worker processes read 1632 ns, the rest 1536 ns; a
# process's mode did not depend on the one before it on the same side (16 % after a high one).
HIGH_MODE_CHANCE = 0.16
HIGH_MODE_OFFSET = math.log(1632 / 1536)


def draw(rng, shape, sd):
    if shape == "two_modes":
        a_high = rng.random() < HIGH_MODE_CHANCE
        b_high = rng.random() < HIGH_MODE_CHANCE
        return HIGH_MODE_OFFSET * (b_high - a_high) + rng.gauss(0, 0.002)
    if shape == "normal":
        return rng.gauss(0, sd)
    if shape == "t3":
        z = rng.gauss(0, 1)
        v = sum(rng.gauss(0, 1) ** 2 for _ in range(3))
        return z / math.sqrt(v / 3) * sd / math.sqrt(3)  # t3's variance is 3
    wide = rng.random() < 0.2
    return rng.gauss(0, sd * (3 if wide else 1) / math.sqrt(0.8 + 0.2 * 9))


def simulate(rng, shape, sd, min_rounds, runs, max_rounds=50, band=0.01, alpha=0.05):
    counts = {"slower": 0, "faster": 0, "same": 0, "inconclusive": 0}
    for _ in range(runs):
        sequence = _kerntime.SequentialRatio(alpha, 0.0)
        verdict = "inconclusive"
        for rounds in range(1, max_rounds + 1):
            sequence.add_block(draw(rng, shape, sd))
            if rounds >= min_rounds and (decided := sequence.decision(band)) != "undecided":
                verdict = decided
                break
        counts[verdict] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("| shape | round SD | --min-rounds | false slower/faster | same | inconclusive |")
    print("|---|---:|---:|---:|---:|---:|")
    for shape in ("normal", "t3", "mixture", "two_modes"):
        for sd in (0.04, 0.02) if shape != "two_modes" else (None,):
            for min_rounds in (4, 5, 6, 8):
                c = simulate(rng, shape, sd, min_rounds, args.runs)
                false = c["slower"] + c["faster"]
                share = 100 * false / args.runs
                shown = "-" if sd is None else f"{sd:.0%}"
                print(f"| {shape} | {shown} | {min_rounds} | {false} ({share:.2f} %) "
                      f"| {c['same']} | {c['inconclusive']} |", flush=True)


if __name__ == "__main__":
    main()
