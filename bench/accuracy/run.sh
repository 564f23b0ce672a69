#!/usr/bin/env bash
# kerntime's accuracy study, on a GPU machine over a build made elsewhere:
#   OUT=out bench/accuracy/run.sh [build-folder]       (default folder: build)
# Measures the bundled suite's spin, copy, GEMM and CUB cases with kerntime (CUPTI and its forced
# event fallback) and Nsight Compute, PyTorch ops through kerntime.bench, a CUDA-event loop and
# triton.testing.do_bench, then writes $OUT/accuracy.md, $OUT/accuracy.json, $OUT/run.log and
# $OUT/raw.tar.gz (every raw output) and prints the summary table last. Builds nothing; every
# step has a time limit and the whole study stays within about 6.5 minutes. It never changes
# clocks or any setting of the card: Nsight Compute runs with --clock-control none.
# docs/accuracy.md describes the method.
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "no build folder ${1:-build}" >&2; exit 2; }
[[ -x "$build/kerntime" ]] || { echo "$build/kerntime is missing: build the CLI first" >&2; exit 2; }
OUT=${OUT:-./out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
python=${KT_ACCURACY_PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/kerntime-accuracy.XXXXXX")
# The binaries link cuBLAS dynamically; the toolkit's folders are the fallback to their RUNPATH.
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64:/usr/local/cuda/lib"
export PYTHONDONTWRITEBYTECODE=1

timeout 400 "$python" "$here/study.py" "$build" "$work" --budget "${KT_ACCURACY_BUDGET:-380}" \
  2>&1 | tee "$work/study.log"

# run.log: the study's progress, then every step's log (each cut to its last 200 lines).
{
  cat "$work/study.log"
  for log in "$work"/logs/*.log; do
    [[ -e "$log" ]] || continue
    echo "===== $(basename "$log")"
    tail -n 200 "$log"
  done
} >"$OUT/run.log"
tar -C "$work" -czf "$OUT/raw.tar.gz" . 2>/dev/null || echo "could not archive $work" >&2

timeout 60 "$python" "$here/report.py" "$work" "$OUT"
status=$?
rm -rf "$work"
exit $status
