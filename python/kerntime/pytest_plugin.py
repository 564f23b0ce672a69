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
result is written to ``--kerntime-json PATH`` (kerntime JSON) and ``--kerntime-md PATH``
(markdown), each atomically.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

import pytest

from . import session_report
from .bench_function import bench
from . import errors
from .errors import KerntimeError
from .result import Result
from .session_report import RecordedResult

_recorded_key = pytest.StashKey[List[RecordedResult]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kerntime", "kerntime GPU benchmarks")
    group.addoption("--kerntime-json", metavar="PATH", default=None,
                    help="write every kerntime result of the session to PATH as kerntime JSON")
    group.addoption("--kerntime-md", metavar="PATH", default=None,
                    help="write every kerntime result of the session to PATH as markdown")
    group.addoption("--kerntime-top-kernels", metavar="N", type=int, default=5,
                    help="how many kernels of each result become JUnit properties (default 5)")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_recorded_key] = []


class TestBench:
    """The ``kerntime_bench`` fixture's value: benchmarks, and records each result."""

    __test__ = False  # not a test class, despite its name

    def __init__(self, test: str, record_property: Callable[[str, Any], None],
                 recorded: List[RecordedResult], top_kernels: int) -> None:
        self._test = test
        self._record_property = record_property
        self._session = recorded
        self._top_kernels = top_kernels
        self._mine: List[RecordedResult] = []

    def __call__(self, fn: Callable[..., Any], *args: Any, baseline: bool = False,
                 name: Optional[str] = None, **kwargs: Any) -> Result:
        """kerntime.bench(fn, *args, **kwargs), recorded under `name` (or as a baseline)."""
        try:
            result = bench(fn, *args, **kwargs)
        except KerntimeError as error:
            # Recorded so the session report shows the failure, then raised unchanged.
            self._add(None, baseline, name, errors.error_kind(error), str(error))
            raise
        return self.record(result, baseline=baseline, name=name)

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

    def _prefix(self, recorded: RecordedResult) -> str:
        return "kerntime_" if recorded.main else f"kerntime_{recorded.label}_"

    def _properties(self, recorded: RecordedResult) -> List[Tuple[str, Any]]:
        result = recorded.result
        assert result is not None
        prefix = self._prefix(recorded)
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
        # One property per warning (JUnit allows repeated names), never a joined list.
        properties.extend((prefix + "warning", warning) for warning in result.warnings)
        return properties

    def finish(self) -> None:
        """At the end of the test: each baseline's ratio to the main result."""
        session_report.ratios(self._mine)
        for recorded in self._mine:
            if recorded.ratio is not None:
                self._record_property(self._prefix(recorded) + "ratio", recorded.ratio)


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

    bencher = TestBench(request.node.nodeid, record_property,
                        request.config.stash[_recorded_key],
                        request.config.getoption("kerntime_top_kernels"))
    yield bencher
    bencher.finish()


def _command_line(config: pytest.Config) -> str:
    return " ".join(["pytest", *map(str, config.invocation_params.args)])


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if hasattr(config, "workerinput"):
        return  # a pytest-xdist worker: its results are not gathered into one report
    json_path = config.getoption("kerntime_json")
    markdown_path = config.getoption("kerntime_md")
    if json_path or markdown_path:
        session_report.write(config.stash[_recorded_key], _command_line(config), json_path,
                             markdown_path)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    recorded = config.stash.get(_recorded_key, [])
    if not recorded:
        return
    paths = [p for p in (config.getoption("kerntime_json"), config.getoption("kerntime_md")) if p]
    where = f", written to {', '.join(paths)}" if paths else ""
    terminalreporter.write_line(f"kerntime: {len(recorded)} results{where}")
