#!/usr/bin/env bash
# The results history on a real GPU (issue 29, docs/history.md), over a build made elsewhere:
#   OUT=out bench/history/h200_history.sh [build-folder]
# RUNS runs (default 20) of the bundled suite on unchanged code, then of bench_ab_spin (two spin
# states): RUNS plain, then SLOWER runs (default 8) with AB_SPIN_SCALE=1.02, its kernels spinning
# 2 % longer (a known regression), each run added with `kerntime run --store` under a commit of
# its own. Then `kerntime history changes`: it should find the two spin states slower at the
# first slower run, and no change in the suite's unchanged runs. Writes the store, the changes
# (markdown and JSON) and the trends page under $OUT; a short table last. Changes no setting.
set -u -o pipefail
build=$(cd "${1:-build}" && pwd) || { echo "no build folder ${1:-build}" >&2; exit 2; }
root="$(cd "$(dirname "$0")/../.." && pwd)"
OUT=${OUT:-./out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
runs=${RUNS:-20}
slower=${SLOWER:-8}
store="$OUT/history.sqlite"
rm -f "$store"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$root/.deps/lib:/usr/local/cuda/lib64"
kerntime="$build/kerntime"
spin="$build/bench/bench_ab_spin"
started=$(date +%s)
failed=0
measure() { # program commit [env...]
  local program=$1 commit=$2
  shift 2
  env "$@" "$program" run -q --store "$store" --commit "$commit" --branch main \
    >>"$OUT/runs.log" 2>&1 || { echo "run $commit exited $?" >&2; failed=$((failed + 1)); }
}
for i in $(seq -w 1 "$runs"); do measure "$kerntime" "suite-$i"; done
suite_s=$(($(date +%s) - started))
for i in $(seq -w 1 "$runs"); do measure "$spin" "spin-$i" AB_SPIN_SCALE=1; done
for i in $(seq -w 1 "$slower"); do measure "$spin" "spin-slower-$i" AB_SPIN_SCALE=1.02; done
"$kerntime" history changes --store "$store" >"$OUT/changes.md" 2>&1
changes_exit=$?
"$kerntime" history changes --store "$store" --json "$OUT/changes.json" >/dev/null 2>&1
"$kerntime" history show --store "$store" --html "$OUT/trends.html" >/dev/null 2>&1
"$kerntime" history show --store "$store" --filter '^spin' >"$OUT/spin_series.md" 2>&1
cat "$OUT/changes.md"
echo
echo "| what | value |"
echo "|---|---|"
echo "| suite runs, spin runs (plain + 2 % slower) | $runs, $runs + $slower |"
echo "| runs that failed to run or to be added | $failed |"
echo "| time for the suite runs | ${suite_s} s |"
echo "| history changes exit | $changes_exit (1: a state slower at the tip) |"
echo "| changes found | $(grep -c '^| [a-z]' "$OUT/changes.md" | awk '{print $1 - 1}') |"
echo "| total time | $(($(date +%s) - started)) s |"
