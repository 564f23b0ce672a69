#!/usr/bin/env bash
# The GPU check of kerntime's timing engine, run on the H200 over a build made elsewhere:
#   OUT=out scripts/gpu_check.sh [build-folder]      (default folder: build)
#   OUT=out scripts/gpu_check.sh .stage/build.tar.xz (a packed stage: STAGE_PACK=1 stage_build.sh)
# It builds nothing (the GPU machine has no gtest, fmt or nlohmann): it runs the GPU tests
# (ctest -L gpu), the accuracy benchmarks and the Nsight Compute comparison, writes
# results.txt, summary.txt and every log (logs.tgz) under $OUT (default ./out) and prints a short
# summary table last. Where the Python module is installed (python3 -m pip install
# --no-build-isolation .), its tests run too.
# It never changes clocks or any other setting of the card: ncu runs with --clock-control none.
# GPU_CHECK_STEPS picks parts (below), for a device session too short for all of them.
set -u -o pipefail

build=${1:-build}
# A packed stage (STAGE_PACK=1 scripts/stage_build.sh): unpacked beside the pack, once.
if [[ -f "$build" && "$build" == *.tar.xz ]]; then
  unpacked=$(dirname "$build")/build
  # Unpacked afresh unless this very pack was unpacked there completely (the stamp is newer).
  if [[ ! -f "$unpacked/.unpacked" || "$build" -nt "$unpacked/.unpacked" ]]; then
    rm -rf "$unpacked"
    if ! { tar -C "$(dirname "$build")" -xJf "$build" 2>/dev/null ||
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
        "$build" "$(dirname "$build")"; }; then
      echo "could not unpack $build" >&2
      exit 2
    fi
    touch "$unpacked/.unpacked"
  fi
  build=$unpacked
fi
build=$(cd "$build" && pwd) || { echo "no build folder $build" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
accuracy="$root/bench/accuracy" # ncu_csv.py, the one Nsight Compute CSV reader
OUT=${OUT:-./out}
mkdir -p "$OUT"
# What comes back from a device machine is at most 8 files: the RESULT lines and the table go to
# $OUT as they come (so a run cut off at the device's limit still returns them), every other log
# to a folder of its own, packed into $OUT/logs.tgz at the end.
final_out=$(cd "$OUT" && pwd)
OUT=$(mktemp -d)
results="$final_out/results.txt" # every RESULT line, then the test counts
rm -f "$final_out/summary.txt" "$final_out/logs.tgz" # an earlier run's are not this one's
bench_log="$OUT/bench.log"       # the benchmarks' full output
: >"$results"
: >"$bench_log"
started=$(date +%s)
# The steps share GPU_CHECK_SECONDS (default 570: a device command may run 600 s); each gets what
# it asks for or what is left, and one with nothing left is skipped, saying so.
deadline=$((started + ${GPU_CHECK_SECONDS:-570}))
within() { # seconds command...: `timeout`, cut to the time left; 125 when none is left
  local want=$1 left=$((deadline - $(date +%s)))
  shift
  ((left < want)) && want=$left
  if ((want < 5)); then
    echo "skipped, no time left of GPU_CHECK_SECONDS: $*" | tee -a "$results" >&2
    return 125
  fi
  timeout "$want" "$@"
}
# After a step: a RESULT line for one that ran out of time (124), crashed or failed, or was
# skipped for time (125); nothing for one that ended well.
note_exit() { # name exit-code
  case $2 in
  0) ;;
  125) echo "RESULT $1 skipped=no_time_left" >>"$results" ;;
  124) echo "RESULT $1 error=timed_out" >>"$results" ;;
  *) echo "RESULT $1 error=exit_$2" >>"$results" ;;
  esac
}
# The GPU tests link cuBLAS dynamically (the toolkit's folders are the fallback to their
# RUNPATH); every binary links simdjson (reading results), which this machine lacks: the copy
# carried in .deps/lib (scripts/stage_build.sh puts it there).
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$root/.deps/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib"

step() { echo "== $* ($(($(date +%s) - started)) s)"; }
# GPU_CHECK_STEPS=tests,session,ab (comma-separated) runs only those parts: tests, bench,
# session, queue, compare, trust, scale, ncu, pip, do_bench, python, preparations, probe,
# worker_start, context_start, ab, single_state.
# Unset: all of them.
wanted() { [[ -z "${GPU_CHECK_STEPS:-}" || ",$GPU_CHECK_STEPS," == *",$1,"* ]]; }

step "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active \
  --format=csv >"$OUT/device.txt" 2>&1 || true
cat "$OUT/device.txt"

# The build folder's CTest files name the absolute path it was configured in. When this machine
# received it at another path, make that path lead here (only if nothing is there).
configured=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [[ -n "$configured" && "$configured" != "$build" && ! -e "$configured" ]]; then
  mkdir -p "$(dirname "$configured")" && ln -s "$build" "$configured" &&
    echo "linked $configured -> $build"
fi

# gtest_discover_tests lists each executable's tests at ctest time through CMake's own module,
# at the path of the CMake that configured the build, which this machine may lack. The lists the
# build machine cached (run `ctest --test-dir build -N` there) are used when newer than the
# executables; copying may have reset their times, so make them newer again.
find "$build" -name '*_tests.cmake' -exec touch {} + 2>/dev/null

if wanted tests; then
step "GPU tests"
ctest_log="$OUT/ctest.log"
within 480 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 60 >"$ctest_log" 2>&1
ctest_status=$?
tail -n 25 "$ctest_log"
# ctest says "N% tests passed, F tests failed out of T", or "100% tests passed out of T".
total=$(sed -n 's/.*tests passed.* out of \([0-9]*\).*/\1/p' "$ctest_log")
failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of .*/\1/p' "$ctest_log")
failed=${failed:-0}
skipped=$(grep -c '(Skipped)' "$ctest_log")
if ((ctest_status == 125 || ctest_status == 124)); then
  total=0 # skipped or cut off for time: not run again test by test
  note_exit gpu_tests "$ctest_status"
elif [[ -z "$total" || "$total" == 0 ]]; then
  # ctest could not list the tests here (e.g. its gtest discovery needs CMake modules this
  # machine lacks): run the test executables directly and count gtest's verdicts.
  echo "ctest found no tests (status $ctest_status); running the gtest executables directly" |
    tee -a "$ctest_log"
  total=0 failed=0 skipped=0
  for test_binary in "$build"/tests/gpu/gpu_*_test; do
    [[ -x "$test_binary" ]] || continue
    log=$(within 120 "$test_binary" 2>&1)
    code=$?
    echo "$log" >>"$ctest_log"
    if ((code == 125)); then
      note_exit gpu_tests 125
      break
    fi
    ran=$(sed -n 's/^\[==========\] \([0-9]*\) tests\{0,1\} from .* ran.*/\1/p' <<<"$log")
    skip=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\},.*/\1/p' <<<"$log")
    fail=$(sed -n 's/^ *\([0-9]*\) FAILED TESTS\{0,1\}.*/\1/p' <<<"$log")
    if [[ -z "$ran" ]]; then # crashed or timed out before gtest's summary
      echo "$(basename "$test_binary"): no gtest summary (crash or timeout)" | tee -a "$ctest_log"
      ran=1 fail=1
    fi
    total=$((total + ran)) skipped=$((skipped + ${skip:-0})) failed=$((failed + ${fail:-0}))
  done
fi
passed=$((total - failed - skipped))
echo "TESTS passed=$passed failed=$failed skipped=$skipped total=$total" >>"$results"
fi

run_bench() { # name timeout [args...]: run one benchmark, keep its RESULT lines
  local name=$1 limit=$2
  shift 2
  step "bench $name"
  local binary="$build/bench/bench_$name"
  if [[ ! -x "$binary" ]]; then
    echo "RESULT $name error=missing_binary" | tee -a "$results"
    return
  fi
  {
    echo "### $name"
    within "$limit" "$binary" "$@" 2>&1
    echo "### $name exit $?"
  } | tee -a "$bench_log" | grep '^RESULT' | tee -a "$results"
  local code
  code=$(sed -n "s/^### $name exit //p" "$bench_log" | tail -1)
  case $code in
  0) ;;
  125) echo "RESULT $name skipped=no_time_left" | tee -a "$results" ;; # within's; not a failure
  *) echo "RESULT $name error=exit_$code" | tee -a "$results" ;;
  esac
}

if wanted bench; then
run_bench host_cost 60
run_bench fixed_cost_parts 60 # what inside the fixed phases costs the time (docs/queue.md)
run_bench launch_cost 120     # host time of a launch by CUPTI activity kinds; records by kind
run_bench perturbation 60
run_bench trial_cv 60
run_bench gemm_kerntime 60
run_bench event_envelope 30
run_bench flush 180 # the L2 flush: candidates, read-back probe, cold ops (docs/flush.md)
fi
# A session (kerntime/session.hpp, docs/queue.md "Inside a session"): what CUPTI kept initialised
# costs the user's kernels (the GPU's own clock), the fixed cost it saves, a --stop-at-ci 0.5
# decision; then the suite with and without --no-session, compared, and 2,000 tiny kernels.
if wanted session; then
run_bench session_cost 120
step "session targets"
within 300 python3 "$root/bench/session/session_targets.py" "$build/kerntime" --out "$OUT/session" \
  --tiny-kernels 16 \
  2>&1 | tee -a "$bench_log" | grep '^RESULT' | tee -a "$results"
note_exit session_targets "${PIPESTATUS[0]}"
fi

if wanted bench; then
# The exact number of calls the engine makes to the work (warmup + discarded + measured).
{
  echo "### calls to the work (protocol_fields test)"
  within 30 "$build/tests/gpu/gpu_protocol_fields_test" \
    --gtest_filter='*trials_repeats_warmup_and_input_sets*' 2>&1
} >>"$bench_log"
calls_line=$(grep -m1 '^calls to the work' "$bench_log")
# shellcheck disable=SC2001 # four capture groups: sed, not ${var//}
[[ -n "$calls_line" ]] && echo "RESULT protocol_calls $(sed 's/^calls to the work: \([0-9]*\) = warmup \([0-9]*\) + measured \([0-9]*\) + \([0-9]*\) discarded/calls=\1 warmup=\2 measured=\3 discarded=\4/' <<<"$calls_line")" | tee -a "$results"
fi

# Deep launch queues (docs/queue.md): 2,000 tiny kernels per trial, once 12.7 s (every trial on
# the blocking kernel's 1 s timeout); the wall time beside the GPU time it measured, flush included.
if wanted queue; then
step "queue"
within 60 "$build/kerntime" run --filter 'tiny_kernel/kernels=1' --repeat 2000 \
  --json "$OUT/queue_tiny.json" >"$OUT/queue_tiny.log" 2>&1
queue_status=$?
((queue_status == 125)) && note_exit queue_tiny_repeat2000 125
((queue_status == 125)) || python3 - "$OUT/queue_tiny.json" <<'PY' | tee -a "$results"
import json, sys
try:
    r = json.load(open(sys.argv[1]))["runs"][0]
    res = r["result"]
except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
    print(f"RESULT queue_tiny_repeat2000 error={type(e).__name__}")
    sys.exit(0)
gpu = sum(s + res["flush_median_ns"] for t in res["trials"] for s in t["span_ns"]) / 1e9
w = res["work"]
print(f"RESULT queue_tiny_repeat2000 wall_s={res['wall_seconds']:.3f} state_s={r['wall_seconds']:.3f} "
      f"gpu_s={gpu:.3f} ratio={res['wall_seconds'] / gpu:.2f} chunk={w['queue_chunk_iterations']} "
      f"depth={w['launch_queue_depth']} stalls={w['queue_stalls']} "
      f"host_gaps={w['host_gap_iterations']}/{w['judged_iterations']}")
PY

fi
# kerntime compare on real runs: A/A false alarms over 4 suite runs, spin kernels of known
# duration for the smallest slowdown it detects (fixed protocol and --stop-at-ci 0.5), and two
# suite runs under --stop-at-ci 0.5 (bench/compare/compare_check.py; docs/compare.md has the
# longer study).
if wanted compare; then
step "compare"
within 300 python3 "$root/bench/compare/compare_check.py" "$build/kerntime" "$OUT/compare" \
  --aa-runs 4 --detect-repeats 1 --stop-runs 2 2>&1 |
  tee -a "$bench_log" | grep '^RESULT' | tee -a "$results"
note_exit compare "${PIPESTATUS[0]}"
fi

# The trust fixes (issue 25): the timer's step read off real spans, a --stop-at-ci target below
# it, the event timer's step, A/A compares with the step in the interval (docs/compare.md).
if wanted trust; then
step "trust"
OUT="$OUT/trust" within 240 "$root/bench/compare/trust_check.sh" "$build" 2>&1 |
  tee -a "$bench_log" | grep '^RESULT' | tee -a "$results"
note_exit trust "${PIPESTATUS[0]}"
fi

# The supervised run: its cost against one process, and (with 2+ GPUs) --devices all against
# one GPU (bench/scale/scale_check.py; docs/scale.md). The fault and hang cases are GPU tests.
if wanted scale; then
step "scale"
within 400 python3 "$root/bench/scale/scale_check.py" "$build/kerntime" "$OUT/scale" 2>&1 |
  tee -a "$bench_log" | grep '^RESULT' | tee -a "$results"
note_exit scale "${PIPESTATUS[0]}"
# ctest keeps every test's output, passing ones too, in LastTest.log: the fault suite's numbers.
grep -h '^RESULT \(fault\|hang\|flush_probe\)' "$build/Testing/Temporary/LastTest.log" 2>/dev/null |
  sort -u | tee -a "$results"
fi

if wanted ncu; then
step "Nsight Compute"
ncu_bin=$(command -v ncu)
for candidate in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
  [[ -z "$ncu_bin" && -x "$candidate" ]] && ncu_bin=$candidate
done
if [[ -z "$ncu_bin" ]]; then
  echo "RESULT gemm_vs_ncu error=ncu_not_found" | tee -a "$results"
else
  within 150 "$ncu_bin" --clock-control none --cache-control all \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second --csv --print-units base --log-file "$OUT/ncu.csv" \
    "$build/bench/bench_gemm_for_ncu" 20 >"$OUT/ncu_app.log" 2>&1
  ncu_status=$?
  echo "ncu exit $ncu_status" >>"$OUT/ncu_app.log"
  tail -n 5 "$OUT/ncu_app.log"
  ((ncu_status == 125)) && note_exit gemm_vs_ncu 125
  ((ncu_status == 125)) ||
  PYTHONPATH="$accuracy" python3 - "$OUT/ncu.csv" "$OUT/ncu_app.log" "$results" <<'PY' | tee -a "$results"
# Nsight Compute's per-kernel gpu__time_duration.sum, summed per GEMM call, median over the
# calls after the warm-up one; compared with kerntime's median of the same GEMM.
import re, statistics, sys
import ncu_csv
ncu_file, app_log, results = sys.argv[1:4]
try:
    text = open(ncu_file, errors="replace").read()
    app = open(app_log, errors="replace").read()
    m = re.search(r"RESULT gemm_for_ncu warmup_calls=(\d+) calls=(\d+)", app)
    warmup, calls = int(m.group(1)), int(m.group(2))
    split = ncu_csv.split_iterations(ncu_csv.read_launches(text), warmup + calls, drop_first=warmup,
                                     drop=lambda launch: "memset" in launch.name.lower())
    ncu_us = statistics.median(split.sums_ns()) / 1e3
    clocks = [hz / 1e6 for hz in ncu_csv.read_metric(text, "sm__cycles_elapsed.avg.per_second")]
    kt = re.search(r"RESULT gemm_kerntime .*?\skernels_median_us=([0-9.e+-]+)", open(results).read())
    kt_us = float(kt.group(1))
    print(f"RESULT gemm_vs_ncu ncu_median_us={ncu_us:.6g} kerntime_median_us={kt_us:.6g} "
          f"kernels_per_call={split.kernels_per_iteration} "
          f"rel_diff_pct={100 * (kt_us - ncu_us) / ncu_us:.4g} "
          f"ncu_sm_clock_mhz={statistics.median(clocks) if clocks else float('nan'):.5g}")
except Exception as e:  # report why, in one word-free-of-spaces token, and go on
    print("RESULT gemm_vs_ncu error=" + re.sub(r"\s+", "_", f"{type(e).__name__}:{e}")[:120])
PY
fi

# Nsight Compute's own fixed cost: a 100 us spin kernel (its duration depends on neither clocks
# nor caches) through the bundled suite; kerntime falls back to events under ncu, which is fine:
# only ncu's number is read here.
if [[ -n "$ncu_bin" ]]; then
  step "Nsight Compute on a 100 us spin"
  within 90 "$ncu_bin" --clock-control none --cache-control all -k regex:spin \
    --metrics gpu__time_duration.sum --csv --print-units base --log-file "$OUT/ncu_spin.csv" \
    "$build/kerntime" run --filter 'spin/duration_us=100' --warmup 1 --trials 1 --repeat 10 \
    --quiet >"$OUT/ncu_spin_app.log" 2>&1
  ncu_status=$?
  ((ncu_status == 125)) && note_exit ncu_spin100 125
  ((ncu_status == 125)) ||
  PYTHONPATH="$accuracy" python3 - "$OUT/ncu_spin.csv" <<'PY' | tee -a "$results"
import statistics, sys
import ncu_csv
try:
    ns = [launch.duration_ns for launch in ncu_csv.read_launches(open(sys.argv[1], errors="replace").read())]
    print(f"RESULT ncu_spin100 ncu_median_us={statistics.median(ns) / 1e3:.6g} kernels={len(ns)}")
except Exception as e:
    print("RESULT ncu_spin100 error=" + type(e).__name__)
PY
fi
fi

# `pip install .` as a PyTorch user runs it on this machine as it is: no .deps (the define
# points KERNTIME_DEPS_INCLUDE nowhere), the build's dependencies from what is installed (offline:
# --no-build-isolation). Its time and what it left out go to the results; the Python steps
# below then test that install.
if wanted pip; then
  step "pip install ."
  pip_started=$(date +%s)
  (cd "$root" && within 400 python3 -m pip install --no-build-isolation --no-deps --no-cache-dir \
    -C cmake.define.KERNTIME_DEPS_INCLUDE=/nonexistent -C build-dir=/tmp/kerntime-pip-build \
    -v .) >"$OUT/pip_install.log" 2>&1
  pip_status=$?
  pip_seconds=$(($(date +%s) - pip_started))
  grep -E '^ *-- kerntime:|Successfully installed|error:|Error' "$OUT/pip_install.log" | head -20
  if ((pip_status == 0)); then
    left_out=$(grep -c '^ *-- kerntime: .*not found' "$OUT/pip_install.log")
    echo "RESULT pip_install seconds=$pip_seconds status=ok left_out=$left_out" >>"$results"
  else
    note_exit pip_install "$pip_status"
  fi
fi

# kerntime.testing.do_bench beside triton.testing.do_bench on four ops (docs/python.md).
if wanted do_bench && python3 -c "import kerntime.testing, triton" 2>/dev/null; then
  step "do_bench side by side"
  within 120 python3 "$root/bench/drop_in/do_bench_side_by_side.py" --json "$OUT/do_bench.json" --results \
    >"$OUT/do_bench.txt" 2>&1
  note_exit do_bench $?
  cat "$OUT/do_bench.txt"
  grep '^RESULT' "$OUT/do_bench.txt" >>"$results"
  cp "$OUT/do_bench.txt" "$final_out/do_bench.txt" 2>/dev/null
fi

# The Python module's tests (GPU ones included) when the module is installed here
# (python3 -m pip install --no-build-isolation . builds it with this machine's Python).
if wanted python; then
if python3 -c "import kerntime._kerntime" 2>/dev/null; then
  step "Python tests"
  (cd "$root" && within 300 python3 -m pytest -q -rs -p no:cacheprovider python/tests) \
    >"$OUT/pytest.log" 2>&1
  pytest_status=$?
  tail -n 6 "$OUT/pytest.log"
  summary=$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$OUT/pytest.log" | tail -1)
  case $pytest_status in
  124 | 125) echo "PYTESTS not finished: $( ((pytest_status == 125)) && echo "skipped, no time left" || echo "timed out") ${summary:+($summary)}" >>"$results" ;;
  *)
    if [[ -z "$summary" ]]; then # killed before pytest's own summary: a crash, never a pass
      where=$(grep -m1 -o 'File \"[^\"]*tests/[^\"]*\", line [0-9]*' "$OUT/pytest.log")
      by_file=""
      if ((pytest_status > 128)); then
        # Each file in its own process, so one crash hides no other test's verdict
        # (pytest_files.log), and the crashing file once more under gdb where there is one.
        # At most 150 s for all of it, so the steps after this one keep their time.
        passed=0 failed=0 crashed="" cut=""
        rerun_end=$(($(date +%s) + 150))
        for file in "$root"/python/tests/test_*.py; do
          left=$((rerun_end - $(date +%s)))
          if ((left < 10)); then
            cut+=" $(basename "$file")"
            continue
          fi
          (cd "$root" && within $((left < 60 ? left : 60)) python3 -m pytest -q -rs --tb=short \
            -p no:cacheprovider "$file") >"$OUT/pytest_file.log" 2>&1
          code=$?
          { echo "== $(basename "$file"): exit $code"; tail -n 40 "$OUT/pytest_file.log"; } >>"$OUT/pytest_files.log"
          if ((code == 125)); then # no time left at all
            cut+=" $(basename "$file")"
            continue
          fi
          line=$(grep -E '^[0-9]+ (passed|failed|skipped|errors?)|^=+ .*(passed|failed|skipped|error)' "$OUT/pytest_file.log" | tail -1)
          p=$(grep -oE '[0-9]+ passed' <<<"$line" | cut -d' ' -f1)
          f=$(grep -oE '[0-9]+ (failed|errors?)' <<<"$line" | awk '{n += $1} END {print n + 0}')
          passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
          if ((code == 124)); then
            cut+=" $(basename "$file")(timed out)"
          elif ((code > 128)) || { ((code != 0)) && [[ -z "$line" ]]; }; then
            crashed+=" $(basename "$file")"
          fi
        done
        by_file="; file by file: $passed passed, $failed failed or in error, crashed (no summary):${crashed:- none}${cut:+; not rerun for time:$cut}"
        crashed_file=$(grep -m1 -oE 'python/tests/test_[a-z0-9_]+\.py' <<<"$where")
        # The crashing file once more, for its frames: under gdb where there is one, else with
        # scripts/crash_frames.sh (a preloaded reporter and addr2line).
        if command -v gdb >/dev/null && [[ -n "$crashed_file" ]]; then
          (cd "$root" && within 120 gdb -q -batch -ex run -ex bt --args python3 -m pytest -q -x \
            -p no:cacheprovider "$crashed_file") >"$OUT/pytest_gdb.txt" 2>&1
        elif [[ -n "$crashed_file" ]]; then
          (cd "$root" && within 120 scripts/crash_frames.sh python3 -m pytest -q -x \
            -p no:faulthandler -p no:cacheprovider "$crashed_file") >"$OUT/pytest_frames.txt" 2>&1
          grep -A12 '^== frames of the crash' "$OUT/pytest_frames.txt"
        fi
      fi
      echo "PYTESTS crashed or did not start: exit $pytest_status, no pytest summary (${where:-see pytest.log})$by_file" >>"$results"
    else
      echo "PYTESTS $(sed -E 's/=//g; s/ in [0-9.]+s.*//; s/^ +//' <<<"$summary")" >>"$results"
    fi
    ;;
  esac
  # torch.topk's host time under CUPTI by activity kinds, without kerntime (docs/queue.md).
  if python3 -c "import torch" 2>/dev/null; then
    step "torch launch cost"
    within 120 python3 "$root/bench/queue/torch_launch_cost.py" 2>&1 | tee -a "$bench_log" |
      grep '^RESULT' | tee -a "$results"
    # torch.topk outside and inside a session (docs/queue.md, "Inside a session").
    step "torch in a session"
    within 120 python3 "$root/bench/session/torch_session.py" 2>&1 | tee -a "$bench_log" |
      grep '^RESULT' | tee -a "$results"
    # kerntime.ab: A/A false decisions and detection of a 1 % change (docs/ab.md).
    step "kerntime.ab"
    within 300 python3 "$root/bench/ab/ab_check.py" --runs 10 --max-blocks 30 2>&1 |
      tee -a "$bench_log" | grep '^RESULT' | tee -a "$results"
  fi
else
  echo "PYTESTS not run: the kerntime module is not installed for python3" >>"$results"
fi
fi

# kerntime ab over two programs (docs/ab.md): A/A over the suite AB_AA_RUNS times (default 2) and
# a 1 % longer spin at ±0.5 % AB_DETECT_RUNS times (default 3); the A/A counts as RESULT lines.
# AB_AA_FLAGS: more flags for the A/A runs (bench/ab/ab_cli_check.sh's AA_FLAGS); AB_AA_FLAGS_ALT:
# a second set, each A/A run followed by one with it; AB_HALF_RUNS: the +0.5 % detection's runs.
# kerntime run with every trial its own preparation (the default) against one preparation for all
# five: the suite's wall time each way, and each state's spread between preparations
# (preparation_spread, docs/ab.md "What moves a preparation").
if wanted preparations; then
  step "run: preparations"
  for mode in 5 1; do
    started_run=$(date +%s.%N)
    within 120 "$build/kerntime" run --preparations "$mode" --json "$OUT/run_prep$mode.json" -q \
      2>"$OUT/run_prep$mode.err"
    code=$?
    wall=$(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$started_run")
    echo "RESULT run_preparations preparations=$mode exit=$code wall_s=$wall" | tee -a "$results"
  done
  python3 - "$OUT/run_prep5.json" <<'PY' | tee -a "$results"
import json, sys
try:
    runs = json.load(open(sys.argv[1]))["runs"]
except Exception as e:  # a run that wrote nothing said so above
    print(f"RESULT preparation_spread error={type(e).__name__}")
    sys.exit(0)
for run in runs:
    r = run.get("result") or {}
    spread = r.get("preparation_spread")
    if spread is not None:
        print(f"RESULT preparation_spread state={run['state_name']} "
              f"latency_us={r['latency_ns'] / 1e3:.4g} preparations={r['preparations']} "
              f"spread_pct={100 * spread:.3g}")
PY
fi

# Where a preparation's offset comes from: the process-bound states prepared again and again in
# a few processes, one thing changed at a time (bench/ab/preparation_probe.py, docs/ab.md).
if wanted probe; then
  step "preparation probe"
  mkdir -p "$OUT/probe"
  within 300 python3 "$root/bench/ab/preparation_probe.py" "$build/bench/bench_preparation_probe" \
    "$OUT/probe" --processes "${PROBE_PROCESSES:-6}" --preparations "${PROBE_PREPARATIONS:-24}" \
    ${PROBE_SETUPS:+--setups "$PROBE_SETUPS"} ${PROBE_VARIANTS:+--variants "$PROBE_VARIANTS"} 2>&1 | tee "$OUT/probe/table.md" |
    grep '^RESULT' | tee -a "$results"
  note_exit preparation_probe "${PIPESTATUS[0]}"
  cp "$OUT/probe/table.md" "$OUT/probe/preparations.jsonl" "$final_out/" 2>/dev/null
fi

# What a worker process costs to start and end, piece by piece (bench/ab/worker_start.py): what
# each round of kerntime ab waits for.
if wanted worker_start; then
  step "worker start"
  within 120 python3 "$root/bench/ab/worker_start.py" "$build/kerntime" 2>&1 |
    tee "$OUT/worker_start.txt" | grep '^RESULT' | tee -a "$results"
  note_exit worker_start "${PIPESTATUS[0]}"
fi

# What a CUDA context costs to make, and what changes that cost (bench/ab/context_start.py): the
# driver API timed inside fresh processes, alone, beside a process that holds the driver or a
# context, with one hardware connection, and made again within one process.
if wanted context_start; then
  step "context start"
  within 120 python3 "$root/bench/ab/context_start.py" 2>&1 |
    tee "$OUT/context_start.txt" | grep '^RESULT' | tee -a "$results"
  note_exit context_start "${PIPESTATUS[0]}"
fi

if wanted ab; then
  step "kerntime ab"
  OUT="$OUT/ab" AA_RUNS=${AB_AA_RUNS:-2} DETECT_RUNS=${AB_DETECT_RUNS:-3} AA_FLAGS=${AB_AA_FLAGS:-} \
    AA_FLAGS_ALT=${AB_AA_FLAGS_ALT:-} HALF_RUNS=${AB_HALF_RUNS:-${AB_DETECT_RUNS:-3}} \
    within 540 "$root/bench/ab/ab_cli_check.sh" "$build" 2>&1 | tee -a "$bench_log" |
    grep '^RESULT' | tee -a "$results"
  note_exit ab_cli "${PIPESTATUS[0]}"
  # The same A/A preparations decided by the trial median and by the clipped mean (docs/ab.md),
  # where the Python module is importable (PYTHONPATH=<its build>/python).
  if [[ -s "$OUT/ab/aa_preparations.json" ]] && python3 -c "import kerntime._kerntime" 2>/dev/null; then
    python3 "$root/bench/ab/replay_statistic.py" "$OUT/ab/aa_preparations.json" 2>&1 |
      tee "$OUT/ab/replay.txt" | grep '^RESULT' | tee -a "$results"
  fi
fi

# `kerntime ab` over one state at a time, chosen blocks against one block a round
# (bench/ab/single_state.sh; SINGLE_STATES, SINGLE_RUNS).
if wanted single_state; then
  step "kerntime ab, one state at a time"
  OUT="$OUT/single" within 480 "$root/bench/ab/single_state.sh" "$build" 2>&1 | tee -a "$bench_log" |
    grep -v '^RESULT' | tail -n 12
  note_exit ab_single "${PIPESTATUS[0]}"
  grep -h '^RESULT' "$OUT/single/single.txt" >>"$results" 2>/dev/null
fi

step "summary"
python3 - "$results" <<'PY' | tee "$final_out/summary.txt"
# One line per number: name, value, target, verdict. Targets are those of issue 2.
import re, sys
lines = open(sys.argv[1]).read().splitlines()
def fields(line):
    return dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)
rows = []
def row(name, value, target=None, ok=None):
    verdict = "info" if ok is None else ("pass" if ok else "FAIL")
    rows.append((name, value, target or "-", verdict))
def handle(line):
    if line.startswith("TESTS"):
        t = dict(kv.split("=") for kv in line.split()[1:])
        print(f"GPU tests: {t['passed']} passed, {t['failed']} failed, {t['skipped']} skipped"
              f" (of {t['total']})")
        return
    if line.startswith("skipped"):
        print(line)
        return
    if line.startswith("PYTESTS"):
        text = line.split(" ", 1)[1] if " " in line else "?"
        print("Python tests:", text)
        if "skipped, no time left" in text:  # for time, as every step: info, not a failure
            row("Python tests", text[:60])
        elif not text.startswith("not run"):  # a crash, a failure or a cut-off run: FAIL
            bad = any(w in text for w in ("crashed", " failed", "error", "not finished"))
            row("Python tests", text[:60], "all pass", not bad)
        return
    if not line.startswith("RESULT "):
        return
    bench, f = line.split()[1], fields(line)
    if "error" in f:
        row(bench, f["error"], None, False)
        return
    if f.get("skipped") == "no_time_left":
        row(bench, "skipped: no time left (GPU_CHECK_SECONDS)")
        return
    num = lambda k: float(f[k])
    if bench == "host_cost":
        row("host_cost.ratio_without_fixed", f["ratio_without_fixed"], "<= 1.5",
            num("ratio_without_fixed") <= 1.5)
        row("host_cost.fixed_ms", f["fixed_ms"], "<= 50", num("fixed_ms") <= 50)
        row("host_cost.ratio (raw wall/gpu)", f["ratio"])
        row("host_cost.first_wall_ms / later", f"{f['first_wall_ms']} / {f['wall_ms']}")
    elif bench == "host_phases" and f["protocol"] == "default":
        row("host_phases default ms: prepare/attach/first/trials/detach/summarise",
            "/".join(f"{num(k + '_ms'):.3g}" for k in
                     ("prepare", "attach", "first_calls", "trials", "detach", "summarise")))
    elif bench == "fixed_cost_part" and f["part"] in ("telemetry_probe_opened_and_closed",
                                                      "telemetry_before_first_trial",
                                                      "blocking_kernel_made_and_freed"):
        row(f"fixed cost ms: {f['part']}", f"{num('ms'):.3g}")
    elif bench == "fixed_cost_cupti" and f["round"] == "2" and f["step"] in (
            "subscribe", "first_launch", "finalize"):
        row(f"fixed cost ms: CUPTI {f['step']}, second attach in the process", f"{num('ms'):.3g}")
    elif bench == "fixed_cost_cupti_kept" and f["round"] == "2" and f["step"] in (
            "subscribe", "first_launch"):
        row(f"fixed cost ms: CUPTI {f['step']}, kept initialised (not kerntime's way)",
            f"{num('ms'):.3g}")
    elif bench == "ab_cli_aa":
        states = num("states")
        if states == 0:
            row("kerntime ab A/A suite", "no state compared (see logs.tgz: ab/aa_*.err)", None,
                False)
            return
        wrong = num("slower") + num("faster")
        row("kerntime ab A/A suite: false slower/faster", f"{wrong:g} of {states:g}",
            "<= 1 %", wrong <= 0.01 * states)
        row("kerntime ab A/A suite: inconclusive", f"{num('inconclusive'):g} of {states:g}",
            "<= 5 %", num("inconclusive") <= 0.05 * states)
        if "same_wider" in f:  # `same` judged at a state's spread floor (docs/ab.md)
            row("kerntime ab A/A suite: same at a wider band than ±1 %",
                f"{num('same_wider'):g} of {states:g}")
        row("kerntime ab A/A suite wall (median s)", f["suite_s"])
    elif bench == "ab_replay":
        row(f"A/A replayed with the {f['statistic']}: false slower/faster; inconclusive",
            f"{num('slower') + num('faster'):g}; {f['inconclusive']} of {f['states']}",
            "<= 1 %; -", num("slower") + num("faster") <= 0.01 * num("states"))
    elif bench == "ab_cli_detect":
        change, band = ("+0.5 %", "±0.25 %") if f.get("change_pct") == "0.5" else ("+1 %", "±0.5 %")
        if num("runs") == 0:
            row(f"kerntime ab: {f['spin_us']} us spin {change}", "not run (bench_ab_spin staged?)")
            return
        row(f"kerntime ab: {f['spin_us']} us spin {change} at {band} called slower",
            f"{f['slower']} of {f['runs']}", ">= 95 %", num("slower") >= 0.95 * num("runs"))
    elif bench == "session_back_to_back":
        row(f"back-to-back empty kernel GPU us / host us per launch ({f['cupti']})",
            f"{num('gpu_us_per_kernel'):.4g} / {num('host_us_per_launch'):.3g}")
    elif bench == "session_lone_kernel":
        row(f"lone 1-warp kernel, one process: median ns / mean ns ({f['cupti']})",
            f"{num('median_of_medians_ns'):.0f} / {num('median_of_means_ns'):.1f}")
    elif bench == "session_back_to_back_check":
        row("GPU time per kernel unchanged with CUPTI kept / after finalize; probe sees CUPTI",
            f"{f['kept_within']} / {f['after_finalize_within']}; {f['probe_sees_attached_cupti']}",
            "yes / yes", f["kept_within"] == "yes" and f["after_finalize_within"] == "yes")
    elif bench == "session_fixed_cost":
        row(f"fixed cost of a 10 us spin measurement, median ms ({f['where']})",
            f"{num('median_ms'):.3g}", "<= 4" if f["where"] == "in_session" else None,
            num("median_ms") <= 4 if f["where"] == "in_session" else None)
    elif bench == "session_stop_at_ci":
        row("--stop-at-ci 0.5 on a 20 us spin in a session: median wall ms",
            f"{num('median_wall_ms'):.3g}", "<= 40", num("median_wall_ms") <= 40)
    elif bench == "session_suite":
        target = f["mode"] == "session"
        row(f"suite run {f['run']} ({f['mode']}): command wall s; median / first fixed ms",
            f"{num('command_wall_s'):.3g}; {num('median_fixed_ms'):.3g} / {num('first_fixed_ms'):.3g}",
            "<= 1.0; <= 4 / <= 20" if target else None,
            (num("command_wall_s") <= 1.0 and num("median_fixed_ms") <= 4
             and num("first_fixed_ms") <= 20) if target else None)
    elif bench == "session_vs_no_session":
        verdicts = {k: v for k, v in f.items() if k not in ("run", "changed")}
        row(f"suite with vs without the session, run {f['run']}: verdicts",
            ",".join(f"{k}:{v}" for k, v in sorted(verdicts.items())), "no slower/faster",
            "slower" not in verdicts and "faster" not in verdicts)
    elif bench == "session_one_state":
        row(f"one state alone ({f['mode']}, run {f['run']}): command wall s / state ms / worker start s",
            f"{f['command_wall_s']} / {f['state_ms']} / {f['worker_start_s']}")
    elif bench == "session_tiny_repeat2000":
        row(f"tiny_kernel/kernels={f['kernels']} --repeat 2000: wall / GPU", f["ratio"], "<= 1.5",
            num("ratio") <= 1.5)
    elif bench == "session_torch_topk" and f["where"] == "session" and f["call"] == "2":
        row(f"torch.topk ({f['launch']}), second call in a session: wall / GPU", f["ratio"],
            "<= 1.5", num("ratio") <= 1.5)
    elif bench == "launch_after_detach":
        row(f"empty launch host us / GPU us ({f['when']})",
            f"{num('host_us_per_launch'):.3g} / {num('gpu_us_per_kernel'):.3g}")
    elif bench == "launch_cost" and f["round"] == "2" and f["kinds"] in (
            "none", "kerntime_kinds_tags", "tags_without_api_kinds"):
        row(f"launch us ({f['kinds']}); tags delivered", f"{num('launch_us'):.3g}; "
            f"{f['external_correlation_records']}")
    elif bench == "launch_cost" and f["round"] == "2" and f["kinds"] in (
            "callback_tags", "kerntime_kinds_tags_5_runtime_calls", "callback_tags_5_runtime_calls"):
        row(f"launch us ({f['kinds']}); kernels left untagged", f"{num('launch_us'):.3g}; "
            f"{f['kernels_without_callback_tag']}")
    elif bench == "torch_launch_cost" and f["round"] == "2":
        row(f"torch.topk host us ({f['kinds']})", f["topk_host_us"])
    elif bench == "perturbation":
        k = f["kernel"]
        row(f"perturbation.{k} events/batched/kerntime/after us",
            f"{float(f['events_us']):.3g}/{float(f['events_batched_us']):.3g}/"
            f"{float(f['kerntime_us']):.3g}/{float(f['events_batched_after_us']):.3g}")
    elif bench == "trial_cv":
        row(f"trial_cv.{f['work']}.cv_of_means_pct", f["cv_of_means_pct"], "<= 0.5",
            num("cv_of_means_pct") <= 0.5)
    elif bench == "gemm_kerntime":
        row("gemm_kerntime.median_us", f["median_us"])
    elif bench == "gemm_vs_ncu":
        row("gemm_vs_ncu.ncu_median_us", f["ncu_median_us"])
        row("gemm_vs_ncu.rel_diff_pct", f["rel_diff_pct"], "|x| <= 1",
            abs(num("rel_diff_pct")) <= 1)
        row("gemm_vs_ncu.ncu_sm_clock_mhz", f.get("ncu_sm_clock_mhz", "?"))
    elif bench == "ncu_spin100":
        row("ncu on a 100 us spin (us)", f["ncu_median_us"])
    elif bench == "event_envelope":
        row("event_envelope memset/settled/kernel/none us",
            "/".join(f"{float(f[k]):.3g}" for k in ("memset_us", "settled_us", "kernel_us", "none_us")))
    elif bench == "compare_aa":
        row(f"compare A/A {f['rule']} ({f['metric']}): slower (+ by clock), {f['pairs']} pairs",
            f"{f['slower']} (+{f.get('slower_clock', '0')}) of {f['states']}", "0",
            f["slower"] == "0" and f["gate_failures"] == "0")
    elif bench == "compare_spin":
        row(f"compare spin {f['rule']} {f['threshold']} {f['base_us']} -> {f['new_us']} us",
            f"{f['verdict']} {f['ratio']} ({f['detected']})")
    elif bench == "timer_step_cupti":
        row("timer step, CUPTI (ns): min-max over the suite", f"{f['min']}-{f['max']}", "~32",
            f["zero"] == "0" and 30 <= float(f["min"]) and float(f["max"]) <= 34)
    elif bench == "timer_step_events":
        row(f"timer step, CUDA events (ns): {f['state']}", f["step"])
    elif bench == "stop_below_step":
        row("--stop-at-ci 0.5 on a 1 us spin: reason, trials", f"{f['reason']}, {f['trials']}",
            "timer_resolution", f["reason"] == "timer_resolution")
    elif bench == "aa_compare":
        row(f"A/A compare of two suite runs {f['pair']}: regression", f["regression"], "False",
            f["regression"] == "False")
    elif bench == "ab_aa":
        row(f"kerntime.ab A/A {f['op']}: false, same, inconclusive of {f['runs']}",
            f"{f['false']}, {f['same']}, {f['inconclusive']}", "0 false", f["false"] == "0")
    elif bench == "ab_detect":
        row(f"kerntime.ab {f['base_us']} us +{f['change_pct']} % at ±{f['band_pct']} %: slower",
            f"{f['slower']} in {f['blocks_median']} blocks")
    elif bench == "stop_at_ci_summary":
        row("stop_at_ci 0.5: states that reached it", f"{f['reached']} of {f['states']}")
    elif bench == "scale_overhead":
        row("supervised vs in-process suite wall (s)", f"{f['supervised_s']} vs {f['in_process_s']}")
        row("supervisor overhead (s, %)", f"{f['overhead_s']} ({f['overhead_pct']} %)")
        row("worker start (s)", f["worker_start_s"])
    elif bench == "scale_devices":
        if "skipped" in f:
            row("--devices all", f"skipped ({f['skipped']})")
        else:
            row(f"--devices all on {f['gpus']} GPUs / one GPU wall", f["ratio"], "<= 0.6",
                num("ratio") <= 0.6)
            row("--devices all: states outside noise", f"{f['states_outside_noise']} of {f['states']}",
                "0", f["states_outside_noise"] == "0")
            row("--devices all: GPU UUIDs in results", f["uuids"])
    elif bench == "fault_suite":
        row("fault suite: failed states, third state", f"{f['failed']}, {f['third']}", "1, ok",
            f["failed"] == "1" and f["third"] == "ok")
        row("fault suite: workers, start time all (s)", f"{f['workers']}, {f['start_s_all']}")
    elif bench == "fault_no_isolation":
        row("fault suite --no-isolation: failed, third", f"{f['failed']}, {f['third']}")
    elif bench == "hang_suite":
        row("never-ending kernel, next state", f"{f['spins_forever']}, {f['fine_after']}",
            "timed_out, ok", f["spins_forever"] == "timed_out" and f["fine_after"] == "ok")
        row("hang suite wall (s) at timeout", f"{f['wall_s']} at {f['timeout_s']}")
    elif bench == "flush":
        row("flush us/iteration: now vs before", f"{num('new_flush_us'):.3g} vs {num('old_flush_us'):.3g}",
            "<= 35", num("new_flush_us") <= 35)
        row("read-back TB/s after flush (dirty) / DRAM / hot",
            f"{num('probe_new_tbps'):.3g} ({num('probe_dirty_new_tbps'):.3g}) / "
            f"{num('probe_dram_tbps'):.3g} / {num('probe_hot_tbps'):.3g}",
            "DRAM +-3%", all(abs(num(k) / num("probe_dram_tbps") - 1) <= 0.03
                             for k in ("probe_new_tbps", "probe_dirty_new_tbps")))
    elif bench == "flush_probe":
        row("gpu_flush_test read-back us: after flush / DRAM / hot",
            f"{num('read_after_flush_us'):.3g} / {num('read_dram_us'):.3g} / {num('read_hot_us'):.3g}")
    elif bench == "flush_op":
        row(f"flush {f['case']} us: hot / before / now (noise)",
            f"{num('hot_us'):.3g} / {num('old_us'):.3g} / {num('new_us'):.3g} ({num('noise_us'):.2g})")
    elif bench == "flush_small_state":
        row("empty state GPU us/iter, wall ms: before / now",
            f"{num('old_gpu_us'):.3g}, {num('old_wall_ms'):.3g} / {num('new_gpu_us'):.3g}, {num('new_wall_ms'):.3g}")
    elif bench == "queue_tiny_repeat2000":
        row("queue: 2,000 tiny kernels, wall / GPU", f"{f['ratio']} ({f['wall_s']} / {f['gpu_s']} s)",
            "<= 1.5", num("ratio") <= 1.5)
    elif bench == "pip_install":
        row("pip install . (no .deps): seconds, parts left out", f"{f['seconds']}, {f['left_out']}",
            "ok", f["status"] == "ok")
    elif bench == "do_bench":
        row(f"do_bench {f['op']}: ms triton / kerntime", f"{f['triton_ms']} / {f['kerntime_ms']}")
        row(f"do_bench {f['op']}: spread % triton / kerntime",
            f"{f['triton_spread_pct']} / {f['kerntime_spread_pct']}", "kt <= tr",
            num("kerntime_spread_pct") <= num("triton_spread_pct"))
        row(f"do_bench {f['op']}: wall ratio kerntime/triton", f["wall_ratio"], "<= 0.125",
            num("wall_ratio") <= 0.125)
    elif bench == "worker_start" and "median_ms" in f:
        row(f"process: {f['piece']} (ms, median)", f"{f['median_ms']} ({f['min_ms']}-{f['max_ms']})")
    elif bench == "context_start" and "context_ms" in f:
        row(f"context start {f['setup']}: cuInit / context / release / process ms",
            f"{f['init_ms']} / {f['context_ms']} / {f['release_ms']} / {f['wall_ms']}")
    elif bench == "protocol_calls":
        row("protocol.calls (warmup+discard+measured)",
            f"{f['calls']}={f['warmup']}+{f['discarded']}+{f['measured']}")
for line in lines:
    try:
        handle(line)
    except (KeyError, ValueError, IndexError) as e:  # one bad line is one FAIL row
        row(line.split()[1] if len(line.split()) > 1 else line, f"unreadable: {type(e).__name__} {e}", None, False)
width = max([len(r[0]) for r in rows] + [4])
print(f"{'name':<{width}}  {'value':>22}  {'target':>10}  result")
for name, value, target, verdict in rows:
    print(f"{name:<{width}}  {value:>22}  {target:>10}  {verdict}")
PY
tar czf "$final_out/logs.tgz" -C "$OUT" . 2>/dev/null
echo "logs in $final_out/logs.tgz; total $(($(date +%s) - started)) s"
