"""kerntime's pytest plugin (registered through the ``pytest11`` entry point).

A test benchmarks with the ``kerntime_bench`` fixture::

    def test_matmul(kerntime_bench):
        result = kerntime_bench(torch.matmul, a, b)
        kerntime_bench(my_matmul, a, b, name="mine")
        kerntime_bench(torch.matmul, a.float(), b.float(), baseline=True)

Each result becomes JUnit XML properties of the test (``kerntime_latency_ms``,
``kerntime_stdev_ms``, ``kerntime_timing_backend``, one ``kerntime_kernel_<rank>`` property per
top kernel with ``_ms`` and ``_share`` beside it; results other than the test's main one are
prefixed with their label, e.g. ``kerntime_baseline_latency_ms``, and baselines get
``kerntime_<label>_ratio`` = main latency / baseline latency). At the end of the session every
result is written to ``--kerntime-json PATH`` (kerntime JSON), ``--kerntime-md PATH``
(markdown) and ``--kerntime-html PATH`` (one self-contained page of charts), each atomically.

A test that measures its main result and then a baseline with ``kerntime_bench(..., baseline=True)``
also gets the paired verdict of the two: their trials interleaved A B B A in this process
(``kerntime.ab``'s loop, A the baseline and B the main callable, each with its own arguments), so
the clock and the minutes they ran in are the same; the properties
``kerntime_<label>_ab_verdict`` (slower: the main result is slower than the baseline),
``_ab_ratio``, ``_ab_ratio_low``, ``_ab_ratio_high`` and ``_ab_blocks``. ``--kerntime-no-ab``
skips it.

With ``--kerntime-baseline FILE`` (a kerntime JSON of an earlier session), each test's results
are compared with the baseline's as soon as the test has run (kerntime compare, baseline.py):
the verdict, ratio and interval become properties, a summary follows the session, and
``--kerntime-fail-on-regression`` fails a test that got slower.

Where no GPU can be used (no NVIDIA driver, no device), ``kerntime_bench(fn, ...)`` skips its test
with the reason (kerntime.DeviceUnavailable's message) and the session ends with one line
counting those skips; ``--kerntime-require-gpu`` (or ``kerntime_require_gpu = true`` in the ini
file), for a CI whose runners all have a GPU, fails them instead. ``kerntime_bench.record()``
needs no GPU and is never skipped.

Under pytest-xdist (``-n N``) each worker measures on its own GPU and compares its own tests; the
controller gathers every worker's results into the session's reports and the baseline summary
(xdist_workers.py).

``--kerntime-patch-do-bench`` (or ``KERNTIME_PATCH_DO_BENCH=1``) makes an existing benchmark
suite's ``triton.testing.do_bench`` (TileLang's, FlashInfer's) calls measure with kerntime for
the whole session (kerntime.testing.patch()).
"""

from __future__ import annotations

import os
import pathlib
from typing import Any, Callable, List, NoReturn, Optional, Tuple

import pytest

from . import _kerntime, session_report, xdist_workers
from .ab import _OWN_OPTIONS as AB_OWN_OPTIONS, run_ab
from .baseline import Baseline
from .bench_function import bench
from . import errors
from .errors import KerntimeError
from .message_words import counted
from .result import Result
from .session import session
from .session_report import RecordedResult

_recorded_key = pytest.StashKey[List[RecordedResult]]()
_baseline_key = pytest.StashKey[Optional[Baseline]]()
_bench_key = pytest.StashKey["TestBench"]()  # a test's kerntime_bench, for its reports
_device_key = pytest.StashKey[Optional[int]]()  # a pytest-xdist worker's device, if it chose one
_gathered_key = pytest.StashKey[xdist_workers.Gathered]()  # pytest-xdist's controller only
_session_key = pytest.StashKey[session]()  # unless --kerntime-no-session
_patched_key = pytest.StashKey[bool]()  # --kerntime-patch-do-bench: kerntime.testing.patch() made
# The JUnit property, and the mark on a skipped test's report, of a benchmark skipped without a GPU.
NO_GPU_PROPERTY = "kerntime_skipped_no_gpu"
# bench() options that the paired run's single trials leave out: kerntime.ab's own, the
# stopping rule's time bound and the counter pass.
_NOT_PER_TRIAL = AB_OWN_OPTIONS + ("max_time", "counters", "metrics")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kerntime", "kerntime GPU benchmarks")
    group.addoption("--kerntime-json", metavar="PATH", default=None,
                    help="write every kerntime result of the session to PATH as kerntime JSON")
    group.addoption("--kerntime-md", metavar="PATH", default=None,
                    help="write every kerntime result of the session to PATH as markdown")
    group.addoption("--kerntime-html", metavar="PATH", default=None,
                    help="write every kerntime result of the session to PATH as one "
                         "self-contained HTML page (charts; with --kerntime-baseline, the ratios)")
    group.addoption("--kerntime-counters", action="store_true", default=False,
                    help="kerntime_bench measures hardware counters too (bench(counters=True)): "
                         "a counter pass after each measurement's timing trials")
    group.addoption("--kerntime-top-kernels", metavar="N", type=int, default=5,
                    help="how many kernels of each result become JUnit properties (default 5)")
    group.addoption("--kerntime-baseline", metavar="FILE", default=None,
                    help="compare each test's results with the same results in FILE, a kerntime "
                         "JSON of an earlier session (--kerntime-json) or run")
    group.addoption("--kerntime-fail-on-regression", action="store_true", default=False,
                    help="with --kerntime-baseline: fail a test whose result got slower beyond "
                         "the band with significance")
    group.addoption("--kerntime-threshold", metavar="T", default="2%",
                    help="with --kerntime-baseline: a change within +-T is 'same' (default 2%%; "
                         "2%% or 0.02)")
    group.addoption("--kerntime-alpha", metavar="A", default="0.05",
                    help="with --kerntime-baseline: the intervals are 1 - A (default 0.05)")
    group.addoption("--kerntime-no-ab", action="store_true", default=False,
                    help="do not run a test's main callable and its baseline=True callable "
                         "interleaved for their paired verdict (kerntime.ab)")
    group.addoption("--kerntime-on-clock-mismatch", metavar="RULE", default="warn",
                    choices=("warn", "fail"),
                    help="with --kerntime-baseline: a test slower in time but not in cycles (the "
                         "GPU clocks differed) reads 'slower (clock)'; warn (default) does not "
                         "fail it with --kerntime-fail-on-regression, fail does")
    group.addoption("--kerntime-no-session", action="store_true", default=False,
                    help="finalize CUPTI after each measurement instead of keeping it initialised "
                         "for the whole test session (kerntime.session; each measurement after the "
                         "first then costs 8-12 ms more)")
    group.addoption("--kerntime-patch-do-bench", action="store_true",
                    default=os.environ.get("KERNTIME_PATCH_DO_BENCH", "") not in ("", "0"),
                    help="measure triton.testing.do_bench, tilelang.profiler.do_bench and "
                         "flashinfer.testing.bench_gpu_time with kerntime in the tests "
                         "(kerntime.testing.patch(); also KERNTIME_PATCH_DO_BENCH=1)")
    group.addoption("--kerntime-require-gpu", action="store_true", default=False,
                    help="fail a kerntime_bench test where no GPU can be used, instead of "
                         "skipping it with the reason (for a CI whose runners all have a GPU; "
                         "also the ini option kerntime_require_gpu)")
    parser.addini("kerntime_require_gpu", type="bool", default=False,
                  help="kerntime: fail a kerntime_bench test where no GPU can be used, instead of "
                       "skipping it (as --kerntime-require-gpu)")


# tryfirst: a conftest that picks the worker's device itself runs after, and has the last word.
@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.stash[_recorded_key] = []
    if hasattr(config, "workerinput"):  # a pytest-xdist worker, starting
        config.stash[_device_key] = xdist_workers.choose_device(config.workerinput["workerid"])
    path = config.getoption("kerntime_baseline")
    if config.getoption("kerntime_fail_on_regression") and not path:
        raise pytest.UsageError("--kerntime-fail-on-regression compares with a baseline: pass "
                                "--kerntime-baseline FILE too (a --kerntime-json of a run)")
    if path:
        _refuse_report_over_baseline(config, path)
    # Read once, before any test runs: a baseline that cannot be used stops the session.
    config.stash[_baseline_key] = (
        Baseline(path, config.getoption("kerntime_threshold"), config.getoption("kerntime_alpha"),
                 config.getoption("kerntime_on_clock_mismatch"))
        if path else None)
    if config.getoption("kerntime_patch_do_bench"):
        from . import testing
        testing.patch()
        config.stash[_patched_key] = True
    # Last, once nothing here can refuse the session.
    if not config.getoption("kerntime_no_session"):
        # One scope for the test session: CUPTI stays initialised from measurement to
        # measurement and is finalized at the end (kerntime.session).
        config.stash[_session_key] = session().__enter__()


def _require_gpu(config: pytest.Config) -> bool:
    """--kerntime-require-gpu, or kerntime_require_gpu = true in the ini file."""
    return bool(config.getoption("kerntime_require_gpu") or config.getini("kerntime_require_gpu"))


def test_name(node: Any) -> str:
    """The test's name in every report: its file relative to the folder of pytest's config file
    (pytest.ini, pyproject.toml, …) or, without one, to the folder pytest was started in, then
    the rest of its node id. Not pytest's node id itself: that is relative to pytest's rootdir,
    which moves to the common folder of every existing path on the command line, so
    ``--kerntime-baseline /elsewhere/pt.json`` renamed every test (docs/python.md)."""
    config = node.config
    base = config.inipath.parent if config.inipath else config.invocation_params.dir
    path = pathlib.Path(node.path)
    try:
        relative = path.relative_to(base).as_posix()
    except ValueError:  # a test file outside that folder
        relative = pathlib.Path(os.path.relpath(path, base)).as_posix()
    _, separator, rest = node.nodeid.partition("::")
    return relative + separator + rest


def _refuse_report_over_baseline(config: pytest.Config, baseline: str) -> None:
    """A session report written over the baseline would lose the run it is compared with."""
    for option in ("kerntime_json", "kerntime_md", "kerntime_html"):
        report = config.getoption(option)
        if report and _same_file(report, baseline):
            flag = "--" + option.replace("_", "-")
            raise pytest.UsageError(
                f"{flag} {report} would replace the baseline {baseline}, which this session "
                f"compares with; write the session's report to another file")


def _same_file(a: str, b: str) -> bool:
    """True when the two paths name one file: through '..', symbolic links or hard links."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return False


class TestBench:
    """The ``kerntime_bench`` fixture's value: benchmarks, and records each result."""

    __test__ = False  # not a test class, despite its name

    def __init__(self, test: str, record_property: Callable[[str, Any], None],
                 recorded: List[RecordedResult], top_kernels: int,
                 counters: bool = False, paired: bool = True, require_gpu: bool = False) -> None:
        self._test = test
        self._require_gpu = require_gpu  # no GPU: fail the test rather than skip it
        self._paired = paired  # baseline=True runs kerntime.ab against the main callable
        self._main_trial: Optional[Callable[[], Result]] = None
        self._counters = counters  # --kerntime-counters: bench(counters=True) unless told
        self._record_property = record_property
        self._session = recorded
        self._top_kernels = top_kernels
        self._mine: List[RecordedResult] = []

    def __call__(self, fn: Callable[..., Any], *args: Any, baseline: bool = False,
                 name: Optional[str] = None, **kwargs: Any) -> Result:
        """kerntime.bench(fn, *args, **kwargs), recorded under `name` (or as a baseline)."""
        if self._counters:
            kwargs.setdefault("counters", True)
        try:
            result = bench(fn, *args, **kwargs)
        except errors.DeviceUnavailable as error:
            self._without_gpu(error, baseline, name)
        except KerntimeError as error:
            # Recorded so the session report shows the failure, then raised unchanged.
            self._add(None, baseline, name, errors.error_kind(error), str(error))
            raise
        self.record(result, baseline=baseline, name=name)
        recorded = self._mine[-1]
        # One trial each, as kerntime.ab interleaves them: the stopping rule's options and the
        # counter pass have no place in it (a pass per trial would be thrown away).
        one_trial = {k: v for k, v in kwargs.items() if k not in _NOT_PER_TRIAL}
        measure_trial = lambda: bench(fn, *args, trials=1, **one_trial)  # noqa: E731
        if recorded.main:
            self._main_trial = measure_trial
        elif baseline and self._paired and self._main_trial is not None:
            self._pair(recorded, measure_trial)
        return result

    def _without_gpu(self, error: errors.DeviceUnavailable, baseline: bool,
                     name: Optional[str]) -> NoReturn:
        """No GPU can be used here: the test is skipped with the reason, or with
        --kerntime-require-gpu fails with it (and the session report shows the failure)."""
        if self._require_gpu:
            self._add(None, baseline, name, errors.error_kind(error), str(error))
            pytest.fail(f"kerntime: {error} (--kerntime-require-gpu: a benchmark test fails "
                        f"where no GPU can be used)", pytrace=False)
        # Marks the skip as kerntime's for the session's summary line (and the JUnit XML).
        self._record_property(NO_GPU_PROPERTY, str(error))
        pytest.skip(f"kerntime: {error}")

    def _pair(self, recorded: RecordedResult, baseline_trial: Callable[[], Result]) -> None:
        """The paired verdict of the main callable (B) against this baseline (A)."""
        prefix = _prefix(recorded)
        if not hasattr(_kerntime, "SequentialRatio"):
            self._record_property(prefix + "ab_unavailable", _kerntime.compare_unavailable)
            return
        try:
            compared = run_ab(baseline_trial, self._main_trial)
        except KerntimeError as error:
            # Raised unchanged (its kind and attributes kept), saying where it came from.
            self._record_property(prefix + "ab_failed", str(error))
            if hasattr(error, "add_note"):
                error.add_note("in the paired run (kerntime.ab) of this test's main result (B) "
                               "against its baseline (A)")
            raise
        for key, value in (("ab_verdict", compared.verdict), ("ab_ratio", compared.ratio),
                           ("ab_ratio_low", compared.ratio_low),
                           ("ab_ratio_high", compared.ratio_high),
                           ("ab_blocks", compared.blocks)):
            self._record_property(prefix + key, value)

    def record(self, result: Result, *, baseline: bool = False,
               name: Optional[str] = None) -> Result:
        """Records a result measured elsewhere (kerntime.bench with other settings)."""
        if not isinstance(result, Result):
            raise TypeError(f"record() takes a kerntime.Result (got {type(result).__name__})")
        recorded = self._add(result, baseline, name, "", "")
        for key, value in self._properties(recorded):
            self._record_property(key, value)
        return result

    def _add(self, result: Optional[Result], baseline: bool, name: Optional[str],
             error_kind: str, message: str) -> RecordedResult:
        label = name if name else ("baseline" if baseline else "result")
        taken = {r.label for r in self._mine}
        unique, count = label, 1
        while unique in taken:
            count += 1
            unique = f"{label}_{count}"
        is_main = not baseline and not any(r.main for r in self._mine)
        recorded = RecordedResult(self._test, unique, baseline, is_main, result, error_kind,
                                  message)
        self._mine.append(recorded)
        self._session.append(recorded)
        return recorded

    def _properties(self, recorded: RecordedResult) -> List[Tuple[str, Any]]:
        result = recorded.result
        assert result is not None
        prefix = _prefix(recorded)
        properties: List[Tuple[str, Any]] = []
        if recorded.main and recorded.label != "result":
            properties.append((prefix + "name", recorded.label))
        properties.append((prefix + "latency_ms", result.latency_ms))
        properties.append((prefix + "stdev_ms", result.stdev_ms))
        properties.append((prefix + "timing_backend", result.timing_backend))
        for rank, kernel in enumerate(result.top_kernels(self._top_kernels), start=1):
            properties.append((f"{prefix}kernel_{rank}", kernel.name))
            properties.append((f"{prefix}kernel_{rank}_ms", kernel.mean_ms))
            properties.append((f"{prefix}kernel_{rank}_share", kernel.share))
        counters = result.counters
        if counters.status == "measured":
            derived = counters.derived
            for key in ("dram_bytes", "dram_percent_of_peak", "compute_percent_of_peak", "bound"):
                value = getattr(derived, key)
                if value is not None:
                    properties.append((f"{prefix}counters_{key}", value))
        elif counters.status == "unavailable":
            properties.append((prefix + "counters_unavailable", counters.reason))
        # One property per warning (JUnit allows repeated names), never a joined list.
        properties.extend((prefix + "warning", warning) for warning in result.warnings)
        return properties

    def finish(self) -> None:
        """At the end of the test: each baseline's ratio to the main result."""
        session_report.ratios(self._mine)
        for recorded in self._mine:
            if recorded.ratio is not None:
                self._record_property(_prefix(recorded) + "ratio", recorded.ratio)

    @property
    def results(self) -> List[RecordedResult]:
        """This test's results, in the order recorded."""
        return self._mine


def _prefix(recorded: RecordedResult) -> str:
    """The JUnit property prefix of a result: none for the test's main one, else its label."""
    return "kerntime_" if recorded.main else f"kerntime_{recorded.label}_"


@pytest.fixture
def kerntime_bench(request: pytest.FixtureRequest) -> Any:
    """``kerntime_bench(fn, *args, baseline=False, name=None, **bench_options_and_kwargs)``
    measures like kerntime.bench() and records the result for the JUnit XML and the session
    report. ``kerntime_bench.record(result, baseline=..., name=...)`` records a Result made
    elsewhere."""
    # item.user_properties is what record_property appends to; appending directly writes the
    # same <property> elements without record_property's warning under junit_family=xunit2.
    def record_property(name: str, value: Any) -> None:
        request.node.user_properties.append((name, value))

    bencher = TestBench(test_name(request.node), record_property,
                        request.config.stash[_recorded_key],
                        request.config.getoption("kerntime_top_kernels"),
                        request.config.getoption("kerntime_counters"),
                        not request.config.getoption("kerntime_no_ab"),
                        _require_gpu(request.config))
    request.node.stash[_bench_key] = bencher
    yield bencher
    bencher.finish()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """Once the test has run (and again after its teardown, for results recorded there), its
    results are compared with the baseline: properties, and the gate's failure. A test skipped
    without a GPU is reported at its own line."""
    outcome = yield
    if call.when == "call":
        _skip_at_the_test(item, outcome.get_result())
    baseline = item.config.stash.get(_baseline_key, None)
    bencher = item.stash.get(_bench_key, None)
    if baseline is None or bencher is None or call.when == "setup":
        return
    test = baseline.compare_test(bencher.results)
    if test is None:
        return
    report = outcome.get_result()
    properties = [p for c in test.results for p in baseline.properties(c, _prefix(c.recorded))]
    item.user_properties.extend(properties)
    if call.when == "teardown":  # this report was made from the properties before these
        report.user_properties.extend(properties)
    failure = baseline.failure(test)
    if failure and report.passed and item.config.getoption("kerntime_fail_on_regression"):
        report.outcome = "failed"
        report.longrepr = failure


def _skip_at_the_test(item: pytest.Item, report: pytest.TestReport) -> None:
    """A benchmark skipped without a GPU is reported at its test, as a skip mark is, not at the
    line of this plugin that skipped it."""
    skipped_here = any(name == NO_GPU_PROPERTY for name, _ in item.user_properties)
    if report.skipped and skipped_here and isinstance(report.longrepr, tuple):
        path, line = item.reportinfo()[:2]
        report.longrepr = (os.fspath(path), (line or 0) + 1, report.longrepr[2])


def _command_line(config: pytest.Config) -> str:
    return " ".join(["pytest", *map(str, config.invocation_params.args)])


def _reports_asked(config: pytest.Config) -> bool:
    return any(config.getoption(option) for option in
               ("kerntime_json", "kerntime_md", "kerntime_html", "kerntime_baseline"))


def pytest_sessionstart(session: pytest.Session) -> None:
    # Before pytest-xdist starts its workers (its sessionstart is trylast), so a refusal here
    # leaves none behind.
    config = session.config
    if not config.pluginmanager.has_plugin("dsession"):  # not pytest-xdist's controller
        return
    unavailable = xdist_workers.reader_unavailable()
    if unavailable:
        if _reports_asked(config):
            raise pytest.UsageError(f"kerntime under pytest-xdist: {unavailable}")
        return  # nothing to gather into: the workers' JUnit properties are all there is
    config.stash[_gathered_key] = xdist_workers.Gathered()


# pytest-xdist's controller hooks (optional: without pytest-xdist they are never called).
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: List[str]) -> None:
    gathered = node.config.stash.get(_gathered_key, None)
    if gathered is not None:
        gathered.collected(ids)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodeready(node: Any) -> None:
    gathered = node.config.stash.get(_gathered_key, None)
    if gathered is not None:
        gathered.start(node.gateway.id)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    gathered = node.config.stash.get(_gathered_key, None)
    if gathered is not None:
        gathered.hand_back(node.gateway.id, getattr(node, "workeroutput", None))


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: its results go to the controller
        config.workeroutput[xdist_workers.OUTPUT_KEY] = xdist_workers.worker_output(
            config.stash[_recorded_key], config.stash.get(_device_key, None))
        return
    gathered = config.stash.get(_gathered_key, None)
    if gathered is not None:  # pytest-xdist's controller: the session's results are the workers'
        config.stash[_recorded_key] = gathered.results()
        baseline = config.stash.get(_baseline_key, None)
        if baseline is not None:  # the same compare as the workers', for the one summary
            for test in session_report.by_test(config.stash[_recorded_key]):
                baseline.compare_test(test)
    baseline = config.stash.get(_baseline_key, None)
    if baseline is not None and baseline.matched_nothing(config.stash[_recorded_key]):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    json_path = config.getoption("kerntime_json")
    markdown_path = config.getoption("kerntime_md")
    html_path = config.getoption("kerntime_html")
    if json_path or markdown_path or html_path:
        session_report.write(config.stash[_recorded_key], _command_line(config), json_path,
                             markdown_path, html_path, config.stash.get(_baseline_key, None))


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(_patched_key, False):
        from . import testing
        testing.unpatch()
    held = config.stash.get(_session_key, None)
    if held is not None:
        del config.stash[_session_key]
        held.__exit__(None, None, None)


def _skipped_without_gpu(terminalreporter: Any) -> List[str]:
    """The reasons of the tests that kerntime_bench skipped for want of a GPU, one per test (also
    under pytest-xdist: the reports the controller got carry their properties)."""
    return [value for report in terminalreporter.stats.get("skipped", [])
            for name, value in getattr(report, "user_properties", ()) if name == NO_GPU_PROPERTY]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    skipped = _skipped_without_gpu(terminalreporter)
    if skipped:
        reasons = "; ".join(dict.fromkeys(skipped))  # each reason once, in order
        terminalreporter.write_line(
            f"kerntime: {counted(len(skipped), 'benchmark test')} skipped, no GPU: {reasons} "
            f"(--kerntime-require-gpu fails them instead)", yellow=True)
    recorded = config.stash.get(_recorded_key, [])
    if recorded:
        paths = [p for p in (config.getoption("kerntime_json"), config.getoption("kerntime_md"),
                             config.getoption("kerntime_html")) if p]
        where = f", written to {', '.join(paths)}" if paths else ""
        terminalreporter.write_line(f"kerntime: {counted(len(recorded), 'result')}{where}")
    gathered = config.stash.get(_gathered_key, None)
    if gathered is not None:
        devices = gathered.device_line()
        if devices:
            terminalreporter.write_line(f"kerntime: pytest-xdist workers {devices}")
        for worker in gathered.missing():
            terminalreporter.write_line(
                f"kerntime: pytest-xdist worker {worker} handed back no results (it crashed, or "
                f"the session stopped first): they are missing from the reports", red=True)
    baseline = config.stash.get(_baseline_key, None)
    if baseline is None:
        return
    terminalreporter.write_sep("-", "kerntime compared with the baseline")
    if baseline.matched_nothing(recorded):
        terminalreporter.write_line(baseline.nothing_matched(recorded), red=True)
    for line, regression in baseline.summary(recorded):
        terminalreporter.write_line(line, red=regression)
