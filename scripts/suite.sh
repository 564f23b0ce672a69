#!/usr/bin/env bash
# The main job: set up, build, and run the bundled suite. Extra arguments go to `kerntime run`
# (e.g. scripts/suite.sh --filter gemm --json out.json). Exits non-zero without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --build build --target kerntime
exec build/kerntime run "$@"
