#!/usr/bin/env bash
# Installs what building and testing kerntime needs on a fresh Debian/Ubuntu machine, then
# configures the build folder. Called by scripts/suite.sh and scripts/test.sh; safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

# The libraries' development packages are those of cmake/packages.cmake (the one list;
# python/tests/test_build_packages.py checks that this one holds them all).
packages=(cmake ninja-build g++ libfmt-dev nlohmann-json3-dev libcli11-dev libgtest-dev
  libbenchmark-dev libboost-dev libre2-dev pybind11-dev python3-dev python3-pytest python3-jsonschema
  libxml2-utils python3-pytest-xdist
  libsimdjson-dev zlib1g-dev # reading results, .json.gz
  libsqlite3-dev libpq-dev postgresql # the results history (src/history; a PostgreSQL server in tests)
  ccache # compiles cached between builds and runs on this machine (README: CI times)
  chromium # the HTML report's browser test (tests/report/check_html_report.py)
  clang libclang-rt-14-dev # clang, libFuzzer and the sanitizers: scripts/fuzz.sh
  slurmctld slurmd slurm-client munge) # a one-node Slurm for the examples/slurm test (tests/slurm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "kerntime: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if [[ ! -x "$nvcc" ]]; then
  echo "kerntime: the CUDA toolkit (nvcc) was not found at $nvcc; install CUDA 13 or set CUDACXX" >&2
  exit 1
fi

cmake --preset default -DCMAKE_CUDA_COMPILER="$nvcc" -DKERNTIME_BUILD_PYTHON=ON \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache \
  -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
