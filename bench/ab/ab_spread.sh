#!/usr/bin/env bash
# Where the spread of `kerntime ab`'s blocks comes from (docs/ab.md), on the GPU:
#   OUT=out bench/ab/ab_spread.sh [build-folder]
# An A/A run of five suite states at a fixed 40 pairs (20 blocks) each, under four set-ups:
# placement varied or not (--vary-placement) × a fresh process pair every 10 pairs (four rounds
# of --pairs-per-round 10) or one for the whole run (--keep-workers). For each it prints the spread of one side's preparations, of the blocks'
# log-ratios, and of the process pairs' mean log-ratios against what the blocks' spread predicts
# for them (a ratio above 1: process pairs carry an offset of their own). It changes no setting.
# shellcheck source=bench/ab/setup.sh # sets build, kerntime and OUT
source "$(dirname "$0")/setup.sh"
states='^(copy/bytes=1048576/l2=cold|reduce_sum/T=float/elements=65536|tiny_kernel/kernels=16|spin/duration_us=10|gemm_bf16/size=1024)$'
for setup in "on 10" "on 0" "off 10" "off 0"; do
  read -r placement per_worker <<<"$setup"
  name="place_${placement}_workers_${per_worker}"
  keep=()
  [ "$per_worker" = 0 ] && keep=(--keep-workers)
  "$kerntime" ab "$kerntime" "$kerntime" --filter "$states" --pairs-per-round 10 --min-rounds 4 \
    --max-pairs 40 --max-time 60 "${keep[@]}" --vary-placement "$placement" \
    --results-a "$OUT/${name}_a.json" --results-b "$OUT/${name}_b.json" -q 2>"$OUT/$name.err"
  echo "$name: exit $?; $(tail -n 1 "$OUT/$name.err")"
done
python3 - "$OUT" <<'PY'
import json, math, statistics, sys
out = sys.argv[1]
def medians(path):
    runs = json.load(open(path))["runs"]
    return {r["state_name"]: [statistics.median(t["span_ns"])
                              for t in r["result"]["trials"]]
            for r in runs if r["status"] == "ok"}
print("\n| set-up | state | A's preparations (CV) | block log-ratio (SD) | process pairs' means (SD) | their SD / predicted |")
print("|---|---|---:|---:|---:|---:|")
for placement in ("on", "off"):
    for per_worker in ("10", "0"):
        name = f"place_{placement}_workers_{per_worker}"
        try:
            a, b = medians(f"{out}/{name}_a.json"), medians(f"{out}/{name}_b.json")
        except (OSError, ValueError, KeyError) as e:
            print(f"| {name} | unreadable: {e} |"); continue
        for state in a:
            if state not in b: continue
            ma, mb = a[state], b[state]
            blocks = [((math.log(mb[2*k]) + math.log(mb[2*k+1])) - (math.log(ma[2*k]) + math.log(ma[2*k+1]))) / 2
                      for k in range(min(len(ma), len(mb)) // 2)]
            cv = statistics.stdev(ma) / statistics.mean(ma)
            sd = statistics.stdev(blocks)
            epoch = 5  # blocks per process pair with --pairs-per-round 10
            if per_worker == "10" and len(blocks) >= 2 * epoch:
                means = [statistics.mean(blocks[i:i+epoch]) for i in range(0, len(blocks) - epoch + 1, epoch)]
                esd = statistics.stdev(means)
                pair_text, ratio_text = f"{100*esd:.2f} %", f"{esd / (sd / math.sqrt(epoch)):.2f}"
            else:
                pair_text, ratio_text = "–", "–"
            print(f"| {name} | {state} | {100*cv:.2f} % | {100*sd:.2f} % | {pair_text} | {ratio_text} |")
PY
