#!/usr/bin/env python3
"""The shard plans an array job wrote, and their merge, against the full plan.

check_shard_plans.py FULL_PLAN.json OUT_DIR N: OUT_DIR holds shard-I-of-N.json for I in 0..N-1
(from `kerntime list --shard I/N --json`) and merged.json (from `kerntime merge` over them). Shard
I must hold exactly the full plan's states whose plan index k has k % N == I, and the merge must be
the full plan's states in plan order. Prints each difference and exits 1 if there is one.
"""

import json
import sys
from pathlib import Path


def read_plan(path):
    with open(path, encoding="utf-8") as f:
        plan = json.load(f)
    if plan.get("kind") != "kerntime_plan":
        raise ValueError(f"{path}: kind is {plan.get('kind')!r}, not 'kerntime_plan'")
    return plan


def main(full_path, out_dir, count):
    full = read_plan(full_path)
    states = full["states"]
    problems = []
    if [s["plan_index"] for s in states] != list(range(len(states))):
        problems.append(f"{full_path}: plan indices are not 0..{len(states) - 1}")
    if full["plan_states"] != len(states):
        problems.append(f"{full_path}: plan_states {full['plan_states']}, {len(states)} states")
    if len(states) < count:
        problems.append(f"{full_path}: {len(states)} states, fewer than {count} shards")

    for index in range(count):
        path = Path(out_dir) / f"shard-{index}-of-{count}.json"
        shard = read_plan(path)
        if shard["shard"] != {"index": index, "count": count}:
            problems.append(f"{path}: shard is {shard['shard']}, not {index}/{count}")
        if shard["plan_states"] != full["plan_states"]:
            problems.append(f"{path}: plan_states {shard['plan_states']}, "
                            f"the full plan has {full['plan_states']}")
        expected = [s for s in states if s["plan_index"] % count == index]
        if shard["states"] != expected:
            got = [s["name"] for s in shard["states"]]
            problems.append(f"{path}: states {got}, expected {[s['name'] for s in expected]}")

    merged_path = Path(out_dir) / "merged.json"
    merged = read_plan(merged_path)
    if merged["states"] != states:
        problems.append(f"{merged_path}: {len(merged['states'])} states, not the full plan's "
                        f"{len(states)} in plan order")

    for problem in problems:
        print(problem)
    print(f"{count} shards, {len(states)} states: "
          + ("each shard and the merge match the full plan" if not problems else "MISMATCH"))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
