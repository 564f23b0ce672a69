#!/usr/bin/env python3
"""Condenses the result sets of A/A runs (`kerntime ab --results-a/--results-b`) to what an offline
replay of the decision needs, one row per preparation, so the runs' raw JSON (tens of MB) can stay
on the GPU machine:

    python3 bench/ab/preparation_stats.py RUN_a.json RUN_b.json [...] > preparations.json

Files pair up by name (`X_a.json` with `X_b.json`). For every state and side, each preparation's
trial (in the order the run made them) becomes [median_ns, clipped_mean_ns, mean_ns,
timer_step_ns, iterations, grid_values, sm_clock_mhz]: the median is what `kerntime ab` decides on;
the clipped mean (the mean of the iterations within max(2 timer steps, 4 scaled MADs) of the
median) and the count of distinct values are for bench/ab/replay_statistic.py.
"""

import json
import re
import statistics
import sys


def clipped_mean(values, step):
    middle = statistics.median(values)
    mad = statistics.median(abs(v - middle) for v in values) * 1.4826
    width = max(2 * step, 4 * mad)
    kept = [v for v in values if abs(v - middle) <= width]
    return sum(kept) / len(kept)


def preparations(path):
    states = {}
    for run in json.load(open(path))["runs"]:
        result = run.get("result")
        if not result:
            continue
        step = result.get("timer_resolution_ns") or 0.0
        rows = []
        for trial in result["trials"]:
            spans = trial["span_ns"]
            if not spans:
                continue
            clock = trial["telemetry"].get("measured_sm_clock_mhz")
            rows.append([statistics.median(spans), clipped_mean(spans, step),
                         sum(spans) / len(spans), step, len(spans), len(set(spans)), clock])
        states[run["state_name"]] = rows
    return states


def main(paths):
    runs = {}
    for path in paths:
        match = re.match(r"(.*)_([ab])\.json$", path)
        if not match:
            sys.exit(f"{path}: expected a name ending in _a.json or _b.json")
        runs.setdefault(match.group(1), {})[match.group(2)] = preparations(path)
    out = []
    for name, sides in sorted(runs.items()):
        if set(sides) != {"a", "b"}:
            sys.exit(f"{name}: both {name}_a.json and {name}_b.json are needed")
        for state in sorted(set(sides["a"]) & set(sides["b"])):
            out.append({"run": name.rsplit("/", 1)[-1], "state": state,
                        "a": sides["a"][state], "b": sides["b"][state]})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
