#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) in build-fuzz with clang++ and sanitizers, then runs
# each from a copy of its seed corpus (the repository's corpus is never written) for a bounded
# number of executions, at most two minutes each. Fails on a crash, a sanitizer report, a leak, a
# timeout or running out of memory; the input that did it is kept under build-fuzz/findings/.
# The seed is fixed (-seed=1), so a bounded run is the same on every machine and a CI result does
# not depend on a random draw; pass -seed=0 (a random seed) or another seed to explore.
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
for target in fuzz_command_line fuzz_axis_spec fuzz_result_set; do
  mkdir -p "$work/$target" "$work/tmp"
  cp tests/fuzz/corpus/$target/* "$work/$target/"
  dictionary=()
  if [[ -f tests/fuzz/$target.dict ]]; then
    dictionary=(-dict="tests/fuzz/$target.dict")
  fi
  start=$SECONDS
  # TMPDIR: the command-line target works in a folder of its own there; nothing is left behind.
  if ! TMPDIR="$work/tmp" "build-fuzz/tests/fuzz/$target" -runs="$runs" -timeout=10 \
      -rss_limit_mb=2048 -max_total_time=120 -seed=1 -print_final_stats=1 "${dictionary[@]}" \
      -artifact_prefix="$findings/$target-" "$@" "$work/$target" >"$work/$target.log" 2>&1; then
    tail -n 60 "$work/$target.log" >&2
    echo "kerntime: $target failed; the input is under $findings/ (run it: build-fuzz/tests/fuzz/$target FILE)" >&2
    exit 1
  fi
  executed=$(grep -Eo 'number_of_executed_units: [0-9]+' "$work/$target.log" | grep -Eo '[0-9]+$')
  coverage=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$work/$target.log" | tail -n 1)
  echo "kerntime: $target: $executed executions, no finding ($coverage, $((SECONDS - start)) s)"
done
