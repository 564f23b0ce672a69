#!/usr/bin/env python3
"""What the spread floor of `kerntime ab` does to A/A states of a given spread, simulated through
kerntime's own sequence (`_kerntime.SequentialRatio`), against the run without it (the early stop
alone) and the run to the limit:

    PYTHONPATH=build/python python3 bench/ab/spread_floor_sim.py [--runs 2000] [--seed 11] \
        [--min-rounds 6]

Each state is an A/A run of normal process-pair observations (no true change) of the given SD,
looked at after every round from the 6th up to 50 (the defaults: --min-rounds 6, --max-pairs
100) at the ±1 % band. With the floor, from the 10th round a state whose spread puts ±1 % out of
reach within the 50 rounds goes on at the narrowest band in half steps up to ±5 % that the spread
could settle within a third of the rounds left (sequential_ratio::reachable_band), and one that
no band could settle within 100 stops; without it, the state stops inconclusive once ±1 % is out
of reach within 100 (the early stop). It prints, per SD: `same` at ±1 %, `same` at a wider band
(and the median band), inconclusive, and false slower/faster, for both rules; then, for a real
change of B, how often each rule calls it `slower`, and how often `same` at a wider band (which
holds the change). With the floor, `same` is judged at the wider band and `slower`/`faster` stay
at ±1 %; a state is given up once not even ±5 % could settle `same` within 100 rounds.
"""

import argparse
import math
import random
import statistics

from kerntime import _kerntime

ROUNDS, BAND, ALPHA = 50, 0.01, 0.05
WIDEST = _kerntime.widest_band_factor * BAND


def run(rng, sd, floor, mean, min_rounds):
    """One state: (verdict, the band `same` was judged at)."""
    sequence = _kerntime.SequentialRatio(ALPHA, 0.0)
    band = BAND
    for k in range(1, ROUNDS + 1):
        sequence.add_block(mean + rng.gauss(0, sd))
        if k < min_rounds:
            continue
        decision = sequence.decision(BAND, band)
        if decision != "undecided":
            return decision, band
        give_up, wider = _kerntime.look_at_spread(sequence, BAND, band, ROUNDS,
                                                  WIDEST if floor else 0.0,
                                                  _kerntime.give_up_margin * ROUNDS)
        if wider is not None:
            band = wider
            decision = sequence.decision(BAND, band)
            if decision != "undecided":
                return decision, band
        if give_up:
            return "inconclusive", band
    return "inconclusive", band


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--min-rounds", type=int, default=6)  # kerntime ab's default
    args = parser.parse_args()
    print("| round SD | rule | same ±1 % | same wider (median band) | inconclusive | false |")
    print("|---:|---|---:|---:|---:|---:|")
    for sd in (0.012, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05):
        for floor in (False, True):
            rng = random.Random(args.seed)
            counts = {"same": 0, "wider": 0, "inconclusive": 0, "false": 0}
            bands = []
            for _ in range(args.runs):
                verdict, band = run(rng, sd, floor, 0.0, args.min_rounds)
                if verdict == "same" and band == BAND:
                    counts["same"] += 1
                elif verdict == "same":
                    counts["wider"] += 1
                    bands.append(band)
                elif verdict == "inconclusive":
                    counts["inconclusive"] += 1
                else:
                    counts["false"] += 1
            wider = (f"{counts['wider']} (±{100 * statistics.median(bands):g} %)" if bands
                     else "0")
            print(f"| {100 * sd:g} % | {'floor' if floor else 'early stop'} | {counts['same']} | "
                  f"{wider} | {counts['inconclusive']} | {counts['false']} |", flush=True)
    # A real change: B slower by `change` at a round SD of `sd`; how often `slower`, and how
    # often `same` at a wider band (the change within it).
    print("\n| B slower by | round SD | rule | slower | same (at a wider band) | inconclusive |")
    print("|---:|---:|---|---:|---:|---:|")
    for change, sd in ((0.02, 0.02), (0.03, 0.03), (0.02, 0.03), (0.05, 0.04)):
        for floor in (False, True):
            rng = random.Random(args.seed)
            verdicts = [run(rng, sd, floor, math.log1p(change), args.min_rounds)
                        for _ in range(args.runs)]
            slower = sum(v == "slower" for v, _ in verdicts)
            same = sum(v == "same" for v, _ in verdicts)
            inconclusive = sum(v == "inconclusive" for v, _ in verdicts)
            print(f"| {100 * change:g} % | {100 * sd:g} % | {'floor' if floor else 'early stop'} "
                  f"| {slower} | {same} | {inconclusive} |", flush=True)


if __name__ == "__main__":
    main()
