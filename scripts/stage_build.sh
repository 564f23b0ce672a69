#!/usr/bin/env bash
# Copies what the GPU machine needs from a build folder into .stage/build (ignored by git, small
# enough to travel): stripped executables, CTest files and discovered test lists, CMakeCache.txt.
# Usage: scripts/stage_build.sh [build] [stage-root]   — then carry the stage root (default .stage)
# and .deps to the GPU machine; the staged build lies in STAGE-ROOT/build.
# STAGE_ONLY='kerntime bench/bench_ab_spin tests/gpu/*': only the executables these patterns
# (relative to the build folder) match; the whole GPU set no longer fits the 64 MiB carry.
# It ends by adding up what would travel and fails when that is over the limit.
# The consumer tests' build folders (whole projects of their own) stay behind.
# STAGE_PACK=1 packs the staged build into STAGE-ROOT/build.tar.xz (the whole GPU set, 70 MiB
# unpacked, is ~6 MiB so: the executables share the statically linked library) and removes the
# folder; scripts/gpu_check.sh STAGE-ROOT/build.tar.xz unpacks it there.
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
    if [[ -n "${STAGE_ONLY:-}" ]]; then
      wanted=false
      read -ra patterns <<<"$STAGE_ONLY" # words, not globs expanded here
      for pattern in "${patterns[@]}"; do
        # shellcheck disable=SC2053 # a glob on purpose
        [[ "${f#./}" == $pattern ]] && wanted=true
      done
      $wanted || continue
    fi
    mkdir -p "$stage/$(dirname "$f")"
    cp -p "$build/$f" "$stage/$f"
    strip --strip-unneeded "$stage/$f" 2>/dev/null || true
  done
# Keep the discovered test lists newer than the executables, so ctest there does not rediscover.
find "$stage" -name '*_tests.cmake' -exec touch {} +
# The shared libraries the binaries need and the GPU machine lacks (simdjson, fmt), and the
# headers and libraries its Python build needs (simdjson, zlib): into .deps, carried beside the
# stage.
mkdir -p .deps/include .deps/lib
cp -p /usr/include/simdjson.h /usr/include/zlib.h /usr/include/zconf.h .deps/include/
# libpq's header (the PostgreSQL history store loads libpq itself, when a store names a server).
cp -p /usr/include/postgresql/libpq-fe.h /usr/include/postgresql/postgres_ext.h \
  /usr/include/postgresql/pg_config_ext.h .deps/include/
# The header-only libraries the Python module's build there needs (docs/python.md): fmt's and
# nlohmann_json's folders whole, and of Boost (162 MiB) only the headers this build included,
# read from ninja's dependency log (~5 MiB: Boost.Math's Student t and what it pulls in).
cp -rp /usr/include/fmt /usr/include/nlohmann .deps/include/
ninja -C "$build" -t deps 2>/dev/null | grep -oE '/usr/include/boost/[^ ]+' | sort -u |
  while read -r header; do
    mkdir -p ".deps/include/$(dirname "${header#/usr/include/}")"
    cp -p "$header" ".deps/include/${header#/usr/include/}"
  done
simdjson=$(readlink -f /usr/lib/x86_64-linux-gnu/libsimdjson.so)
cp -p "$simdjson" ".deps/lib/$(objdump -p "$simdjson" | awk '/SONAME/ {print $2}')"
cp -p "$simdjson" .deps/lib/libsimdjson.so
cp -p /usr/lib/x86_64-linux-gnu/libz.a .deps/lib/
# fmt, compiled once here (Debian's libfmt-dev; CMakeLists.txt): every binary links it.
fmt_library=$(readlink -f /usr/lib/x86_64-linux-gnu/libfmt.so)
cp -p "$fmt_library" ".deps/lib/$(objdump -p "$fmt_library" | awk '/SONAME/ {print $2}')"
# SQLite (the history store): the GPU machine's system Python has it, most likely; carried anyway.
sqlite=$(readlink -f /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 2>/dev/null || true)
[[ -n "$sqlite" && -f "$sqlite" ]] && cp -p "$sqlite" .deps/lib/libsqlite3.so.0
du -sh "$stage"
if [[ -n "${STAGE_PACK:-}" ]]; then
  tar -C "$root" -cf - build | xz -9 -T0 >"$root/build.tar.xz"
  rm -rf "$stage"
  du -sh "$root/build.tar.xz"
fi
# What travels: the tracked tree, the untracked files git does not ignore, the stage and .deps.
tree_kib=$( (git ls-files -z --cached --others --exclude-standard |
  du -ck --files0-from=- 2>/dev/null || true) | tail -1 | cut -f1)
stage_kib=$(du -sk "$root" | cut -f1)
deps_kib=$(du -sk .deps | cut -f1)
total_mib=$(((tree_kib + stage_kib + deps_kib) / 1024))
echo "would travel: ${total_mib} MiB (tree $((tree_kib / 1024)), stage $((stage_kib / 1024)), .deps $((deps_kib / 1024)); the limit is 64)"
if ((total_mib >= 64)); then
  echo "over the 64 MiB carry: stage less, e.g. STAGE_ONLY='kerntime bench/bench_ab_spin tests/gpu/*', or move .deps/include aside when no Python module is built there" >&2
  exit 1
fi
