#!/usr/bin/env bash
# `kerntime ab` over one state at a time, as a kernel author compares one kernel: A/A runs of
# `kerntime ab kerntime kerntime --filter '^STATE$' --max-time 20` (the other flags at their
# defaults, as bench/ab/ab_cli_check.sh's suite runs), each followed in the same minutes by one at
# one block a round (--most-pairs-per-round 2):
#   OUT=out bench/ab/single_state.sh [build-folder]
# SINGLE_STATES: the states, space-separated (default: the suite's preparation-bound ones and one
# process-bound one); SINGLE_RUNS: runs per state and setting (default 3).
# A RESULT line per run (wall, rounds, verdict, band) and a table last. It changes no setting of
# the card.
# shellcheck source=bench/ab/setup.sh # sets build, kerntime and OUT
source "$(dirname "$0")/setup.sh"
states=${SINGLE_STATES:-"copy/bytes=1048576/l2=cold copy/bytes=16777216/l2=hot tiny_kernel/kernels=1 radix_sort/elements=65536"}
rm -f "$OUT"/single_*
n=0
for state in $states; do
  for _ in $(seq 1 "${SINGLE_RUNS:-3}"); do
    for setting in chosen one; do
      n=$((n + 1))
      flags=()
      [[ $setting == one ]] && flags=(--most-pairs-per-round 2)
      started=$(date +%s.%N)
      timeout --foreground 120 "$kerntime" ab "$kerntime" "$kerntime" --max-time 20 \
        --filter "^${state}\$" "${flags[@]}" --state-timeout 60 --json "$OUT/single_$n.json" -q \
        2>"$OUT/single_$n.err"
      code=$?
      wall=$(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$started")
      python3 - "$OUT/single_$n.json" "$state" "$setting" "$wall" "$code" <<'PY'
import json, sys
path, state, setting, wall, code = sys.argv[1:]
try:
    s = json.load(open(path))["states"][0]
    verdict, band, rounds = s["verdict"], s["band"], s["base_units"]
except (OSError, ValueError, KeyError, IndexError):
    verdict, band, rounds = f"none_exit_{code}", 0, 0
print(f"RESULT ab_single state={state} setting={setting} wall_s={wall} rounds={rounds} "
      f"verdict={verdict} band_pct={100 * band:g}")
PY
    done
  done
done | tee "$OUT/single.txt"

# The table; exit 1 where no run gave a verdict (kerntime failed every time: see single_N.err).
python3 - "$OUT/single.txt" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if line.startswith("RESULT ab_single"):
        f = dict(kv.split("=", 1) for kv in line.split()[2:])
        rows[(f["state"], f["setting"])].append(f)
print("\n| state | blocks | runs | wall (median, range) | rounds | verdicts |")
print("|---|---|---:|---|---|---|")
for (state, setting), runs in rows.items():
    walls = [float(r["wall_s"]) for r in runs]
    verdicts = ", ".join(r["verdict"] + ("" if float(r["band_pct"]) <= 1 else f" ±{r['band_pct']} %")
                         for r in runs)
    print(f"| {state} | {setting} | {len(runs)} | {statistics.median(walls):.1f} s "
          f"({min(walls):.1f}–{max(walls):.1f}) | {', '.join(r['rounds'] for r in runs)} | {verdicts} |")
sys.exit(0 if any(not r["verdict"].startswith("none_") for v in rows.values() for r in v) else 1)
PY
