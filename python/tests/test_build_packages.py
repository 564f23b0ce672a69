"""The development packages a build needs are listed once, in cmake/packages.cmake; the build
generates kerntime/_build_packages.py from it. Every text that names them must agree with that
list: the message of a package without the command (made from it), the install lines of
docs/python.md, scripts/setup.sh (which must install them all), and any -dev package named in the
docs, the Python package or the CMake files (a name the list does not hold is a stale one)."""

import pathlib
import re

import pytest

from kerntime import _build_packages, command

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIBRARY = [package for _, package in _build_packages.LIBRARY_PACKAGES]
COMMAND = [package for _, package in _build_packages.COMMAND_PACKAGES]
INSTALL_LINE = re.compile(r"^sudo apt-get install (.+)$", re.MULTILINE)
DEV_PACKAGE = re.compile(r"\b[a-z0-9][a-z0-9.+-]*-dev\b")
# Named by scripts/setup.sh and the docs for what is not kerntime's library or command: the tests,
# the Python module's build (pybind11, Python's headers), the fuzzers (docs/fuzzing.md).
OTHER_PACKAGES = {"libgtest-dev", "libbenchmark-dev", "pybind11-dev", "python3-dev",
                  "libclang-rt-14-dev"}


def test_the_list_holds_every_library_of_the_build_and_of_the_command():
    pairs = _build_packages.LIBRARY_PACKAGES + _build_packages.COMMAND_PACKAGES
    names = [name for name, _ in pairs]
    assert names == ["fmt", "nlohmann_json", "simdjson", "zlib", "CLI11", "Boost", "RE2", "SQLite",
                     "libpq"]
    assert all(package.endswith("-dev") for package in LIBRARY + COMMAND)


def test_the_no_command_message_names_every_library_and_the_whole_install():
    message = command.NO_COMMAND_MESSAGE
    assert "the headers of CLI11, Boost, RE2, SQLite or libpq" in message
    assert "apt-get install " + " ".join(LIBRARY + COMMAND) + ")" in message


def test_the_docs_install_lines_are_the_list():
    lines = INSTALL_LINE.findall((ROOT / "docs" / "python.md").read_text())
    assert [line.split() for line in lines] == [LIBRARY, COMMAND]


def installed_by_setup(script):
    """The words of setup.sh's packages=( ... ) array, its comments left out."""
    words, inside = [], False
    for line in script.splitlines():
        code = line.split("#", 1)[0]
        if not inside and code.startswith("packages=("):
            inside, code = True, code[len("packages=("):]
        if inside:
            words += code.split(")", 1)[0].split()
            if ")" in code:
                return words
    raise AssertionError("scripts/setup.sh has no packages=( ... ) array")


def test_setup_installs_every_package_of_the_list():
    script = (ROOT / "scripts" / "setup.sh").read_text()
    listed = installed_by_setup(script)
    assert "cmake" in listed and "munge" in listed  # the whole array, first word to last
    assert set(LIBRARY + COMMAND) <= set(listed)
    assert set(DEV_PACKAGE.findall(script)) <= set(LIBRARY + COMMAND) | OTHER_PACKAGES
    assert not (OTHER_PACKAGES & set(LIBRARY + COMMAND))


@pytest.mark.parametrize("pattern", ["docs/*.md", "python/kerntime/*.py", "python/src/*.cpp",
                                     "python/CMakeLists.txt", "CMakeLists.txt",
                                     "src/*/CMakeLists.txt", "cmake/*.cmake"])
def test_no_file_names_a_package_the_list_does_not_hold(pattern):
    files = sorted(ROOT.glob(pattern))
    assert files, pattern
    stale = {f"{path.relative_to(ROOT)}: {name}" for path in files
             for name in DEV_PACKAGE.findall(path.read_text(encoding="utf-8"))
             if name not in set(LIBRARY + COMMAND) | OTHER_PACKAGES}
    assert not stale
