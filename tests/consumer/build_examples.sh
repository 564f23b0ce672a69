#!/usr/bin/env bash
# Builds examples/ as a user's own project would, then runs its `list` (no GPU needed) and checks
# that the saxpy benchmark is there.
#   build_examples.sh find_package KERNTIME_BUILD WORK   install KERNTIME_BUILD into WORK/prefix,
#                                                        then find_package(kerntime) from there
#   build_examples.sh add_subdirectory KERNTIME_SOURCE WORK   add_subdirectory(KERNTIME_SOURCE)
# The generator, nvcc and CUDA architectures come from the environment (CMAKE_GENERATOR,
# CUDACXX, CUDAARCHS), as tests/consumer/CMakeLists.txt passes them.
set -euo pipefail
mode=$1 kerntime=$2 work=$3
examples="$(cd "$(dirname "$0")/../../examples" && pwd)"
cmake=${CMAKE_COMMAND:-cmake}

case "$mode" in
  find_package)
    # A fresh prefix and project each time: nothing left from an earlier install may help.
    rm -rf "$work"
    "$cmake" --install "$kerntime" --prefix "$work/prefix" >/dev/null
    configure_args=(-DCMAKE_PREFIX_PATH="$work/prefix")
    ;;
  add_subdirectory)
    # Kept between runs: the library is rebuilt only where the sources changed.
    configure_args=(-DKERNTIME_SOURCE_DIR="$kerntime")
    ;;
  *)
    echo "build_examples.sh: unknown mode '$mode' (find_package or add_subdirectory)" >&2
    exit 2
    ;;
esac

"$cmake" -S "$examples" -B "$work/build" -DCMAKE_BUILD_TYPE=Release "${configure_args[@]}"
"$cmake" --build "$work/build" --target kerntime_example_saxpy

listing=$("$work/build/kerntime_example_saxpy" list)
echo "$listing"
if ! grep -q '^saxpy_benchmark$' <<<"$listing"; then
  echo "build_examples.sh: 'list' did not name the saxpy benchmark" >&2
  exit 1
fi
