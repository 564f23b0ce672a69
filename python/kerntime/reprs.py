"""Readable reprs for the extension's result objects (Counters, SpeedOfLight, StoppingSummary,
...): their fields by name, long lists counted instead of printed, so `print(result.counters)` in
a notebook says what is in it instead of `<kerntime._kerntime.Counters object at 0x…>`."""

from typing import Any

from . import _kerntime

# Every class the results hand out; a class that defines its own repr keeps it.
RESULT_CLASSES = (
    "AchievableSpeedOfLight", "BenchmarkRun", "Comparison", "CompareOptions",
    "ConfidenceInterval", "Counters", "CountersDerived", "DeviceInfo", "DeviceTelemetry",
    "GpuSnapshot", "IterationSample", "KernelCounters", "KernelSummary", "MeasurementResult",
    "Protocol", "ResultSet", "RunContext", "SpeedOfLight", "StateComparison", "StoppingSummary",
    "SummaryStatistics", "TraceRecord", "TrialResult", "TrialStatistics", "TrialTelemetry")

_LONGEST = 80  # characters of one field's value


def _short(value: Any) -> str:
    if isinstance(value, (list, tuple)) and len(value) > 4:
        return f"[{len(value)} items]"
    if isinstance(value, dict) and len(value) > 4:
        return f"{{{len(value)} entries}}"
    if isinstance(value, float):
        return f"{value:.6g}"
    text = repr(value)
    return text if len(text) <= _LONGEST else text[:_LONGEST - 3] + "..."


def readable_repr(obj: Any) -> str:
    cls = type(obj)
    parts = []
    for name in dir(cls):
        if name.startswith("_") or not isinstance(getattr(cls, name, None), property):
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 (a field that cannot be read is left out, not fatal)
            continue
        parts.append(f"{name}={_short(value)}")
    return f"{cls.__name__}({', '.join(parts)})"


def install() -> None:
    for name in RESULT_CLASSES:
        cls = getattr(_kerntime, name, None)
        if cls is not None and "__repr__" not in vars(cls):
            cls.__repr__ = readable_repr
