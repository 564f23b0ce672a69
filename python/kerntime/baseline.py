"""The pytest plugin's ``--kerntime-baseline FILE``: each test's results compared with the same
states of a kerntime JSON written earlier (``--kerntime-json``, ``kerntime run --json``).

The comparison is kerntime's C++ compare (docs/compare.md), one test at a time, as soon as the
test has recorded its results; this module turns its verdicts into what pytest shows: JUnit
properties, the failure of a test that got slower (``--kerntime-fail-on-regression``) and the
terminal summary. A result is found in the baseline by its state name, the test id with the axes
``result`` and ``role`` (session_report.state_name), as the session's JSON names it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

from . import _kerntime, session_report
from .errors import KerntimeError
from .message_words import counted
from .session_report import RecordedResult

NOT_IN_BASELINE = "not in the baseline"


@dataclass
class ComparedResult:
    """One recorded result against the baseline: compare's verdict, or why there is none."""

    recorded: RecordedResult
    state_name: str
    state: Optional["_kerntime.StateComparison"] = None
    not_compared: str = ""  # NOT_IN_BASELINE, "base failed (...)", or compare's refusal


@dataclass
class TestComparison:
    """One test's results against the baseline."""

    __test__ = False  # not a test class, despite its name

    results: List[ComparedResult] = field(default_factory=list)
    regression: bool = False  # compare's has_regression: a state got slower beyond its band
    refused: str = ""  # compare refused the comparison (different GPUs): nothing was compared


def _change(ratio: float) -> str:
    return f"{100 * (ratio - 1):+.2f} %"


class Baseline:
    """The baseline file, read once at session start, and every comparison made against it."""

    def __init__(self, path: str, threshold: str, alpha: str,
                 on_clock_mismatch: str = "warn") -> None:
        if not hasattr(_kerntime, "compare_results"):
            raise pytest.UsageError(f"--kerntime-baseline: {_kerntime.compare_unavailable}")
        if not hasattr(_kerntime, "read_result_set"):
            raise pytest.UsageError(f"--kerntime-baseline: {_kerntime.results_unreadable}")
        try:
            alpha_value = float(alpha)
        except ValueError:
            raise pytest.UsageError(f"--kerntime-alpha {alpha} is not a number; pass e.g. "
                                    "--kerntime-alpha 0.05 for 95 % intervals") from None
        try:
            # One test's results at a time: a test not in the baseline is not an error.
            self.options = _kerntime.CompareOptions(threshold, alpha_value,
                                                    require_common_state=False,
                                                    on_clock_mismatch=on_clock_mismatch)
        except KerntimeError as error:
            raise pytest.UsageError(
                f"--kerntime-threshold {threshold} --kerntime-alpha {alpha}: {error}") from None
        try:
            base = _kerntime.read_result_set(path)
        except KerntimeError as error:
            raise pytest.UsageError(f"--kerntime-baseline: {error}") from None
        self.path = str(path)
        self._context = base.context
        self._runs: Dict[str, List[Any]] = {}
        for run in base.runs:
            self._runs.setdefault(run.state_name, []).append(run)
        self.results: List[ComparedResult] = []
        self._compared: set = set()  # id() of the recorded results already compared

    def compare_test(self, recorded: Sequence[RecordedResult]) -> Optional[TestComparison]:
        """Compares the test's results not compared yet; None when there are none."""
        pending = [r for r in recorded if id(r) not in self._compared]
        if not pending:
            return None
        self._compared.update(id(r) for r in pending)
        runs = [session_report.benchmark_run(r) for r in pending]
        test = TestComparison([ComparedResult(r, run.state_name) for r, run in zip(pending, runs)])
        self.results.extend(test.results)
        base_runs = [b for run in runs for b in self._base_runs(run.state_name)]
        try:
            comparison = _kerntime.compare_results(
                _kerntime.ResultSet(self._context, base_runs),
                _kerntime.ResultSet(_kerntime.RunContext(), runs), self.options)
        except KerntimeError as error:
            test.refused = str(error)
            for compared in test.results:
                compared.not_compared = f"compare refused: {error}"
            return test
        test.regression = comparison.has_regression
        states = {s.state_name: s for s in comparison.states}
        for compared in test.results:
            name = compared.state_name
            if name in states:
                compared.state = states[name]
            elif name in comparison.only_in_new:
                compared.not_compared = NOT_IN_BASELINE
            else:  # failed or skipped on a side: compare says "state: why"
                compared.not_compared = next(
                    (why[len(name) + 2:] for why in comparison.not_compared
                     if why.startswith(name + ": ")), "not compared")
        return test

    def _base_runs(self, name: str) -> List[Any]:
        """The baseline's runs of the state `name`. A baseline written before test names were
        relative to the config's folder may name it with a longer or shorter path to the test
        file ("work/ops/test_ops.py::…" for "test_ops.py::…"): one such name, and only one, is
        taken as the same state and renamed."""
        if name in self._runs:
            return self._runs[name]
        older = [k for k in self._runs if k.endswith("/" + name) or name.endswith("/" + k)]
        if len(older) != 1:
            return []
        runs = self._runs.pop(older[0])
        for run in runs:
            run.state_name = name
        self._runs[name] = runs
        return runs

    def matched_nothing(self, session: Sequence[RecordedResult]) -> bool:
        """True when the session recorded results, the baseline has states, and not one of
        them was found in the baseline: the names do not fit (another suite, another layout)."""
        return bool(session) and bool(self._runs) and not any(
            c.not_compared != NOT_IN_BASELINE for c in self.results)

    def nothing_matched(self, session: Sequence[RecordedResult]) -> str:
        """The error when no result was found in the baseline, with a few names of each side."""
        ours = sorted({session_report.state_name(r) for r in session})
        theirs = sorted(self._runs)
        return (f"kerntime: error: none of this session's {counted(len(ours), 'result')} is in "
                f"the baseline {self.path} ({counted(len(theirs), 'state')}), so nothing was "
                f"compared; this session: "
                f"{', '.join(ours[:3])}{', …' if len(ours) > 3 else ''}; the baseline: "
                f"{', '.join(theirs[:3])}{', …' if len(theirs) > 3 else ''}. Write the baseline "
                "with --kerntime-json from the same tests, run from the same folder")

    def describe(self, state: "_kerntime.StateComparison") -> str:
        """One line: the state, the ratio NEW/BASE, its interval and the band."""
        confidence = f"{100 * (1 - self.options.alpha):g} %"
        text = (f"{state.state_name}: ratio {state.ratio:.4f} ({_change(state.ratio)}), "
                f"{confidence} interval {state.ratio_low:.4f} … {state.ratio_high:.4f} "
                f"({_change(state.ratio_low)} … {_change(state.ratio_high)}), "
                f"band ±{100 * state.band:.1f} %")
        if state.band_reason != "threshold":
            text += f" ({state.band_reason})"
        if state.units_needed is not None:
            text += f"; ~{state.units_needed} {state.unit} per side would settle it"
        return text

    def render_html(self, context: Any, runs: Sequence[Any]) -> str:
        """The HTML report of ``runs`` with every verdict of this session shown against the
        baseline (its ratio and interval)."""
        states = [c.state for c in self.results if c.state is not None]
        base = self._context.device.name if self._context.device is not None else ""
        new = context.device.name if context.device is not None else ""
        return _kerntime.render_html_compared(context, list(runs), states, self.options, base, new)

    def failure(self, test: TestComparison) -> Optional[str]:
        """Why the test fails the gate (a state got slower, or compare refused), else None."""
        if test.refused:
            return (f"kerntime: could not compare with the baseline {self.path}: {test.refused}")
        if not test.regression:
            return None
        lines = [f"kerntime: slower than the baseline {self.path}:"]
        lines += ["  " + self.describe(c.state) for c in test.results
                  if c.state is not None and c.state.regression]
        return "\n".join(lines)

    @staticmethod
    def properties(compared: ComparedResult, prefix: str) -> List[Tuple[str, Any]]:
        """The JUnit properties of one result's comparison, named with the result's prefix."""
        state = compared.state
        if state is None:
            return [(prefix + "not_compared", compared.not_compared)]
        properties: List[Tuple[str, Any]] = [
            (prefix + "verdict", state.verdict_text),
            (prefix + "ratio_vs_baseline", state.ratio),
            (prefix + "ratio_vs_baseline_low", state.ratio_low),
            (prefix + "ratio_vs_baseline_high", state.ratio_high),
            (prefix + "band", state.band),
        ]
        if state.band_reason != "threshold":
            properties.append((prefix + "band_reason", state.band_reason))
        if state.units_needed is not None:
            properties.append((prefix + "units_needed", state.units_needed))
        properties.extend((prefix + "compare_note", note) for note in state.notes)
        return properties

    def summary(self, session: Sequence[RecordedResult]) -> List[Tuple[str, bool]]:
        """The terminal summary's lines, each with whether it is a regression: counts per
        verdict, then every state not `same` (regressions first), then the states without a
        verdict and those of the baseline this session never measured."""
        compared = [c for c in self.results if c.state is not None]
        counts = Counter(c.state.verdict for c in compared)
        lines = [(f"{counted(len(compared), 'result')} compared with {self.path}: "
                  f"{counts['slower']} slower, "
                  f"{counts['faster']} faster, {counts['same']} same, "
                  f"{counts['inconclusive']} inconclusive (band ±"
                  f"{100 * self.options.threshold:.1f} % or the state's floor)", False)]
        for verdict in ("slower", "inconclusive", "faster"):
            lines += [(f"{c.state.verdict_text}: {self.describe(c.state)}", c.state.regression)
                      for c in compared if c.state.verdict == verdict]
        lines += [(f"{NOT_IN_BASELINE} (no verdict): {c.state_name}", False)
                  for c in self.results if c.not_compared == NOT_IN_BASELINE]
        lines += [(f"not compared: {c.state_name}: {c.not_compared}", False)
                  for c in self.results
                  if c.state is None and c.not_compared != NOT_IN_BASELINE]
        seen = {session_report.state_name(r) for r in session}
        lines += [(f"in the baseline, not measured in this session: {name}", False)
                  for name in self._runs if name not in seen]
        return lines
