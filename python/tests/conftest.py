"""Shared set-up of kerntime's Python tests.

CPU tests run anywhere the extension is built (CI: PYTHONPATH=<build>/python). Tests marked
``gpu`` need a CUDA device (and most need PyTorch); without one they are skipped with the reason.
"""

import pytest

from kerntime import _kerntime

pytest_plugins = ["pytester"]


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device; skipped without one")
    config.addinivalue_line("markers", "reads_results: reads kerntime JSON back (simdjson, zlib); "
                                       "skipped where the module was built without them")


def pytest_collection_modifyitems(config, items):
    if not hasattr(_kerntime, "read_result_set"):  # pip's build where simdjson or zlib is missing
        unreadable = pytest.mark.skip(reason=getattr(_kerntime, "results_unreadable", ""))
        for item in items:
            if "reads_results" in item.keywords:
                item.add_marker(unreadable)
    if _kerntime.cuda_device_count() > 0:
        return
    skip = pytest.mark.skip(reason="no CUDA device visible to this process")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
