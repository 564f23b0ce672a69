#!/usr/bin/env bash
# `kerntime ab` on the GPU, the numbers docs/ab.md quotes:
#   OUT=out bench/ab/ab_cli_check.sh [build-folder]
# 1. A/A: `kerntime ab kerntime kerntime` over the bundled suite, AA_RUNS times (default 5): the
#    share of false slower/faster and of inconclusive state decisions at the ±1 % band, and the
#    time to a decision per state.
# 2. Detection: bench_ab_spin (spin/duration_us=20 and =200) as A against the same program with
#    AB_SPIN_SCALE=1.01 as B (a change of exactly 1 %), DETECT_RUNS times each (default 10), at a
#    ±0.5 % band: how often it is called slower; then spin/duration_us=200 against
#    AB_SPIN_SCALE=1.005 (200 against 201 µs) at ±0.25 %, DETECT_RUNS times.
# AA_FLAGS: more flags for the A/A runs (words), e.g. the next experiment docs/ab.md names for the
# process-bound states: AA_FLAGS="--input-sets 24 --filter 'elements=65536$|tiny_kernel'".
# AA_FLAGS_ALT: a second set of flags; each A/A run is then followed by one with them (aa_alt_N),
# so the two sets share the card's minutes, and the table has a row for each.
# HALF_RUNS: runs of the +0.5 % detection (default DETECT_RUNS).
# Logs and JSON under $OUT; a short table last. It changes no setting of the card.
# shellcheck source=bench/ab/setup.sh # sets build, kerntime and OUT
source "$(dirname "$0")/setup.sh"
spin="$build/bench/bench_ab_spin"
started=$(date +%s)

rm -f "$OUT"/aa_* "$OUT"/detect_* "$OUT"/half_* # an earlier call's runs are not this one's
# One A/A run: its number, the file prefix and the flags (shell words, their quotes kept).
aa_run() {
  local i=$1 prefix=$2 flags=$3
  echo "== A/A $i${flags:+ ($flags)} ($(($(date +%s) - started)) s)"
  local aa_flags=()
  eval "aa_flags=($flags)"
  timeout --foreground "${AA_RUN_TIMEOUT:-150}" "$kerntime" ab "$kerntime" "$kerntime" --max-time 20 \
    "${aa_flags[@]}" --state-timeout 60 --json "$OUT/${prefix}_$i.json" \
    --results-a "$raw/${prefix}_${i}_a.json" --results-b "$raw/${prefix}_${i}_b.json" -q \
    2>"$OUT/${prefix}_$i.err"
  echo "exit $?"
  tail -n 2 "$OUT/${prefix}_$i.err"
  grep -h "reference" "$OUT/${prefix}_$i.err" || true
}
# Each A/A run's two result sets (every preparation's iterations; tens of MB) stay here; what an
# offline replay of the decision needs is condensed into $OUT/aa_preparations.json at the end.
raw=$(mktemp -d)
# `timeout --foreground` below: each run stays in this script's process group, so a timeout
# around the whole script (gpu_check.sh's) ends the run in flight too.
for i in $(seq 1 "${AA_RUNS:-5}"); do
  aa_run "$i" aa "${AA_FLAGS:-}"
  if [[ -n "${AA_FLAGS_ALT:-}" ]]; then
    aa_run "$i" aa_alt "$AA_FLAGS_ALT"
  fi
done

if compgen -G "$raw/aa_[0-9]*_a.json" >/dev/null; then
  python3 "$(dirname "$0")/preparation_stats.py" "$raw"/aa_[0-9]*.json >"$OUT/aa_preparations.json" ||
    echo "could not condense the A/A result sets"
fi
# Where the workers' time went: each side's host phases (docs/queue.md), summed over the states
# and preparations of every run, with the measurements' own wall time; per set of flags.
python3 - "$raw" "$OUT" <<'PY' || echo "could not sum the host phases"
import glob, json, sys
# Per state, over the default runs' both sides: its preparations, their wall time in the worker
# and what of it the trials were (which states a run's time went to).
per, per_runs = {}, len(glob.glob(f"{sys.argv[1]}/aa_[0-9]*_a.json"))
for prefix in ("aa", "aa_alt"):
    total, wall, state_wall, runs = {}, 0.0, 0.0, 0
    for path in sorted(glob.glob(f"{sys.argv[1]}/{prefix}_[0-9]*_[ab].json")):
        runs += 1
        for run in json.load(open(path)).get("runs", []):
            state_wall += run.get("wall_seconds") or 0.0
            r = run.get("result") or {}
            wall += r.get("wall_seconds") or 0.0
            for name, seconds in (r.get("host_phases_seconds") or {}).items():
                total[name] = total.get(name, 0.0) + seconds
            if prefix == "aa":
                e = per.setdefault(run.get("state_name") or "?", [0, 0.0, 0.0])
                e[0] += len(r.get("trials") or [])
                e[1] += run.get("wall_seconds") or 0.0
                e[2] += (r.get("host_phases_seconds") or {}).get("trials", 0.0)
    if runs:
        print(f"RESULT ab_host_phases set={prefix} sides_runs={runs} state_wall_s={state_wall:.1f} "
              f"measurement_wall_s={wall:.1f} " +
              " ".join(f"{k}_s={v:.1f}" for k, v in total.items()))
if per and per_runs:
    with open(f"{sys.argv[2]}/aa_state_seconds.md", "w") as out:
        out.write("| state | preparations a run | wall a run (s) | trials a run (s) | ms a preparation |\n"
                  "|---|---:|---:|---:|---:|\n")
        for name, (n, w, t) in sorted(per.items(), key=lambda x: -x[1][1]):
            out.write(f"| {name} | {n / per_runs:.0f} | {w / per_runs:.2f} | {t / per_runs:.2f} | "
                      f"{1e3 * w / max(n, 1):.1f} |\n")
PY
rm -rf "$raw"

if [[ ! -x "$spin" ]]; then
  echo "no $spin: the detection runs are skipped (stage it: STAGE_ONLY='... bench/bench_ab_spin')"
fi
b_program="$OUT/spin_b.sh"
printf '#!/bin/sh\nAB_SPIN_SCALE=1.01 exec "%s" "$@"\n' "$spin" >"$b_program"
chmod +x "$b_program"
for i in $(seq 1 "$([[ -x "$spin" ]] && echo "${DETECT_RUNS:-10}" || echo 0)"); do
  timeout --foreground 60 "$kerntime" ab "$spin" "$b_program" --threshold 0.5% --max-time 20 \
    --state-timeout 30 --json "$OUT/detect_$i.json" -q 2>"$OUT/detect_$i.err"
  echo "detect $i: exit $?; $(tail -n 1 "$OUT/detect_$i.err")"
done
# The issue's second detection: 200 µs against 201 µs (+0.5 %) at a ±0.25 % band.
b_half="$OUT/spin_b_half.sh"
printf '#!/bin/sh\nAB_SPIN_SCALE=1.005 exec "%s" "$@"\n' "$spin" >"$b_half"
chmod +x "$b_half"
for i in $(seq 1 "$([[ -x "$spin" ]] && echo "${HALF_RUNS:-${DETECT_RUNS:-10}}" || echo 0)"); do
  timeout --foreground 60 "$kerntime" ab "$spin" "$b_half" --filter 'duration_us=200$' \
    --threshold 0.25% --max-time 20 --state-timeout 30 --json "$OUT/half_$i.json" -q \
    2>"$OUT/half_$i.err"
  echo "detect +0.5 % $i: exit $?; $(tail -n 1 "$OUT/half_$i.err")"
done

python3 - "$OUT" <<'PY'
import glob, json, re, statistics, sys
out = sys.argv[1]
def verdicts(pattern):
    rows = []
    for path in sorted(glob.glob(f"{out}/{pattern}")):
        rows += json.load(open(path))["states"]
    return rows
count = lambda rows, v: sum(r["verdict"] == v for r in rows)
# Judged `same` at the state's spread floor, a band wider than --threshold (docs/ab.md).
floored = lambda rows: [r for r in rows if r.get("band_reason", "threshold") != "threshold"]
median = lambda xs: sorted(xs)[len(xs) // 2] if xs else float("nan")

def run_times(prefix):
    """Per run: wall, trials median and p90, settled median and p90, start and exit waits."""
    times = []
    for path in sorted(glob.glob(f"{out}/{prefix}_[0-9]*.err")):
        text = open(path).read()
        m = re.search(r"compared in ([\d.]+) s: a state's trials took ([\d.]+) s \(median\), "
                      r"([\d.]+) s \(p90\); it was settled ([\d.]+) s \(median\), ([\d.]+) s "
                      r"\(p90\)", text)
        w = re.search(r"([\d.]+) s waiting for them to start, ([\d.]+) s to exit", text)
        if m:
            times.append(tuple(float(x) for x in m.groups()) +
                         (tuple(float(x) for x in w.groups()) if w else (float("nan"),) * 2))
    return times

# (prefix, what it is called in the table and the RESULT lines)
sets = [("aa", "")] + ([("aa_alt", "alt")] if glob.glob(f"{out}/aa_alt_[0-9]*.json") else [])
# Each set's state decisions (not aa_preparations.json) and run times, read once.
read = {prefix: (verdicts(f"{prefix}_[0-9]*.json"), run_times(prefix)) for prefix, _ in sets}
print("\n| check | states | slower | faster | same | inconclusive | suite (median) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for prefix, tag in sets:
    aa, times = read[prefix]
    wider = floored(aa)
    print(f"| A/A suite{' (' + tag + ')' if tag else ''}, ±1 % | {len(aa)} | "
          f"{count(aa,'slower')} | {count(aa,'faster')} | "
          f"{count(aa,'same')} ({count(wider,'same')} at a wider band) | "
          f"{count(aa,'inconclusive')} | {median([t[0] for t in times]):.1f} s |")
for d in (20, 200):
    rows = [r for r in verdicts("detect_*.json") if r["state_name"] == f"spin/duration_us={d}"]
    print(f"| {d} µs vs {d * 1.01:g} µs, ±0.5 % | {len(rows)} | {count(rows,'slower')} | "
          f"{count(rows,'faster')} | {count(rows,'same')} | {count(rows,'inconclusive')} | |")
half = verdicts("half_*.json")
print(f"| 200 µs vs 201 µs, ±0.25 % | {len(half)} | {count(half,'slower')} | "
      f"{count(half,'faster')} | {count(half,'same')} | {count(half,'inconclusive')} | |")
for prefix, tag in sets:
    aa, times = read[prefix]
    wider = floored(aa)
    print(f"RESULT ab_cli_aa{('_' + tag) if tag else ''} states={len(aa)} "
          f"slower={count(aa,'slower')} faster={count(aa,'faster')} "
          f"same={count(aa,'same')} same_wider={count(wider,'same')} "
          f"same_at_threshold={count(aa,'same') - count(wider,'same')} "
          f"inconclusive={count(aa,'inconclusive')} "
          f"suite_s={median([t[0] for t in times]):.1f} "
          f"start_wait_s={median([t[5] for t in times]):.1f} "
          f"exit_wait_s={median([t[6] for t in times]):.1f}")
for d in (20, 200):
    rows = [r for r in verdicts("detect_*.json") if r["state_name"] == f"spin/duration_us={d}"]
    print(f"RESULT ab_cli_detect spin_us={d} runs={len(rows)} slower={count(rows,'slower')}")
print(f"RESULT ab_cli_detect spin_us=200 change_pct=0.5 runs={len(half)} "
      f"slower={count(half,'slower')}")
for prefix, tag in sets:
    aa, times = read[prefix]
    name = f"A/A run{' (' + tag + ')' if tag else ''}"
    for wall, med, p90, settled, settled_p90, start_wait, exit_wait in times:
        print(f"{name}: {wall:.1f} s for the suite ({start_wait:.1f} s waiting for starts, "
              f"{exit_wait:.1f} s for exits); a state's trials {med:.2f} s median, {p90:.2f} s "
              f"p90; settled {settled:.1f} s (median), {settled_p90:.1f} s (p90) into it")
    pairs = [r["base_units"] for r in aa]
    if pairs:
        print(f"{name}: process pairs (rounds) per state: median {statistics.median(pairs)}, "
              f"max {max(pairs)}")
    # Each state the reference adjusted (docs/ab.md, "The reference"): how far its rounds spread
    # as measured and as adjusted, per run.
    adjusted = {}
    for r in aa:
        if r.get("unit_sd_adjusted") is not None and r.get("reference_beta") is not None:
            adjusted.setdefault(r["state_name"], []).append(r)
    for state, rows in sorted(adjusted.items()):
        print(f"{name}: adjusted: {state}: " + "; ".join(
            f"{r['verdict']} ±{100 * r['band']:g} % after {r['base_units']}, beta "
            f"{r['reference_beta']:.2f}, sd {100 * r['unit_sd']:.2f} -> "
            f"{100 * r['unit_sd_adjusted']:.2f} %" for r in rows))
    # Each state's spread of rounds over the runs, as measured: what a change of protocol moves.
    spreads = {}
    for r in aa:
        if r.get("unit_sd") is not None:
            spreads.setdefault(r["state_name"], []).append(100 * r["unit_sd"])
    for state, sds in sorted(spreads.items()):
        print(f"{name}: round SD: {state}: " + " ".join(f"{x:.2f}" for x in sds) + " %")
    for r in floored(aa):
        print(f"  {r['verdict']} at ±{100 * r['band']:g} %: {r['state_name']} ratio "
              f"{r['ratio']:.4f} [{r['ratio_low']:.4f}, {r['ratio_high']:.4f}] after "
              f"{r['base_units']} {r['unit']}")
    for r in aa:
        if r["verdict"] in ("slower", "faster", "inconclusive"):
            needed = r.get("units_needed")
            print(f"  {r['verdict']}: {r['state_name']} ratio {r['ratio']:.4f} "
                  f"[{r['ratio_low']:.4f}, {r['ratio_high']:.4f}] after {r['base_units']} "
                  f"{r['unit']}" + (f", ~{needed} would settle it" if needed else ""))
PY
