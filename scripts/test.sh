#!/usr/bin/env bash
# Set up, build everything, and run every test: CPU tests everywhere, GPU tests where there is a
# GPU (elsewhere ctest lists them as skipped), the Python tests beside them, then a bounded fuzz
# run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --build build
# The Python module's tests, and the accuracy study's parsers and report (bench/accuracy), run
# beside ctest: they keep one core busy while ctest's serial tests (the consumer builds, Slurm,
# the browser) leave one free. Their output, skips named (-rs), follows ctest's.
python_log=$(mktemp)
PYTHONPATH="$PWD/build/python" /usr/bin/python3 -m pytest -q -rs python/tests bench/accuracy/tests \
  >"$python_log" 2>&1 &
python_tests=$!
trap 'kill "$python_tests" 2>/dev/null || true; rm -f "$python_log"' EXIT
ctest_status=0
ctest --preset default || ctest_status=$?
python_status=0
wait "$python_tests" || python_status=$?
trap 'rm -f "$python_log"' EXIT # reaped: its number may be another process's now
echo "== the Python tests (pytest)"
cat "$python_log"
if ((ctest_status != 0 || python_status != 0)); then
  echo "kerntime: tests failed (ctest exit $ctest_status, pytest exit $python_status)" >&2
  exit 1
fi
# The fuzz targets in their own clang build, a bounded run each (docs/fuzzing.md).
scripts/fuzz.sh
