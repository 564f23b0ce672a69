#!/usr/bin/env bash
# The trust fixes on the GPU (issue 25), over a staged build:
#   OUT=out bench/compare/trust_check.sh [build-folder]   (scripts/gpu_check.sh runs it)
# Two suite runs compared (the timer's step read off real spans; A/A verdicts with the step in the
# interval), --stop-at-ci 0.5 on a 1 µs spin (below the step: stops with timer_resolution), the
# event fallback's step, and compare's clock rule on the real runs. Prints RESULT lines last.
set -u -o pipefail
build=$(cd "${1:-build}" && pwd) || { echo "no build folder ${1:-build}" >&2; exit 2; }
OUT=${OUT:-./out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64:/usr/local/cuda/lib"
k="$build/kerntime"
for i in 1 2 3; do
  timeout 120 "$k" run -q --json "$OUT/suite$i.json" 2>"$OUT/suite$i.err"
done
timeout 60 "$k" run -q --filter '^spin/duration_us=1$' --stop-at-ci 0.5 --json "$OUT/stop.json" 2>"$OUT/stop.err"
timeout 60 "$k" run -q --filter '^(spin/duration_us=1|copy/bytes=1048576/l2=cold)$' --backend events \
  --json "$OUT/events.json" 2>"$OUT/events.err"
for pair in "1 2" "1 3" "2 3"; do
  # shellcheck disable=SC2086 # split on purpose: two run numbers
  set -- $pair
  timeout 60 "$k" compare "$OUT/suite$1.json" "$OUT/suite$2.json" --json "$OUT/compare$1$2.json" \
    >"$OUT/compare$1$2.md" 2>"$OUT/compare$1$2.err"
  echo "compare $1 $2 exit $?" >>"$OUT/compare.exits"
done
python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
def runs(name):
    return [r for r in json.load(open(out / name))["runs"] if r.get("result")]
steps = [r["result"]["timer_resolution_ns"] for r in runs("suite1.json")]
print(f"RESULT timer_step_cupti states={len(steps)} min={min(steps):.2f} max={max(steps):.2f} "
      f"zero={sum(s == 0 for s in steps)}")
for r in runs("events.json"):
    print(f"RESULT timer_step_events state={r['state_name']} step={r['result']['timer_resolution_ns']:.1f} "
          f"latency={r['result']['latency_ns']:.0f}")
for r in runs("stop.json"):
    s = r["result"]["stopping"]
    print(f"RESULT stop_below_step state={r['state_name']} trials={s['trials']} "
          f"reason={s['stopped_because']} half_width={s['half_width']} "
          f"step={r['result']['timer_resolution_ns']:.1f} latency={r['result']['latency_ns']:.0f}")
for pair in ("12", "13", "23"):
    c = json.load(open(out / f"compare{pair}.json"))
    verdicts = {}
    for s in c["states"]:
        key = s["verdict"] + (" (clock)" if s["clock_mismatch"] else "")
        verdicts[key] = verdicts.get(key, 0) + 1
    few = sum(1 for s in c["states"] if s["change_in_steps"] is not None and abs(s["change_in_steps"]) <= 3 and s["base_ns"] != s["new_ns"])
    print(f"RESULT aa_compare pair={pair} regression={c['regression']} "
          f"verdicts={json.dumps(verdicts, separators=(',', ':'))} within_3_steps={few}")
PY
cat "$OUT/compare.exits"
