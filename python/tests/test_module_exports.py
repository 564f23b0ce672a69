"""The extension exports its entry point and nothing of kerntime's or of the libraries linked into
it (python/CMakeLists.txt, --exclude-libs): a library loaded beside it (PyTorch, Triton) that
exports a symbol of the same name, such as an fmt or nlohmann_json function of another version,
could otherwise replace the module's own, or be replaced by it."""

import re
import shutil
import subprocess

import pytest

from kerntime import _kerntime


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm (binutils)")
def test_the_module_exports_no_symbol_of_kerntime_or_of_the_libraries_linked_into_it():
    listing = subprocess.run(["nm", "-D", "-C", "--defined-only", _kerntime.__file__],
                             check=True, capture_output=True, text=True).stdout
    exported = [line.split(" ", 2)[-1] for line in listing.splitlines() if line.strip()]
    assert "PyInit__kerntime" in exported
    foreign = [name for name in exported
               if re.match(r"(kerntime|fmt|nlohmann|boost|simdjson|pybind11)::", name)]
    assert foreign == [], f"{len(foreign)} exported, e.g. {foreign[:5]}"
