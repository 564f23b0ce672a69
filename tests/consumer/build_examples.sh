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

# A project whose project() forgets CUDA is warned while configuring, with the line to write.
if [[ "$mode" == find_package ]]; then
  mkdir -p "$work/no_cuda"
  printf 'cmake_minimum_required(VERSION 3.24)\nproject(no_cuda LANGUAGES CXX)\nfind_package(kerntime CONFIG REQUIRED)\n' \
    >"$work/no_cuda/CMakeLists.txt"
  configured=$("$cmake" -S "$work/no_cuda" -B "$work/no_cuda/build" "${configure_args[@]}" 2>&1)
  if ! grep -q 'project(my_benchmarks LANGUAGES CXX CUDA)' <<<"$configured"; then
    echo "build_examples.sh: configuring a project without CUDA gave no warning:" >&2
    echo "$configured" >&2
    exit 1
  fi
fi
