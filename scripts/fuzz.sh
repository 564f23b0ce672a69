#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) in build-fuzz with clang++ and sanitizers, then runs
# each from a copy of its seed corpus (the repository's corpus is never written) for a bounded
# number of executions, at most two minutes each. Fails on a crash, a sanitizer report, a leak, a
# timeout or running out of memory; the input that did it is kept under build-fuzz/findings/.
# The seeds are fixed (-seed=1 and -seed=2 for the two processes each target's executions are
# split over), so a bounded run is the same on every machine and a CI result does not depend on a
# random draw; pass -seed=0 (a random seed) to explore.
# Called by scripts/test.sh; docs/fuzzing.md has the long run.
#   scripts/fuzz.sh [EXECUTIONS] [LIBFUZZER FLAGS...]   (default 20000 executions per target)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20000}
shift || true

nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
# ccache (scripts/setup.sh installs it): a second run on the same machine compiles nothing again.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
# -O1: what libFuzzer recommends, fast to build and still quick to run.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${launcher[@]}" \
  -DKERNTIME_FUZZ=ON -DKERNTIME_BUILD_TESTS=OFF -DKERNTIME_BUILD_BENCHMARKS=OFF \
  -DKERNTIME_BUILD_PYTHON=OFF >/dev/null
cmake --build build-fuzz --target kerntime_fuzzers

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
findings=build-fuzz/findings
mkdir -p "$findings"
# Each target's executions are split over FUZZ_JOBS processes side by side (default 2, the CI
# machine's cores; fixed rather than nproc, so a bounded run is the same on every machine): part
# k starts from its own copy of the seed corpus with -seed=k, so each part is reproducible alone.
jobs=${FUZZ_JOBS:-2}
for target in fuzz_command_line fuzz_axis_spec fuzz_result_set; do
  dictionary=()
  if [[ -f tests/fuzz/$target.dict ]]; then
    dictionary=(-dict="tests/fuzz/$target.dict")
  fi
  start=$SECONDS
  pids=()
  for ((part = 1; part <= jobs; part++)); do
    mkdir -p "$work/$target.$part" "$work/tmp.$part"
    cp tests/fuzz/corpus/$target/* "$work/$target.$part/"
    # TMPDIR: the command-line target works in a folder of its own there; nothing is left behind.
    TMPDIR="$work/tmp.$part" "build-fuzz/tests/fuzz/$target" \
      -runs=$(((runs + jobs - part) / jobs)) -timeout=10 -rss_limit_mb=2048 \
      -max_total_time=120 -seed="$part" -print_final_stats=1 "${dictionary[@]}" \
      -artifact_prefix="$findings/$target-" "$@" "$work/$target.$part" \
      >"$work/$target.$part.log" 2>&1 &
    pids+=($!)
  done
  executed=0
  coverage=""
  for ((part = 1; part <= jobs; part++)); do
    log="$work/$target.$part.log"
    if ! wait "${pids[part - 1]}"; then
      tail -n 60 "$log" >&2
      kill "${pids[@]}" 2>/dev/null || true # the other seeds' processes end with this run
      echo "kerntime: $target (seed $part) failed; the input is under $findings/ (run it:" \
        "build-fuzz/tests/fuzz/$target FILE)" >&2
      exit 1
    fi
    executed=$((executed + $(grep -Eo 'number_of_executed_units: [0-9]+' "$log" | grep -Eo '[0-9]+$')))
    coverage+="${coverage:+; }$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)"
  done
  echo "kerntime: $target: $executed executions over $jobs seeds, no finding ($coverage," \
    "$((SECONDS - start)) s)"
done
