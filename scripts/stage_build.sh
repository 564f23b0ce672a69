#!/usr/bin/env bash
# Copies what the GPU machine needs from a build folder into .stage/build (ignored by git, small
# enough to travel): stripped executables, CTest files and discovered test lists, CMakeCache.txt.
# Usage: scripts/stage_build.sh [build] [stage-root]   — then carry the stage root (default .stage)
# and .deps to the GPU machine; the staged build lies in STAGE-ROOT/build.
# The consumer tests' build folders (whole projects of their own) stay behind.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
root=${2:-.stage}
case $root in .stage*) ;; *) echo "stage root must be a folder named .stage* at the repository root (ignored by git)" >&2; exit 2 ;; esac
stage=$root/build
rm -rf "$root"
mkdir -p "$stage"
ctest --test-dir "$build" -N >/dev/null  # let gtest discovery cache its lists
(cd "$build" && find . -name CMakeFiles -prune -o -path ./tests/consumer/find_package -prune -o -path ./tests/consumer/add_subdirectory -prune -o -type f \( -name 'CTestTestfile.cmake' -o \
  -name '*_include.cmake' -o -name '*_tests.cmake' -o -name 'CMakeCache.txt' \) -print) |
  while read -r f; do mkdir -p "$stage/$(dirname "$f")" && cp -p "$build/$f" "$stage/$f"; done
# CPU-only programs (the examples, the CPU tests) stay behind too: the carry is limited to
# 64 MiB. ctest there lists a missing test executable as NOT_BUILT, outside the gpu label.
(cd "$build" && find . -name CMakeFiles -prune -o -path ./tests/consumer/find_package -prune -o -path ./tests/consumer/add_subdirectory -prune -o -path ./examples -prune -o -type f -executable ! -name '*.so' ! -name '*.sh' -print) |
  awk '!/^\.\/tests\// || /^\.\/tests\/gpu\// || /_gpu_tests$/' |
  while read -r f; do
    mkdir -p "$stage/$(dirname "$f")"
    cp -p "$build/$f" "$stage/$f"
    strip --strip-unneeded "$stage/$f" 2>/dev/null || true
  done
# Keep the discovered test lists newer than the executables, so ctest there does not rediscover.
find "$stage" -name '*_tests.cmake' -exec touch {} +
# The shared libraries the binaries need and the GPU machine lacks (simdjson), and the headers and
# libraries its Python build needs (simdjson, zlib): into .deps, carried beside the stage.
mkdir -p .deps/include .deps/lib
cp -p /usr/include/simdjson.h /usr/include/zlib.h /usr/include/zconf.h .deps/include/
# libpq's header (the PostgreSQL history store loads libpq itself, when a store names a server).
cp -p /usr/include/postgresql/libpq-fe.h /usr/include/postgresql/postgres_ext.h \
  /usr/include/postgresql/pg_config_ext.h .deps/include/
simdjson=$(readlink -f /usr/lib/x86_64-linux-gnu/libsimdjson.so)
cp -p "$simdjson" ".deps/lib/$(objdump -p "$simdjson" | awk '/SONAME/ {print $2}')"
cp -p "$simdjson" .deps/lib/libsimdjson.so
cp -p /usr/lib/x86_64-linux-gnu/libz.a .deps/lib/
du -sh "$stage"
