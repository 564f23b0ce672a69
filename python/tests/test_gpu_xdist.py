"""The pytest plugin under pytest-xdist on real GPUs: ``-n 2`` over real kerntime.bench calls with
PyTorch; the gathered report holds every result, each on its worker's device (worker K on device
K modulo the visible devices; with one GPU both share device 0). Skipped without a CUDA device,
torch or pytest-xdist."""

import json

import pytest

from test_pytest_plugin import isolate

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
pytest.importorskip("xdist", reason="pytest-xdist is not installed")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)

# Each result is named after its worker, so the report says which worker measured it.
TEST_FILE = '''
import os

import pytest
import torch


@pytest.mark.parametrize("size", [1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 23, 1 << 24])
def test_scale(kerntime_bench, size):
    worker = os.environ["PYTEST_XDIST_WORKER"]
    assert torch.cuda.current_device() == int(worker[2:]) % torch.cuda.device_count()
    x = torch.randn(size, device="cuda")
    result = kerntime_bench(torch.mul, x, 2.0, name=worker, trials=3, repeat=20)
    assert result.device.ordinal == torch.cuda.current_device()
'''


@pytest.mark.reads_results
def test_the_gathered_report_holds_every_result_on_its_workers_device(pytester, monkeypatch):
    isolate(monkeypatch)
    pytester.makepyfile(test_on_workers=TEST_FILE)
    outcome = pytester.runpytest_subprocess(
        "-p", "xdist", "-p", "kerntime.pytest_plugin", "-n", "2", "--kerntime-json=out.json",
        "--kerntime-md=out.md")
    outcome.assert_outcomes(passed=6)
    outcome.stdout.fnmatch_lines(["*kerntime: 6 results, written to out.json, out.md*"])
    if torch.cuda.device_count() > 1:
        outcome.stdout.fnmatch_lines(["kerntime: pytest-xdist workers gw0 on GPU 0, gw1 on GPU 1"])

    runs = json.loads((pytester.path / "out.json").read_text())["runs"]
    sizes = [1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 23, 1 << 24]
    assert [run["benchmark"] for run in runs] == [
        f"test_on_workers.py::test_scale[{size}]" for size in sizes]  # collection order
    workers = set()
    for run in runs:
        assert run["status"] == "ok", run
        worker = {axis["name"]: axis["value"] for axis in run["axes"]}["result"]
        workers.add(worker)
        device = run["result"]["device"]["ordinal"]
        assert device == int(worker[2:]) % torch.cuda.device_count(), (worker, device)
        assert run["result"]["latency_ns"] > 0
    assert workers == {"gw0", "gw1"}  # both workers measured
    table = [line for line in (pytester.path / "out.md").read_text().splitlines()
             if line.startswith("| test_on_workers.py::")]
    assert len(table) == 6
    assert all(f" | {int(row.split(' | ')[1][2:]) % torch.cuda.device_count()}: " in row
               for row in table)
