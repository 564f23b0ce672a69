"""The extension exports its entry point and nothing else (python/exports.map): a library loaded
beside it (PyTorch, Triton) that exports a symbol of the same name, such as an fmt or
nlohmann_json function of another version, a standard-library instantiation or a typeinfo, could
otherwise replace the module's own, or be replaced by it."""

import shutil
import subprocess

import pytest

from kerntime import _kerntime


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm (binutils)")
def test_the_module_exports_its_entry_point_alone():
    listing = subprocess.run(["nm", "-D", "-C", "--defined-only", _kerntime.__file__],
                             check=True, capture_output=True, text=True).stdout
    exported = [line.split(" ", 2)[-1] for line in listing.splitlines() if line.strip()]
    assert exported == ["PyInit__kerntime"], f"{len(exported)} exported, e.g. {exported[:5]}"
