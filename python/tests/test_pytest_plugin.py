"""The pytest plugin, run as a user runs it: a small test file in a fresh pytest process with
--junitxml, --kerntime-json and --kerntime-md. Results are the extension's fixed fixture,
recorded through kerntime_bench.record() (bench() itself needs a GPU)."""

import json
import os
import pathlib
import xml.etree.ElementTree as ElementTree

import pytest

import kerntime
from kerntime import _kerntime

TEST_FILE = '''
import pytest
import kerntime
from kerntime import _kerntime


def fixture(scale=1.0, backend="cupti"):
    return kerntime.Result(_kerntime._example_result(scale=scale, backend=backend))


def test_with_baseline(kerntime_bench):
    kerntime_bench.record(fixture(1.0))
    kerntime_bench.record(fixture(2.0), baseline=True)


def test_named_results(kerntime_bench):
    kerntime_bench.record(fixture(1.0), name="mine")
    kerntime_bench.record(fixture(4.0), name="reference", baseline=True)
    kerntime_bench.record(fixture(3.0, backend="events"), name="other")


@pytest.mark.parametrize("size", ["a|b"])
def test_parametrized(kerntime_bench, size):
    kerntime_bench.record(fixture(1.5))


def test_failed_benchmark(kerntime_bench):
    kerntime_bench(lambda: None, trials=0)
'''


def isolate(monkeypatch):
    # Load the plugin explicitly, whether or not kerntime is pip-installed (entry point), and
    # import the same kerntime as this process (PYTHONPATH may be relative to another folder).
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    package_root = str(pathlib.Path(kerntime.__file__).resolve().parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        filter(None, [package_root, os.environ.get("PYTHONPATH")])))


@pytest.fixture
def run(pytester, monkeypatch):
    isolate(monkeypatch)
    pytester.makepyfile(test_benchmarks=TEST_FILE)
    outcome = pytester.runpytest_subprocess(
        "-p", "kerntime.pytest_plugin", "--junitxml=junit.xml", "--kerntime-json=out/report.json",
        "--kerntime-md=out/report.md", "-W", "error::pytest.PytestWarning")
    return pytester.path, outcome


def properties(path, test_name):
    tree = ElementTree.parse(path / "junit.xml")
    for case in tree.iter("testcase"):
        if case.get("name") == test_name:
            return [(p.get("name"), p.get("value")) for p in case.iter("property")]
    raise AssertionError(f"no testcase {test_name}")


def value(props, name):
    values = [v for n, v in props if n == name]
    assert len(values) == 1, f"{name}: {values}"
    return values[0]


@pytest.fixture(scope="module")
def example():
    return kerntime.Result(_kerntime._example_result())


def test_the_outcomes_are_as_written(run):
    _, outcome = run
    outcome.assert_outcomes(passed=3, failed=1)
    outcome.stdout.fnmatch_lines(["*kerntime: 7 results, written to out/report.json, out/report.md*"])


def test_main_result_properties(run, example):
    path, _ = run
    props = properties(path, "test_with_baseline")
    assert float(value(props, "kerntime_latency_ms")) == pytest.approx(example.latency_ms)
    assert float(value(props, "kerntime_stdev_ms")) == pytest.approx(example.stdev_ms)
    assert value(props, "kerntime_timing_backend") == "cupti"


def test_each_top_kernel_is_its_own_property(run, example):
    path, _ = run
    props = properties(path, "test_with_baseline")
    assert value(props, "kerntime_kernel_1") == 'void gemm<float, 128>(params<"tn", 3>, int)'
    assert float(value(props, "kerntime_kernel_1_ms")) == pytest.approx(example.kernels[0].mean_ms)
    assert value(props, "kerntime_kernel_2") == "[CUDA memset]"
    assert float(value(props, "kerntime_kernel_2_share")) == pytest.approx(
        example.kernels[1].share)
    assert not any("," in v and n.endswith("_ms") for n, v in props)


def test_baseline_properties_and_ratio(run, example):
    path, _ = run
    props = properties(path, "test_with_baseline")
    assert float(value(props, "kerntime_baseline_latency_ms")) == pytest.approx(
        2 * example.latency_ms)
    assert float(value(props, "kerntime_baseline_ratio")) == pytest.approx(0.5)
    assert not any(n == "kerntime_ratio" for n, _ in props)


def test_named_results_are_prefixed_with_their_name(run, example):
    path, _ = run
    props = properties(path, "test_named_results")
    assert value(props, "kerntime_name") == "mine"
    assert float(value(props, "kerntime_latency_ms")) == pytest.approx(example.latency_ms)
    assert float(value(props, "kerntime_reference_ratio")) == pytest.approx(0.25)
    assert value(props, "kerntime_other_timing_backend") == "events"
    assert not any(n.startswith("kerntime_other_kernel") for n, _ in props)  # events: no kernels
    assert not any(n == "kerntime_other_ratio" for n, _ in props)  # not a baseline


def test_json_report_holds_every_result(run, example):
    path, _ = run
    report = json.loads((path / "out" / "report.json").read_text())
    text = json.dumps(report)
    assert "test_benchmarks.py::test_with_baseline" in text
    assert "test_benchmarks.py::test_failed_benchmark" in text
    assert "invalid_argument" in text
    assert 'void gemm<float, 128>(params<\\"tn\\", 3>, int)' in text
    assert str(example.measurement.latency_ns) in text or repr(example.measurement.latency_ns) in text


def test_markdown_report_puts_baselines_beside_the_main_result(run):
    path, _ = run
    lines = (path / "out" / "report.md").read_text().splitlines()
    rows = [line for line in lines if line.startswith("| test_benchmarks.py::")]
    with_baseline = [row for row in rows if "::test_with_baseline" in row]
    assert len(with_baseline) == 2
    assert rows.index(with_baseline[1]) == rows.index(with_baseline[0]) + 1
    assert "baseline" in with_baseline[1] and with_baseline[1].rstrip(" |").endswith("0.500")
    named = [row for row in rows if "::test_named_results" in row]
    assert [row.split("|")[2].strip() for row in named] == [
        "mine", "reference (baseline)", "other"]
    assert any("a\\|b" in row for row in rows)  # a "|" in a test id does not split the cell
    assert any("failed: invalid_argument" in row for row in rows)


def test_reports_are_not_written_without_the_options(pytester, monkeypatch):
    isolate(monkeypatch)
    pytester.makepyfile(test_benchmarks=TEST_FILE)
    outcome = pytester.runpytest_subprocess("-p", "kerntime.pytest_plugin", "-k", "baseline")
    outcome.assert_outcomes(passed=1)
    assert not (pytester.path / "out").exists()
    assert not list(pytester.path.glob("*.json")) and not list(pytester.path.glob("*.md"))
