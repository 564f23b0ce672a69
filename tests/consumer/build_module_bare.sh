#!/usr/bin/env bash
# The Python module built as `pip install .` builds it on a PyTorch-on-CUDA machine: a compiler,
# CUDA, Python and pybind11, and none of kerntime's -dev packages. Each of those packages is
# hidden from CMake (CMAKE_DISABLE_FIND_PACKAGE_<name>, an empty KERNTIME_DEPS_INCLUDE), and a
# stand-in `torch` package carries fmt and nlohmann_json in its include/ folder as PyTorch's wheel
# does (the headers are Debian's, copied there), found through the build's Python as pip's build
# finds it. The module is configured with pyproject.toml's settings, built, imported in a fresh
# venv, and must say what it left out and why: no GPU -> DeviceUnavailable's message; no compare
# and no .gz -> the packages that bring them.
#   build_module_bare.sh KERNTIME_SOURCE WORK
set -euo pipefail
source=$1 work=$2
cmake=${CMAKE_COMMAND:-cmake}
python=${PYTHON:-/usr/bin/python3}

mkdir -p "$work/packages/torch/include" "$work/empty_deps"
: >"$work/packages/torch/__init__.py"
rm -rf "$work/packages/torch/include/fmt" "$work/packages/torch/include/nlohmann"
cp -r /usr/include/fmt /usr/include/nlohmann "$work/packages/torch/include/"

# pyproject.toml's [tool.scikit-build.cmake.define] and build type, read from the file itself.
mapfile -t defines < <("$python" - "$source/pyproject.toml" <<'PY'
import sys, tomllib
config = tomllib.load(open(sys.argv[1], "rb"))["tool"]["scikit-build"]
for name, value in config["cmake"]["define"].items():
    print(f"-D{name}={value}")
print(f"-DCMAKE_BUILD_TYPE={config['cmake']['build-type']}")
print("--target=" + ";".join(config["build"]["targets"]))
PY
)
target=${defines[-1]#--target=}
unset 'defines[-1]'
hidden=()
for package in fmt nlohmann_json CLI11 Boost simdjson ZLIB SQLite3; do
  hidden+=("-DCMAKE_DISABLE_FIND_PACKAGE_$package=ON")
done
# Kept between runs: compiles are redone only where the sources changed (and cached by ccache).
PYTHONPATH="$work/packages" "$cmake" -S "$source" -B "$work/build" "${defines[@]}" "${hidden[@]}" \
  -DKERNTIME_DEPS_INCLUDE="$work/empty_deps" -DPython3_EXECUTABLE="$python" | tee "$work/configure.log"
grep -q "kerntime: fmt from $work/packages/torch/include" "$work/configure.log"
grep -q "kerntime: nlohmann from $work/packages/torch/include" "$work/configure.log"
grep -q "built without the kerntime command" "$work/configure.log"
grep -q "built without reading result files" "$work/configure.log"
"$cmake" --build "$work/build" --target "$target"

rm -rf "$work/venv"
"$python" -m venv "$work/venv"
PYTHONPATH="$work/build/python" "$work/venv/bin/python" - <<'PY'
import kerntime
from kerntime import _kerntime

assert not hasattr(_kerntime, "read_result_set")
try:
    kerntime.load("results.json")
except kerntime.InvalidArgument as e:
    assert "reads no result files" in str(e) and "libsimdjson-dev zlib1g-dev" in str(e), e
else:
    raise AssertionError("kerntime.load read a file without a reader")
try:
    _kerntime.write_file_atomically("results.json.gz", "{}")
except kerntime.InvalidArgument as e:
    assert "built without zlib; install zlib1g-dev" in str(e), e
else:
    raise AssertionError("a .gz file was written without zlib")
if _kerntime.cuda_device_count() == 0:
    try:
        kerntime.bench(lambda: None)
    except kerntime.DeviceUnavailable as e:
        print("DeviceUnavailable:", e)
        assert "CUDA" in str(e), e
    else:
        raise AssertionError("bench() measured without a GPU")
else:
    print("measured:", kerntime.bench(lambda: None).timing_backend)
print("the bare module: built, imported, and said what it left out")
PY
