"""The pytest plugin's session report: every result recorded during a pytest session, written at
the end as kerntime JSON and as markdown.

The JSON and the per-result details come from the C++ report writers (one serialisation for the
whole project); this module adds only the summary table the plugin owns: one row per result,
grouped by test, with each baseline next to its test's main result and their ratio. The JSON is
also how results travel between processes (pytest-xdist's workers, xdist_workers.py): read_json
is render_json's inverse, through the C++ reader.
"""

from __future__ import annotations

import datetime
import os
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Tuple

from . import _kerntime
from .result import Result

if TYPE_CHECKING:  # baseline imports this module
    from .baseline import Baseline


@dataclass
class RecordedResult:
    """One result recorded by a test (or one that failed: then ``result`` is None)."""

    test: str  # the pytest node id
    label: str  # unique within the test: the name given, "baseline", or "result"
    baseline: bool
    main: bool  # the test's first non-baseline result, which baselines are compared to
    result: Optional[Result] = None
    error_kind: str = ""  # for failed runs: "cupti_unavailable", "benchmark_failed", ...
    message: str = ""
    ratio: Optional[float] = None  # baselines: main latency / this latency


def ratios(recorded: Sequence[RecordedResult]) -> None:
    """Sets ``ratio`` on each baseline of one test: the main latency over the baseline's, so
    below 1 means the main result is faster."""
    main = next((r for r in recorded if r.main and r.result is not None), None)
    for r in recorded:
        if r.baseline and main is not None and r.result is not None and r.result.latency_ms > 0:
            r.ratio = main.result.latency_ms / r.result.latency_ms


def _axes(recorded: RecordedResult) -> List[Tuple[str, str]]:
    role = "baseline" if recorded.baseline else ("main" if recorded.main else "other")
    return [("result", recorded.label), ("role", role)]


def state_name(recorded: RecordedResult) -> str:
    """The result's identity in the JSON: the test id with axes ``result`` and ``role``, so a
    later session finds it again in a baseline file."""
    return _kerntime.make_state_name(recorded.test, _axes(recorded))


def benchmark_run(recorded: RecordedResult) -> "_kerntime.BenchmarkRun":
    """The result as the C++ reports and compare read it."""
    run = _kerntime.BenchmarkRun()
    run.benchmark = recorded.test
    run.axes = _axes(recorded)
    run.state_name = state_name(recorded)
    if recorded.result is None:
        run.status = "failed"
        run.error_kind = recorded.error_kind
        run.message = recorded.message
    else:
        run.result = recorded.result.measurement
        run.flops = recorded.result.flops
        run.bytes = recorded.result.bytes
        run.flops_precision = recorded.result.precision
        run.speed_of_light = recorded.result.speed_of_light
    return run


def recorded_result(run: "_kerntime.BenchmarkRun") -> RecordedResult:
    """A result read back from kerntime JSON: benchmark_run's inverse (the ratio aside, which
    read_json sets)."""
    axes = dict(run.axes)
    role = axes.get("role", "")
    result = (Result(run.result, run.flops, run.bytes, run.flops_precision)
              if run.result is not None else None)
    return RecordedResult(run.benchmark, axes.get("result", ""), role == "baseline",
                          role == "main", result, run.error_kind, run.message)


def read_json(json_text: str, source: str) -> List[RecordedResult]:
    """The results of a render_json text, read back by the C++ reader (``source`` names the text
    in its errors), each baseline with its ratio to its test's main result."""
    recorded = [recorded_result(run) for run in _kerntime.parse_result_set(json_text, source).runs]
    for results in by_test(recorded):
        ratios(results)
    return recorded


def by_test(recorded: Sequence[RecordedResult]) -> List[List[RecordedResult]]:
    """The results grouped by test, tests in the order they first appear."""
    tests: Dict[str, List[RecordedResult]] = {}
    for r in recorded:
        tests.setdefault(r.test, []).append(r)
    return list(tests.values())


def in_test_order(recorded: Sequence[RecordedResult],
                  test_ids: Sequence[str]) -> List[RecordedResult]:
    """The results with their tests in the order of ``test_ids`` (pytest's collection order);
    a test not among them comes after those, by id. A test's own results keep their order."""
    rank = {test: index for index, test in enumerate(test_ids)}
    return sorted(recorded, key=lambda r: (0, rank[r.test], "") if r.test in rank
                  else (1, 0, r.test))


def _context(recorded: Iterable[RecordedResult], command_line: str) -> "_kerntime.RunContext":
    context = _kerntime.RunContext()
    context.kerntime_version = _kerntime.__version__
    context.command_line = command_line
    context.host_name = socket.gethostname()
    context.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    first = next((r.result for r in recorded if r.result is not None), None)
    if first is not None:
        context.device = first.measurement.device
        context.telemetry = first.measurement.telemetry
    return context


def _cell(text: str) -> str:
    # Test ids of parametrized tests can hold "|", which would end a markdown cell.
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _gpu(result: Result) -> str:
    # The markdown names no device elsewhere, and under pytest-xdist results come from several.
    return _cell(f"{result.device.ordinal}: {result.device.name}")


def summary_table(recorded: Sequence[RecordedResult]) -> str:
    lines = [
        "| test | result | latency (ms) | stdev (ms) | timer | GPU | main / baseline |",
        "|---|---|---:|---:|---|---|---:|",
    ]
    for r in recorded:
        label = r.label + (" (baseline)" if r.baseline and r.label != "baseline" else "")
        if r.result is None:
            lines.append(f"| {_cell(r.test)} | {_cell(label)} | failed: "
                         f"{_cell(r.error_kind + ': ' + r.message)} | | | | |")
            continue
        ratio = f"{r.ratio:.3f}" if r.ratio is not None else ""
        lines.append(f"| {_cell(r.test)} | {_cell(label)} | {r.result.latency_ms:.4f} | "
                     f"{r.result.stdev_ms:.4f} | {r.result.timing_backend} | {_gpu(r.result)} | "
                     f"{ratio} |")
    return "\n".join(lines) + "\n"


def _in_report_order(recorded: Sequence[RecordedResult]) -> List[RecordedResult]:
    # Tests in the order they ran; within a test the main result first, then its baselines.
    order = {}
    for r in recorded:
        order.setdefault(r.test, len(order))
    rank = lambda r: (order[r.test], 0 if r.main else (1 if r.baseline else 2))
    return sorted(recorded, key=rank)


def render_markdown(recorded: Sequence[RecordedResult], command_line: str) -> str:
    recorded = _in_report_order(recorded)
    details = _kerntime.render_report("markdown", _context(recorded, command_line),
                                      [benchmark_run(r) for r in recorded])
    return ("# kerntime results\n\n" + summary_table(recorded) + "\n## Details\n\n" + details)


def render_json(recorded: Sequence[RecordedResult], command_line: str) -> str:
    recorded = _in_report_order(recorded)
    return _kerntime.render_report("json", _context(recorded, command_line),
                                   [benchmark_run(r) for r in recorded])


def render_html(recorded: Sequence[RecordedResult], command_line: str,
                baseline: Optional["Baseline"] = None) -> str:
    """The C++ HTML report of the session (its charts per result); with the session's baseline,
    each compared result also shows its ratio to the baseline and the interval."""
    recorded = _in_report_order(recorded)
    context = _context(recorded, command_line)
    runs = [benchmark_run(r) for r in recorded]
    if baseline is not None:
        return baseline.render_html(context, runs)
    return _kerntime.render_report("html", context, runs)


def write(recorded: Sequence[RecordedResult], command_line: str, json_path: Optional[str],
          markdown_path: Optional[str], html_path: Optional[str] = None,
          baseline: Optional["Baseline"] = None) -> None:
    """Writes each report atomically (a reader never sees a partial file), creating missing
    folders."""
    for path in (json_path, markdown_path, html_path):
        if path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if json_path:
        _kerntime.write_file_atomically(json_path, render_json(recorded, command_line))
    if markdown_path:
        _kerntime.write_file_atomically(markdown_path, render_markdown(recorded, command_line))
    if html_path:
        _kerntime.write_file_atomically(html_path, render_html(recorded, command_line, baseline))
