#!/usr/bin/env bash
# Set up, build everything, and run every test: CPU tests everywhere, GPU tests where there is a
# GPU (elsewhere ctest lists them as skipped), then the Python tests, then a bounded fuzz run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --build build
ctest --preset default
# The Python module's tests, and the accuracy study's parsers and report (bench/accuracy).
PYTHONPATH="$PWD/build/python" /usr/bin/python3 -m pytest -q -rs python/tests bench/accuracy/tests
# The fuzz targets in their own clang build, a bounded run each (docs/fuzzing.md).
scripts/fuzz.sh
