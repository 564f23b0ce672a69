"""Shared set-up of kerntime's Python tests.

CPU tests run anywhere the extension is built (CI: PYTHONPATH=<build>/python). Tests marked
``gpu`` need a CUDA device (and most need PyTorch); without one they are skipped with the reason.
"""

import pytest

from kerntime import _kerntime

pytest_plugins = ["pytester"]


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device; skipped without one")


def pytest_collection_modifyitems(config, items):
    if _kerntime.cuda_device_count() > 0:
        return
    skip = pytest.mark.skip(reason="no CUDA device visible to this process")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
