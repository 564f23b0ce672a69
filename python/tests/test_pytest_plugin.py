"""The pytest plugin, run as a user runs it: a small test file in a fresh pytest process with
--junitxml, --kerntime-json and --kerntime-md. Results are the extension's fixed fixture,
recorded through kerntime_bench.record() (bench() itself needs a GPU)."""

import json
import os
import pathlib
import sys
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


def test_html_report_shows_every_result_as_text(pytester, monkeypatch):
    isolate(monkeypatch)
    pytester.makepyfile(test_benchmarks=TEST_FILE)
    outcome = pytester.runpytest_subprocess("-p", "kerntime.pytest_plugin",
                                            "--kerntime-html=out/report.html")
    outcome.stdout.fnmatch_lines(["*kerntime: 7 results, written to out/report.html*"])
    page = (pytester.path / "out" / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()
    # Kernel names and test ids are text: the template's angle brackets and quotes escaped.
    assert "void gemm&lt;float, 128&gt;(params&lt;&quot;tn&quot;, 3&gt;, int)" in page
    assert "test_benchmarks.py::test_parametrized[a|b]/result=result/role=main" in page
    assert "test_benchmarks.py::test_failed_benchmark" in page
    assert 'id="comparison"' not in page  # no baseline given


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


# Without a GPU: kerntime_bench skips its test with the reason, or fails it under
# --kerntime-require-gpu. CUDA_VISIBLE_DEVICES="" hides every device, so the same holds on a
# machine with GPUs as on one without a driver (each has its own DeviceUnavailable message).
NO_GPU_TEST_FILE = '''
import kerntime
from kerntime import _kerntime


def test_measures(kerntime_bench):
    kerntime_bench(lambda: None)
    raise AssertionError("kerntime_bench returned without a GPU")


def test_records_a_result_made_elsewhere(kerntime_bench):
    kerntime_bench.record(kerntime.Result(_kerntime._example_result()))
'''


@pytest.fixture
def without_gpu(pytester, monkeypatch):
    isolate(monkeypatch)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    pytester.makepyfile(test_benchmarks=NO_GPU_TEST_FILE)

    def run(*options):
        return pytester.runpytest_subprocess("-p", "kerntime.pytest_plugin", "-rs",
                                             "--junitxml=junit.xml", *options)
    return run


def test_without_a_gpu_a_benchmark_test_is_skipped_with_the_reason(without_gpu, pytester):
    outcome = without_gpu("--kerntime-json=out.json")
    outcome.assert_outcomes(passed=1, skipped=1)
    outcome.stdout.fnmatch_lines([
        "kerntime: 1 benchmark test skipped, no GPU: no CUDA device found*"
        "(--kerntime-require-gpu fails them instead)",
        "kerntime: 1 result, written to out.json",
        # At the test's own line (the def), not at the plugin's.
        "SKIPPED [[]1[]] test_benchmarks.py:5: kerntime: no CUDA device found*"])
    case = next(c for c in ElementTree.parse(pytester.path / "junit.xml").iter("testcase")
                if c.get("name") == "test_measures")
    assert case.find("skipped").get("message").startswith("kerntime: no CUDA device found")
    assert [p.get("name") for p in case.iter("property")] == ["kerntime_skipped_no_gpu"]
    # A skipped test has no result: the session report holds the recorded one alone.
    report = json.loads((pytester.path / "out.json").read_text())
    assert "test_measures" not in json.dumps(report)
    assert "device_unavailable" not in json.dumps(report)


@pytest.mark.parametrize("how", ["option", "ini"])
def test_a_gpu_only_ci_fails_the_benchmark_test_with_the_reason(without_gpu, pytester, how):
    if how == "ini":
        pytester.makeini("[pytest]\nkerntime_require_gpu = true\n")
    outcome = without_gpu("--kerntime-json=out.json",
                          *(["--kerntime-require-gpu"] if how == "option" else []))
    outcome.assert_outcomes(passed=1, failed=1)
    outcome.stdout.fnmatch_lines([
        "*kerntime: no CUDA device found*(--kerntime-require-gpu: a benchmark test fails where "
        "no GPU can be used)"])
    outcome.stdout.no_fnmatch_line("*raise AssertionError*")  # failed in kerntime_bench
    outcome.stdout.no_fnmatch_line("*skipped, no GPU*")
    assert "device_unavailable" in (pytester.path / "out.json").read_text()


# --kerntime-baseline: a first session writes its JSON, a later one compares with it. Six trials
# per result give compare intervals of about ±0.6 % (two trials: about ±2.7 %, wider than the
# ±2 % band, so even identical results would be inconclusive).
BASELINE_TEST_FILE = '''
import os
import kerntime
from kerntime import _kerntime

SCALE = float(os.environ.get("KERNTIME_TEST_SCALE", "1.0"))


def fixture(scale):
    return kerntime.Result(_kerntime._example_result(scale=scale, trials=6))


def test_kernel(kerntime_bench):
    kerntime_bench.record(fixture(SCALE))
    kerntime_bench.record(fixture(1.0), name="reference", baseline=True)


def test_other(kerntime_bench):
    kerntime_bench.record(fixture(1.0))


if os.environ.get("KERNTIME_TEST_NEW_TEST"):
    def test_new(kerntime_bench):
        kerntime_bench.record(fixture(1.0))
'''

KERNEL_STATE = "test_benchmarks.py::test_kernel/result=result/role=main"
OTHER_STATE = "test_benchmarks.py::test_other/result=result/role=main"


@pytest.fixture
def session(pytester, monkeypatch):
    """session(scale, *options) runs BASELINE_TEST_FILE with the main result of test_kernel
    scaled; the first call writes base.json, the baseline of the later ones."""
    isolate(monkeypatch)
    pytester.makepyfile(test_benchmarks=BASELINE_TEST_FILE)

    def run_session(scale, *options, new_test=False):
        monkeypatch.setenv("KERNTIME_TEST_SCALE", str(scale))
        if new_test:
            monkeypatch.setenv("KERNTIME_TEST_NEW_TEST", "1")
        else:
            monkeypatch.delenv("KERNTIME_TEST_NEW_TEST", raising=False)
        return pytester.runpytest_subprocess("-p", "kerntime.pytest_plugin", *options)

    run_session(1.0, "--kerntime-json=base.json").assert_outcomes(passed=2)
    assert (pytester.path / "base.json").exists()
    return run_session


def failure_of(path, test_name):
    tree = ElementTree.parse(path / "junit.xml")
    for case in tree.iter("testcase"):
        if case.get("name") == test_name:
            failure = case.find("failure")
            return None if failure is None else failure.get("message")
    raise AssertionError(f"no testcase {test_name}")


@pytest.mark.reads_results
def test_a_slower_result_gets_a_slower_verdict_and_passes_without_the_gate(session, pytester):
    outcome = session(1.05, "--kerntime-baseline=base.json", "--junitxml=junit.xml")
    outcome.assert_outcomes(passed=2)
    props = properties(pytester.path, "test_kernel")
    assert value(props, "kerntime_verdict") == "slower"
    assert float(value(props, "kerntime_ratio_vs_baseline")) == pytest.approx(1.05)
    low = float(value(props, "kerntime_ratio_vs_baseline_low"))
    high = float(value(props, "kerntime_ratio_vs_baseline_high"))
    assert 1.02 < low < 1.05 < high < 1.08
    assert float(value(props, "kerntime_band")) == pytest.approx(0.02)
    # The test's baseline result did not change: its own verdict, under its label.
    assert value(props, "kerntime_reference_verdict") == "same"
    assert float(value(props, "kerntime_reference_ratio_vs_baseline")) == pytest.approx(1.0)
    assert value(properties(pytester.path, "test_other"), "kerntime_verdict") == "same"
    assert failure_of(pytester.path, "test_kernel") is None
    outcome.stdout.fnmatch_lines([
        "*kerntime compared with the baseline*",
        "3 results compared with base.json: 1 slower, 0 faster, 2 same, 0 inconclusive*",
        f"slower: {KERNEL_STATE}: ratio 1.0500 (+5.00 %), 95 % interval 1.0*band ±2.0 %",
    ])


@pytest.mark.reads_results
def test_the_html_report_shows_each_ratio_against_the_baseline(session, pytester):
    session(1.05, "--kerntime-baseline=base.json", "--kerntime-html=out/report.html")
    page = (pytester.path / "out" / "report.html").read_text(encoding="utf-8")
    assert '<section id="comparison"' in page
    assert "verdict-slower" in page
    assert "1.0500 [1.0" in page  # the ratio and its interval
    assert "<script" not in page.lower()


@pytest.mark.reads_results
def test_the_gate_fails_a_slower_test_with_the_state_ratio_interval_and_band(session, pytester):
    outcome = session(1.05, "--kerntime-baseline=base.json", "--kerntime-fail-on-regression",
                      "--junitxml=junit.xml")
    outcome.assert_outcomes(passed=1, failed=1)
    assert outcome.ret == 1
    message = failure_of(pytester.path, "test_kernel")
    assert message is not None
    assert "slower than the baseline base.json" in message
    assert f"{KERNEL_STATE}: ratio 1.0500 (+5.00 %), 95 % interval 1.0" in message
    assert "band ±2.0 %" in message
    assert failure_of(pytester.path, "test_other") is None
    outcome.stdout.fnmatch_lines(["FAILED test_benchmarks.py::test_kernel*"])


@pytest.mark.reads_results
def test_identical_results_are_the_same_and_pass_the_gate(session, pytester):
    outcome = session(1.0, "--kerntime-baseline=base.json", "--kerntime-fail-on-regression",
                      "--junitxml=junit.xml")
    outcome.assert_outcomes(passed=2)
    props = properties(pytester.path, "test_kernel")
    assert value(props, "kerntime_verdict") == "same"
    assert float(value(props, "kerntime_ratio_vs_baseline")) == pytest.approx(1.0)
    outcome.stdout.fnmatch_lines(["3 results compared with base.json: 0 slower, 0 faster, 3 same*"])


@pytest.mark.reads_results
def test_a_faster_result_passes_the_gate(session, pytester):
    outcome = session(0.9, "--kerntime-baseline=base.json", "--kerntime-fail-on-regression",
                      "--junitxml=junit.xml")
    outcome.assert_outcomes(passed=2)
    assert value(properties(pytester.path, "test_kernel"), "kerntime_verdict") == "faster"


@pytest.mark.reads_results
def test_a_wider_threshold_makes_the_change_same(session, pytester):
    outcome = session(1.05, "--kerntime-baseline=base.json", "--kerntime-fail-on-regression",
                      "--kerntime-threshold=10%", "--junitxml=junit.xml")
    outcome.assert_outcomes(passed=2)
    props = properties(pytester.path, "test_kernel")
    assert value(props, "kerntime_verdict") == "same"
    assert float(value(props, "kerntime_band")) == pytest.approx(0.10)


@pytest.mark.reads_results
def test_states_on_one_side_only_are_listed(session, pytester):
    # test_other is in the baseline but not run; test_new runs but is not in the baseline.
    outcome = session(1.0, "--kerntime-baseline=base.json", "--kerntime-fail-on-regression",
                      "--junitxml=junit.xml", "-k", "kernel or new", new_test=True)
    outcome.assert_outcomes(passed=2)
    assert value(properties(pytester.path, "test_new"), "kerntime_not_compared") == (
        "not in the baseline")
    outcome.stdout.fnmatch_lines([
        "2 results compared with base.json*",
        "not in the baseline (no verdict): test_benchmarks.py::test_new/result=result/role=main",
        f"in the baseline, not measured in this session: {OTHER_STATE}",
    ])


@pytest.mark.parametrize("options, problem", [
    (["--kerntime-baseline=missing.json"],
     "*--kerntime-baseline: cannot read missing.json: no such file*kerntime JSON*"),
    (["--kerntime-baseline=broken.json"],
     "*--kerntime-baseline: broken.json is not a kerntime result set: not JSON*--kerntime-json*"),
    (["--kerntime-baseline=base.json", "--kerntime-threshold=much"],
     "*--kerntime-threshold much*not a fraction or a percentage; e.g. 2% or 0.02*"),
    (["--kerntime-baseline=base.json", "--kerntime-alpha=1.5"],
     "*alpha must be in (0, 1) (got 1.5)*"),
    (["--kerntime-baseline=base.json", "--kerntime-alpha=high"],
     "*--kerntime-alpha high is not a number*"),
    (["--kerntime-fail-on-regression"], "*--kerntime-fail-on-regression*--kerntime-baseline FILE*"),
    (["--kerntime-baseline=base.json", "--kerntime-on-clock-mismatch=maybe"],
     "*--kerntime-on-clock-mismatch*invalid choice*maybe*"),
])
@pytest.mark.reads_results
def test_an_unusable_baseline_or_option_is_a_usage_error(session, pytester, options, problem):
    (pytester.path / "broken.json").write_text('{"json_schema_version": 1, "runs": [')
    outcome = session(1.0, *options)
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stderr.fnmatch_lines([problem])
    outcome.stdout.no_fnmatch_line("*passed*")  # no test ran


@pytest.mark.parametrize("report", ["--kerntime-json=base.json", "--kerntime-json=./out/../base.json",
                                    "--kerntime-md=link.json", "--kerntime-html=base.json"])
def test_a_session_report_over_the_baseline_is_refused_before_any_test(session, pytester, report):
    (pytester.path / "out").mkdir()
    (pytester.path / "link.json").symlink_to(pytester.path / "base.json")
    before = (pytester.path / "base.json").read_bytes()
    outcome = session(1.0, "--kerntime-baseline=base.json", report)
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stderr.fnmatch_lines(["*would replace the baseline base.json*write the session's "
                                  "report to another file*"])
    outcome.stdout.no_fnmatch_line("*passed*")
    assert (pytester.path / "base.json").read_bytes() == before


@pytest.mark.reads_results
def test_a_baseline_in_another_folder_compares_the_same_names(session, pytester):
    # `--kerntime-baseline PATH` as two arguments: pytest's rootdir moves to the common folder of
    # every existing path on the command line, and names made from node ids moved with it.
    elsewhere = pytester.path.parent / f"{pytester.path.name}_elsewhere"
    elsewhere.mkdir()
    (pytester.path / "base.json").rename(elsewhere / "pt.json")
    outcome = session(1.0, "--kerntime-baseline", str(elsewhere / "pt.json"),
                      "--kerntime-json", str(elsewhere / "again.json"))
    outcome.assert_outcomes(passed=2)
    outcome.stdout.fnmatch_lines(["3 results compared with *pt.json: 0 slower, 0 faster, 3 same*"])
    again = json.loads((elsewhere / "again.json").read_text())
    assert KERNEL_STATE in [run["state_name"] for run in again["runs"]]


@pytest.mark.reads_results
def test_a_baseline_with_older_longer_names_is_still_compared(session, pytester):
    base = pytester.path / "base.json"
    base.write_text(base.read_text().replace('"test_benchmarks.py::', '"work/ops/test_benchmarks.py::'))
    outcome = session(1.0, "--kerntime-baseline=base.json")
    outcome.assert_outcomes(passed=2)
    outcome.stdout.fnmatch_lines(["3 results compared with base.json: 0 slower, 0 faster, 3 same*"])
    outcome.stdout.no_fnmatch_line("*in the baseline, not measured*")


@pytest.mark.reads_results
def test_a_baseline_that_matches_no_result_fails_the_session_with_names_of_both(session, pytester):
    base = pytester.path / "base.json"
    base.write_text(base.read_text().replace('test_benchmarks.py::test_', 'test_other_suite.py::op_'))
    outcome = session(1.0, "--kerntime-baseline=base.json")
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED
    outcome.stdout.fnmatch_lines([
        "*kerntime: error: none of this session's 3 results is in the baseline base.json (3 "
        "states)*this session: test_benchmarks.py::test_kernel/*the baseline: "
        "test_other_suite.py::op_*"])


def test_without_compare_in_the_build_the_baseline_is_a_usage_error(session, pytester):
    # A module built without Boost's headers has no compare_results, and says why.
    pytester.makeconftest('''
from kerntime import _kerntime
del _kerntime.compare_results
_kerntime.compare_unavailable = "this build of kerntime has no compare: (test)"
''')
    outcome = session(1.0, "--kerntime-baseline=base.json")
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stderr.fnmatch_lines(["*--kerntime-baseline: this build of kerntime has no compare*"])


@pytest.mark.reads_results
def test_failed_and_events_results_against_a_baseline(pytester, monkeypatch):
    # The first plugin test file: a failed bench has no verdict, and says why; a result timed
    # with CUDA events is compared without kernels, with a note; two trials per side leave
    # identical results inconclusive (interval about ±2.7 %), with the trials that would settle it.
    isolate(monkeypatch)
    pytester.makepyfile(test_benchmarks=TEST_FILE)
    pytester.runpytest_subprocess("-p", "kerntime.pytest_plugin", "--kerntime-json=base.json")
    outcome = pytester.runpytest_subprocess(
        "-p", "kerntime.pytest_plugin", "--kerntime-baseline=base.json", "--junitxml=junit.xml",
        "--kerntime-fail-on-regression")
    outcome.assert_outcomes(passed=3, failed=1)  # the failed bench raises, as before
    failed = value(properties(pytester.path, "test_failed_benchmark"), "kerntime_not_compared")
    assert failed.startswith("base failed (invalid_argument): ")
    props = properties(pytester.path, "test_named_results")
    assert value(props, "kerntime_other_verdict") == "inconclusive"
    assert value(props, "kerntime_other_units_needed") == "4"
    notes = [v for n, v in props if n == "kerntime_other_compare_note"]
    assert any("CUDA events" in note for note in notes)
    outcome.stdout.fnmatch_lines(["not compared: test_benchmarks.py::test_failed_benchmark/*"])


def test_the_clock_rule_reaches_the_comparison():
    # The rule itself (a state slower in time but not in cycles) is compare's, tested in C++;
    # the plugin hands --kerntime-on-clock-mismatch to it through these options.
    assert _kerntime.CompareOptions().on_clock_mismatch == "warn"
    assert _kerntime.CompareOptions(on_clock_mismatch="fail").on_clock_mismatch == "fail"
    with pytest.raises(kerntime.InvalidArgument, match="neither warn nor fail"):
        _kerntime.CompareOptions(on_clock_mismatch="maybe")


@pytest.mark.reads_results
def test_a_session_with_the_fail_rule_compares_as_before(session, pytester):
    outcome = session(1.0, "--kerntime-baseline=base.json", "--kerntime-on-clock-mismatch=fail",
                      "--kerntime-fail-on-regression")
    outcome.assert_outcomes(passed=2)


PAIRED_TEST_FILE = '''
import kerntime
import kerntime.pytest_plugin as plugin
from kerntime import _kerntime


# bench() needs a GPU: each callable here returns how much slower than the fixture it runs.
def fake_bench(fn, *args, trials=2, **kwargs):
    return kerntime.Result(_kerntime._example_result(scale=fn(), trials=trials))


plugin.bench = fake_bench


def test_paired(kerntime_bench):
    kerntime_bench(lambda: 1.05)
    kerntime_bench(lambda: 1.0, baseline=True)


def test_unpaired_without_a_main_result(kerntime_bench):
    kerntime_bench(lambda: 1.0, baseline=True)
'''


@pytest.mark.parametrize("options", [[], ["--kerntime-no-ab"]])
def test_a_baseline_gets_the_paired_verdict_of_interleaved_trials(pytester, monkeypatch, options):
    isolate(monkeypatch)
    pytester.makepyfile(test_paired=PAIRED_TEST_FILE)
    outcome = pytester.runpytest_subprocess("-p", "kerntime.pytest_plugin", "--junitxml=junit.xml",
                                            *options)
    outcome.assert_outcomes(passed=2)
    props = properties(pytester.path, "test_paired")
    names = {n for n, _ in props}
    if options:
        assert "kerntime_baseline_ab_verdict" not in names
        return
    # The main callable is B, the baseline A: 5 % slower in every block.
    assert value(props, "kerntime_baseline_ab_verdict") == "slower"
    assert float(value(props, "kerntime_baseline_ab_ratio")) == pytest.approx(1.05)
    assert float(value(props, "kerntime_baseline_ab_ratio_low")) > 1.01
    assert int(value(props, "kerntime_baseline_ab_blocks")) >= 3
    assert float(value(props, "kerntime_baseline_ratio")) == pytest.approx(1.05)
    assert not any(n.endswith("ab_verdict") for n, _ in
                   properties(pytester.path, "test_unpaired_without_a_main_result"))


STRICT_PAIRED_TEST_FILE = '''
import kerntime
import kerntime.pytest_plugin as plugin
from kerntime import _kerntime, errors

calls = {"broken": 0}


# As bench() does, a single trial refuses the stopping rule's options; the counter pass is
# noted so the test can see whether a paired trial asked for one.
def strict_bench(fn, *args, trials=2, stop_at_ci=None, max_time=None, max_trials=None,
                 counters=False, **kwargs):
    if trials == 1 and (stop_at_ci is not None or max_time is not None or max_trials is not None):
        raise errors.InvalidArgument("max_time needs stop_at_ci")
    if trials == 1 and counters:
        raise errors.InvalidArgument("a paired trial asked for a counter pass")
    return kerntime.Result(_kerntime._example_result(scale=fn(), trials=trials))


plugin.bench = strict_bench


def test_stopping_and_counter_options(kerntime_bench):
    kerntime_bench(lambda: 1.0, stop_at_ci=0.5, max_time=10, counters=True)
    kerntime_bench(lambda: 1.0, baseline=True, stop_at_ci=0.5, max_time=10, counters=True)


def broken():
    calls["broken"] += 1
    if calls["broken"] > 1:  # measured once, then fails inside the paired run
        _kerntime._throw_error("benchmark_failed", "the kernel faulted")
    return 1.0


def test_a_side_that_fails_in_the_paired_run(kerntime_bench):
    kerntime_bench(lambda: 1.0)
    kerntime_bench(broken, baseline=True)
'''


def test_the_paired_trials_leave_out_the_stopping_and_counter_options_and_a_failure_says_where(
        pytester, monkeypatch):
    isolate(monkeypatch)
    pytester.makepyfile(test_strict=STRICT_PAIRED_TEST_FILE)
    outcome = pytester.runpytest_subprocess("-p", "kerntime.pytest_plugin", "--junitxml=junit.xml")
    outcome.assert_outcomes(passed=1, failed=1)
    props = properties(pytester.path, "test_stopping_and_counter_options")
    assert value(props, "kerntime_baseline_ab_verdict") == "same"
    failed = properties(pytester.path, "test_a_side_that_fails_in_the_paired_run")
    assert "the kernel faulted" in value(failed, "kerntime_baseline_ab_failed")
    text = outcome.stdout.str()
    assert "BenchmarkFailed" in text and "the kernel faulted" in text
    if sys.version_info >= (3, 11):
        assert "in the paired run (kerntime.ab)" in text

