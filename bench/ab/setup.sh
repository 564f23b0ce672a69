# shellcheck shell=bash disable=SC2034 # sourced: build, kerntime and OUT are for the caller
# Sourced by the kerntime ab benchmarks: the build folder (their first argument, default build)
# as $build, the kerntime program in it as $kerntime, and $OUT (default ./out) made and absolute.
set -u -o pipefail
build=$(cd "${1:-build}" && pwd) || { echo "no build folder ${1:-build}" >&2; exit 2; }
OUT=${OUT:-./out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
kerntime="$build/kerntime"
# simdjson (and SQLite) as scripts/stage_build.sh carries them in .deps/lib, then the toolkit's.
deps="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.deps/lib"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$deps:/usr/local/cuda/lib64"
