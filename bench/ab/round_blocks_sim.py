#!/usr/bin/env python3
"""What choosing more blocks a round (kerntime ab's --most-pairs-per-round) would do to an A/A run
of the suite, simulated from a recorded run's states through kerntime's own sequence:

    PYTHONPATH=build/python python3 bench/ab/round_blocks_sim.py AA_PREPARATIONS.json AA_DIR \\
        [--runs aa_1,aa_2] [--suites 200] [--round-seconds 0.47] [--block-seconds 0.04]
        [--shared] [--max-rounds 50]

AA_PREPARATIONS.json is bench/ab/ab_cli_check.sh's condensed record of every preparation; AA_DIR
holds the same runs' JSON (aa_N.json, for each state's spread as its sequence read it, adjusted
by the reference). Each state becomes a model: its rounds' variance V (as read), of which W is a
block's own (from the blocks' halves about their mean per order, as compare/round_blocks.cpp
reads it) and B = V - W the process pair's. A simulated suite runs every state in rounds from the
first, each round costing --round-seconds (the process pair's start and exit and the reference)
and each open state's blocks --block-seconds each; states decide from round 6 at ±1 %, with the
spread floor from round 10 (look_at_spread), up to 50 rounds (--max-rounds). With `chosen`, each
round's blocks come from the rule kerntime ab applies (the split read from the simulated blocks,
then kerntime's own project_blocks and blocks_for_next_round over 1, 2 and 4 blocks); with `one`,
every round runs one block. It prints, per rule, the suite's wall (median, p90), the rounds of its
longest state, and per suite the `same` at ±1 %, at a wider band, and inconclusive.
"""

import argparse
import json
import math
import random
import statistics

from kerntime import _kerntime

BAND, ALPHA, ROUNDS, MIN_ROUNDS = 0.01, 0.05, 50, 6
SHARED = False


def models(preparations, runs_dir, runs):
    """Per state: (V, W) averaged over the named runs."""
    found = {}
    for run in runs:
        read = {s["state_name"]: s for s in json.load(open(f"{runs_dir}/{run}.json"))["states"]}
        for e in preparations:
            if e["run"] != run or e["state"] not in read:
                continue
            a = [math.log(p[1]) for p in e["a"]]
            b = [math.log(p[1]) for p in e["b"]]
            n = min(len(a), len(b)) // 2
            d = [[], []]
            for r in range(n):
                d[r % 2].append((b[2 * r] - a[2 * r]) - (b[2 * r + 1] - a[2 * r + 1]))
            if min(len(d[0]), len(d[1])) < 2:
                continue
            w = (statistics.variance(d[0]) + statistics.variance(d[1])) / 2 / 4
            s = read[e["state"]]
            v = (s.get("unit_sd_adjusted") or s.get("unit_sd") or 0) ** 2
            found.setdefault(e["state"], []).append((v, w))
    return {k: (statistics.mean(x[0] for x in v), statistics.mean(x[1] for x in v))
            for k, v in found.items()}


class state:
    def __init__(self, v, w):
        self.between, self.within = max(v - w, 0.0), min(w, v) if v > 0 else w
        self.sequence = _kerntime.SequentialRatio(ALPHA, 0.0)
        self.d = ([], [])
        self.inverse = 0.0
        self.rounds, self.next, self.band, self.done, self.verdict = 0, 1, BAND, False, None

    def round(self, rng):
        k = self.next
        order = self.rounds % 2
        blocks = [rng.gauss(0, math.sqrt(self.within)) for _ in range(k)]
        for _ in range(k):
            self.d[order].append(rng.gauss(0, 2 * math.sqrt(self.within)))
        self.sequence.add_block(rng.gauss(0, math.sqrt(self.between)) + sum(blocks) / k)
        self.inverse += 1 / k
        self.rounds += 1
        return k

    def split(self):
        """(a block's own variance, the rest) as compare/round_blocks.cpp reads them, or None."""
        squares, degrees = 0.0, 0
        for d in self.d:
            if len(d) >= 2:
                m = sum(d) / len(d)
                squares += sum((x - m) ** 2 for x in d)
                degrees += len(d) - 1
        if degrees < 2 or self.rounds < 2:
            return None
        within = squares / degrees / 4
        variance = self.sequence.variance() * self.rounds / (self.rounds - 1)
        return within, max(0.0, variance - within * self.inverse / self.rounds)

    def look(self, chosen, round_seconds, block_seconds):
        if self.rounds >= MIN_ROUNDS:
            decision = self.sequence.decision(BAND, self.band)
            if decision == "undecided":
                # The rounds to come at the blocks this state runs now (kerntime ab's floor).
                split = self.split() if chosen and self.next > 1 else None
                later = split[1] + split[0] / self.next if split else None
                give_up, wider = _kerntime.look_at_spread(self.sequence, BAND, self.band, ROUNDS,
                                                          _kerntime.widest_band_factor * BAND,
                                                          _kerntime.give_up_margin * ROUNDS, later)
                if wider is not None:
                    self.band = wider
                    decision = self.sequence.decision(BAND, self.band)
                if give_up:
                    decision = "inconclusive"
            if decision != "undecided" or self.rounds >= ROUNDS:
                self.done, self.verdict = True, decision if decision != "undecided" else "inconclusive"
                return
        if not chosen:
            return
        split = self.split()
        if split is None:
            return
        within, between = split
        projected = _kerntime.project_blocks(self.sequence, self.band, BAND, within, between, 4,
                                             10 * ROUNDS)
        best = _kerntime.blocks_for_next_round(projected, self.rounds, MIN_ROUNDS, round_seconds,
                                               block_seconds)
        self.next = best


def suite(params, chosen, rng, round_seconds, block_seconds):
    states = [state(v, w) for v, w in params.values()]
    wall, rounds = 0.0, 0
    while any(not s.done for s in states):
        wall += round_seconds
        rounds += 1
        for s in states:
            if not s.done:
                wall += s.round(rng) * block_seconds
        open_states = sum(not s.done for s in states)
        for s in states:
            if not s.done:
                # The round's start is shared by the states open in it (--shared), or each
                # state's own.
                share = round_seconds / open_states if SHARED else round_seconds
                s.look(chosen, share, block_seconds)
    same = sum(s.verdict == "same" and s.band == BAND for s in states)
    wider = sum(s.verdict == "same" and s.band > BAND for s in states)
    inconclusive = sum(s.verdict == "inconclusive" for s in states)
    false = sum(s.verdict in ("slower", "faster") for s in states)
    return wall, rounds, same, wider, inconclusive, false


def main():
    global SHARED, ROUNDS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("preparations")
    parser.add_argument("runs_dir")
    parser.add_argument("--runs", default="aa_1,aa_2")
    parser.add_argument("--suites", type=int, default=200)
    parser.add_argument("--round-seconds", type=float, default=0.47)
    parser.add_argument("--block-seconds", type=float, default=0.04)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--shared", action="store_true")
    parser.add_argument("--max-rounds", type=int, default=50,
                        help="the rounds a state may run (kerntime ab's --max-pairs / 2)")
    args = parser.parse_args()
    SHARED, ROUNDS = args.shared, args.max_rounds
    params = models(json.load(open(args.preparations)), args.runs_dir, args.runs.split(","))
    print(f"{len(params)} states modelled from {args.runs}")
    print("| blocks | suite wall (median, p90) | longest state's rounds (median) | same ±1 % | "
          "wider | inconclusive | false | per suite of", len(params), "|")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for chosen in (False, True):
        rng = random.Random(args.seed)
        rows = [suite(params, chosen, rng, args.round_seconds, args.block_seconds)
                for _ in range(args.suites)]
        walls = sorted(r[0] for r in rows)
        mean = lambda i: statistics.mean(r[i] for r in rows)
        print(f"| {'chosen' if chosen else 'one'} | {walls[len(walls) // 2]:.1f} s, "
              f"{walls[int(len(walls) * 0.9)]:.1f} s | {statistics.median(r[1] for r in rows):.0f} | "
              f"{mean(2):.1f} | {mean(3):.1f} | {mean(4):.2f} | {mean(5):.2f} | |")


if __name__ == "__main__":
    main()
