"""The pytest plugin under pytest-xdist: a fresh pytest with ``-n 2`` whose two workers each
record results, against the same session without ``-n``; the gathered reports and the baseline
summary must be the single-process ones. Results are the extension's fixed fixture (no GPU); the
device each worker chooses is checked with a stand-in for PyTorch. The inner sessions are skipped
where pytest-xdist is not installed (apt install python3-pytest-xdist)."""

import json
import sys
import types

import pytest

import kerntime
from kerntime import _kerntime, session_report, xdist_workers
from test_pytest_plugin import BASELINE_TEST_FILE, isolate

# Defined in an order that is not the alphabetical one: the reports follow this (collection)
# order, whichever worker ran a test and whenever it finished. Each test notes its worker.
XDIST_TEST_FILE = '''
import os
import kerntime
from kerntime import _kerntime


def fixture(scale, backend="cupti"):
    return kerntime.Result(_kerntime._example_result(scale=scale, backend=backend))


def ran_on_worker():
    with open("ran_on_" + os.environ.get("PYTEST_XDIST_WORKER", "none"), "a") as f:
        f.write("ran\\n")


def test_zeta(kerntime_bench):
    ran_on_worker()
    kerntime_bench.record(fixture(1.0))
    kerntime_bench.record(fixture(2.0), baseline=True)


def test_epsilon(kerntime_bench):
    ran_on_worker()
    kerntime_bench.record(fixture(1.5), name="mine")
    kerntime_bench.record(fixture(3.0, backend="events"), name="other")
    kerntime_bench.record(fixture(3.0), name="reference", baseline=True)


def test_delta(kerntime_bench):
    ran_on_worker()
    kerntime_bench(lambda: None, trials=0)


def test_gamma(kerntime_bench):
    ran_on_worker()
    kerntime_bench.record(fixture(4.0), name="reference", baseline=True)
    kerntime_bench.record(fixture(2.5))


def test_beta(kerntime_bench):
    ran_on_worker()
    kerntime_bench.record(fixture(0.5))


def test_alpha_records_nothing():
    ran_on_worker()


def test_aleph(kerntime_bench):
    ran_on_worker()
    kerntime_bench.record(fixture(0.25))
'''

# The reports' order: tests as collected; in a test the main result, its baselines, the others.
EXPECTED_STATES = [
    "test_benchmarks.py::test_zeta/result=result/role=main",
    "test_benchmarks.py::test_zeta/result=baseline/role=baseline",
    "test_benchmarks.py::test_epsilon/result=mine/role=main",
    "test_benchmarks.py::test_epsilon/result=reference/role=baseline",
    "test_benchmarks.py::test_epsilon/result=other/role=other",
    "test_benchmarks.py::test_delta/result=result/role=main",
    "test_benchmarks.py::test_gamma/result=result/role=main",
    "test_benchmarks.py::test_gamma/result=reference/role=baseline",
    "test_benchmarks.py::test_beta/result=result/role=main",
    "test_benchmarks.py::test_aleph/result=result/role=main",
]


def needs_xdist():
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (apt install "
                                        "python3-pytest-xdist)")


@pytest.fixture
def session(pytester, monkeypatch):
    """session(*options) runs XDIST_TEST_FILE in a fresh pytest with xdist and the plugin."""
    needs_xdist()
    isolate(monkeypatch)
    pytester.makepyfile(test_benchmarks=XDIST_TEST_FILE)

    def run_session(*options):
        return pytester.runpytest_subprocess("-p", "xdist", "-p", "kerntime.pytest_plugin",
                                             "-W", "error::pytest.PytestWarning", *options)

    return run_session


def workers_that_ran(path):
    return sorted(p.name[len("ran_on_"):] for p in path.glob("ran_on_*"))


# --- the worker's device: a pure function, and the choice it makes through PyTorch


@pytest.mark.parametrize("worker, count, device", [
    ("gw0", 1, 0), ("gw3", 1, 0), ("gw0", 2, 0), ("gw1", 2, 1), ("gw2", 2, 0), ("gw7", 3, 1),
    ("gw12", 8, 4),
])
def test_worker_k_measures_on_device_k_modulo_the_devices(worker, count, device):
    assert xdist_workers.device_for_worker(worker, count) == device


@pytest.mark.parametrize("worker", ["main", "gw", "gwx", "gw-1", "1", " gw1"])
def test_a_worker_id_not_of_pytest_xdist_is_refused(worker):
    with pytest.raises(ValueError, match="not a pytest-xdist worker id"):
        xdist_workers.worker_index(worker)


def test_without_devices_there_is_nothing_to_choose():
    with pytest.raises(ValueError, match="no device"):
        xdist_workers.device_for_worker("gw0", 0)


def fake_torch(device_count):
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(device_count=lambda: device_count, chosen=[])
    torch.cuda.set_device = torch.cuda.chosen.append
    return torch


def test_with_several_devices_the_worker_makes_its_device_torchs_current_one(monkeypatch):
    torch = fake_torch(4)
    monkeypatch.setitem(sys.modules, "torch", torch)
    assert xdist_workers.choose_device("gw5") == 1
    assert torch.cuda.chosen == [1]


def test_with_one_device_nothing_is_chosen(monkeypatch):
    torch = fake_torch(1)
    monkeypatch.setitem(sys.modules, "torch", torch)
    assert xdist_workers.choose_device("gw5") is None
    assert torch.cuda.chosen == []


def test_without_torch_nothing_is_chosen(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    assert xdist_workers.choose_device("gw1") is None


# --- what a worker hands back, read on the controller


def recorded(test, label, scale, baseline=False, main=True):
    result = kerntime.Result(_kerntime._example_result(scale=scale))
    return session_report.RecordedResult(test, label, baseline, main, result)


@pytest.fixture
def json_reader():
    if xdist_workers.reader_unavailable():
        pytest.skip(xdist_workers.reader_unavailable())


def test_a_workers_results_read_back_are_the_results_it_recorded(json_reader):
    results = [
        recorded("t.py::a", "result", 1.0),
        recorded("t.py::a", "baseline", 4.0, baseline=True, main=False),
        session_report.RecordedResult("t.py::b", "result", False, True, None,
                                      "invalid_argument", "trials must be at least 1"),
    ]
    session_report.ratios(results[:2])
    gathered = xdist_workers.Gathered()
    gathered.start("gw0")
    gathered.hand_back("gw0", {"exitstatus": 0, xdist_workers.OUTPUT_KEY:
                               xdist_workers.worker_output(results, None)})
    back = gathered.results()
    assert [(r.test, r.label, r.baseline, r.main, r.error_kind, r.message, r.ratio)
            for r in back] == [(r.test, r.label, r.baseline, r.main, r.error_kind, r.message,
                                r.ratio) for r in results]
    assert back[1].ratio == pytest.approx(0.25)
    assert back[0].result.to_json() == results[0].result.to_json()
    assert back[2].result is None
    assert gathered.missing() == [] and gathered.device_line() == ""
    # Rendered again, the controller's report is the worker's.
    assert session_report.render_markdown(back, "c") == session_report.render_markdown(results, "c")


def test_a_worker_that_handed_back_nothing_is_missing(json_reader):
    gathered = xdist_workers.Gathered()
    for worker in ("gw0", "gw1", "gw2"):
        gathered.start(worker)
    gathered.hand_back("gw1", None)  # crashed: pytest-xdist has no output of it
    gathered.hand_back("gw2", {xdist_workers.OUTPUT_KEY: xdist_workers.worker_output([], 1)})
    gathered.hand_back("gw0", {xdist_workers.OUTPUT_KEY: xdist_workers.worker_output([], 0)})
    assert gathered.missing() == ["gw1"]
    assert gathered.device_line() == "gw0 on GPU 0, gw2 on GPU 1"


def test_tests_follow_the_collection_order_and_unknown_ones_come_after_by_id():
    results = [recorded(test, "result", 1.0) for test in
               ["t.py::c", "t.py::z", "t.py::a", "t.py::y", "t.py::b"]]
    results.insert(1, recorded("t.py::a", "x", 1.0, main=False))
    ordered = session_report.in_test_order(results, ["t.py::a", "t.py::b", "t.py::c"])
    assert [(r.test, r.label) for r in ordered] == [
        ("t.py::a", "x"), ("t.py::a", "result"), ("t.py::b", "result"), ("t.py::c", "result"),
        ("t.py::y", "result"), ("t.py::z", "result")]


def test_the_summary_table_names_each_results_gpu(json_reader):
    # The fixture's device is ordinal 0; one read back from JSON edited to ordinal 1 stands for
    # a result measured by another worker.
    zero = recorded("t.py::a", "result", 1.0)
    document = json.loads(session_report.render_json([recorded("t.py::b", "result", 2.0)], ""))
    document["runs"][0]["result"]["device"]["ordinal"] = 1
    one = session_report.read_json(json.dumps(document), "edited")[0]
    table = session_report.summary_table([zero, one]).splitlines()
    assert table[0].split(" | ")[5] == "GPU"
    assert table[2].split(" | ")[5] == "0: example device (kerntime test fixture)"
    assert table[3].split(" | ")[5] == "1: example device (kerntime test fixture)"


# --- whole sessions with -n 2


@pytest.mark.reads_results
def test_the_reports_gather_every_workers_results_in_collection_order(session, pytester):
    single = session("--kerntime-json=single.json", "--kerntime-md=single.md")  # no -n
    single.assert_outcomes(passed=6, failed=1)
    assert workers_that_ran(pytester.path) == ["none"]
    (pytester.path / "ran_on_none").unlink()

    outcome = session("-n", "2", "--kerntime-json=out/gathered.json",
                      "--kerntime-md=out/gathered.md", "--junitxml=junit.xml")
    outcome.assert_outcomes(passed=6, failed=1)
    assert workers_that_ran(pytester.path) == ["gw0", "gw1"]  # both workers recorded results
    outcome.stdout.fnmatch_lines(
        ["*kerntime: 10 results, written to out/gathered.json, out/gathered.md*"])
    outcome.stdout.no_fnmatch_line("*handed back no results*")

    gathered = json.loads((pytester.path / "out" / "gathered.json").read_text())
    assert [run["state_name"] for run in gathered["runs"]] == EXPECTED_STATES
    # The very runs a session without -n writes; only the context (date, command line) differs.
    assert gathered["runs"] == json.loads((pytester.path / "single.json").read_text())["runs"]
    assert gathered["context"]["command_line"].endswith("-n 2 --kerntime-json=out/gathered.json "
                                                        "--kerntime-md=out/gathered.md "
                                                        "--junitxml=junit.xml")
    assert (pytester.path / "out" / "gathered.md").read_text() == (
        pytester.path / "single.md").read_text()


@pytest.mark.reads_results
def test_the_baseline_summary_is_the_single_process_one(pytester, monkeypatch):
    needs_xdist()
    isolate(monkeypatch)
    pytester.makepyfile(test_benchmarks=BASELINE_TEST_FILE)

    def run(scale, *options):
        monkeypatch.setenv("KERNTIME_TEST_SCALE", str(scale))
        return pytester.runpytest_subprocess("-p", "xdist", "-p", "kerntime.pytest_plugin",
                                             *options)

    run(1.0, "--kerntime-json=base.json").assert_outcomes(passed=2)
    options = ("--kerntime-baseline=base.json", "--kerntime-fail-on-regression")
    single = run(1.05, *options, "--junitxml=single.xml")
    gathered = run(1.05, *options, "-n", "2", "--junitxml=gathered.xml")
    for outcome in (single, gathered):
        outcome.assert_outcomes(passed=1, failed=1)  # the gate, on the worker that ran the test
        outcome.stdout.fnmatch_lines([
            "3 results compared with base.json: 1 slower, 0 faster, 2 same, 0 inconclusive*"])

    def summary(outcome):
        lines = outcome.stdout.lines
        start = next(i for i, line in enumerate(lines) if "kerntime compared with the" in line)
        end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("="))
        return lines[start:end]

    assert summary(gathered) == summary(single)
    assert not any("in the baseline, not measured" in line for line in summary(gathered))


@pytest.mark.reads_results
def test_each_worker_chooses_its_device_and_the_controller_names_them(session, pytester):
    # A stand-in for PyTorch with three devices, installed before the plugin's configure.
    pytester.makeconftest('''
import os, sys, types

torch = types.ModuleType("torch")
torch.cuda = types.SimpleNamespace(device_count=lambda: 3)
def set_device(device):
    os.environ["FAKE_TORCH_DEVICE"] = str(device)
torch.cuda.set_device = set_device
sys.modules["torch"] = torch
''')
    pytester.makepyfile(test_device='''
import os

def test_device():
    worker = int(os.environ["PYTEST_XDIST_WORKER"][2:])
    assert os.environ["FAKE_TORCH_DEVICE"] == str(worker % 3)
''')
    outcome = session("-n", "2", "test_device.py")
    outcome.assert_outcomes(passed=1)
    outcome.stdout.fnmatch_lines(["kerntime: pytest-xdist workers gw0 on GPU 0, gw1 on GPU 1"])


def test_without_xdist_no_device_is_chosen(session, pytester):
    pytester.makeconftest('''
import sys, types

torch = types.ModuleType("torch")
torch.cuda = types.SimpleNamespace(device_count=lambda: 3)
def set_device(device):
    raise AssertionError("no device is chosen outside a pytest-xdist worker")
torch.cuda.set_device = set_device
sys.modules["torch"] = torch
''')
    outcome = session("--kerntime-json=out.json")
    outcome.assert_outcomes(passed=6, failed=1)
    outcome.stdout.no_fnmatch_line("*pytest-xdist*")


def test_without_the_json_reader_gathering_reports_is_a_usage_error(session, pytester):
    # A module built without compare has no parse_result_set, and says why.
    pytester.makeconftest('''
from kerntime import _kerntime
if hasattr(_kerntime, "parse_result_set"):
    del _kerntime.parse_result_set
_kerntime.results_unreadable = "this build of kerntime reads no result files: (test)"
''')
    outcome = session("-n", "2", "--kerntime-json=out.json")
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stderr.fnmatch_lines([
        "*kerntime under pytest-xdist: gathering the pytest-xdist workers' results reads their "
        "kerntime JSON back*no JSON reader*this build of kerntime reads no result files: (test)*"])
    assert not (pytester.path / "out.json").exists()
    # Without a report to write there is nothing to gather: the session runs as before.
    session("-n", "2").assert_outcomes(passed=6, failed=1)
