#!/usr/bin/env bash
# The GPU machine's pytest crash in render_report("json") (docs/python.md): builds the Python
# module (as committed, and with PROBE_OLD=1, the default, once more without its export limit, python/exports.map) and
# runs the test files that crashed under scripts/crash_frames.sh with each, and once with simdjson
# held to its haswell kernel. Run from the repository root on the GPU machine with $OUT set.
export LD_LIBRARY_PATH=$PWD/.deps/lib:/usr/local/cuda/lib64
which gdb addr2line cc; python3 -c "import sys,pybind11;print(sys.version.split()[0],pybind11.__version__)"
python3 -m pip list 2>/dev/null | grep -i -E "^(pytest|torch|triton|numpy) " | tr '\n' ' '; echo
build() {
  { cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKERNTIME_BUILD_PYTHON=ON \
      -DKERNTIME_BUILD_CLI=OFF -DKERNTIME_BUILD_TESTS=OFF -DKERNTIME_BUILD_BENCHMARKS=OFF \
      -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" && cmake --build "$1" --target _kerntime -j 16; } \
    >"$OUT/$1.log" 2>&1
  echo "$1: build exit $? ($SECONDS s)"
}
probe() { # build-folder [tag]: the tag names the log when one build is probed twice
  local log="$OUT/probe_$1${2:+_$2}.txt"
  PYTHONPATH=$PWD/$1/python timeout 100 scripts/crash_frames.sh python3 -m pytest -q \
    -p no:faulthandler -p no:cacheprovider python/tests/test_pytest_xdist.py \
    python/tests/test_speed_of_light.py python/tests/test_module_exports.py >"$log" 2>&1
  echo "$1${2:+ ($2)}: probe exit $? ($SECONDS s): $(grep -E ' passed| failed' "$log" | tail -1)"
  grep -A24 '^== frames' "$log" | cut -c1-260
}
build build-py
probe build-py
[[ "${PROBE_HASWELL:-1}" == 1 ]] && SIMDJSON_FORCE_IMPLEMENTATION=haswell probe build-py simdjson_haswell
if [[ "${PROBE_OLD:-1}" == 1 ]]; then
  cp python/CMakeLists.txt /tmp/CMakeLists.keep
  sed -i '/exports.map/d' python/CMakeLists.txt # the module as it was before its exports were limited
  build build-pyold
  cp /tmp/CMakeLists.keep python/CMakeLists.txt
  probe build-pyold
fi
