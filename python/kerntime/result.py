"""Result: what kerntime.bench() returns, in milliseconds.

A thin view of the C++ measurement_result (``Result.measurement``): nothing is recomputed here,
times are only converted from nanoseconds. ``to_json()`` is the C++ engine's own serialisation
(the "result" object of the kerntime JSON schema) and ``to_dict()`` is that JSON parsed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Dict, List, Optional, Tuple

from . import _kerntime
from .message_words import counted

_NS_PER_MS = 1e6


@dataclass(frozen=True)
class Kernel:
    """One row of the per-kernel breakdown: all GPU records of one name and kind."""

    name: str
    kind: str  # "kernel", "memset" or "memcpy"
    calls_per_iteration: float
    mean_ms: float  # per iteration, summed over the calls
    median_ms: float
    share: float  # of the mean busy time of an iteration, 0..1


@dataclass(frozen=True)
class Sample:
    """One measured iteration."""

    span_ms: float  # first GPU record start to last GPU record end
    busy_ms: float  # sum of GPU record durations


@dataclass(frozen=True)
class Statistics:
    """Summary statistics of one per-iteration quantity, in milliseconds."""

    count: int
    median_ms: float
    mean_ms: float
    stdev_ms: float  # sample standard deviation
    min_ms: float
    max_ms: float
    p10_ms: float
    p90_ms: float
    cv: float  # stdev over mean

    @staticmethod
    def from_summary(s: Any) -> "Statistics":
        return Statistics(s.count, s.median / _NS_PER_MS, s.mean / _NS_PER_MS,
                          s.stdev / _NS_PER_MS, s.min / _NS_PER_MS, s.max / _NS_PER_MS,
                          s.p10 / _NS_PER_MS, s.p90 / _NS_PER_MS, s.cv)


@dataclass(frozen=True)
class Telemetry:
    """The GPU's state: static facts (``device``) and per-trial readings (``trials``), as the
    engine's DeviceTelemetry and TrialTelemetry objects (clocks in MHz, power in W)."""

    device: Any
    trials: Tuple[Any, ...]

    @property
    def throttled_trials(self) -> List[int]:
        return [index for index, trial in enumerate(self.trials) if trial.throttled]


class Result:
    """One measurement. Times are in milliseconds; ``latency_ms`` is the headline (median of
    the protocol's metric, span by default, over every measured iteration)."""

    def __init__(self, measurement: "_kerntime.MeasurementResult", flops: Optional[float] = None,
                 bytes: Optional[float] = None, precision: Optional[str] = None) -> None:
        if not isinstance(measurement, _kerntime.MeasurementResult):
            raise TypeError("Result wraps a kerntime._kerntime.MeasurementResult; use "
                            "kerntime.bench() to make one")
        self.measurement = measurement
        self.flops = flops  # per iteration, as declared to bench()
        self.bytes = bytes  # read + written per iteration, as declared
        self.precision = precision  # kerntime's name of the unit the flops ran on

    @property
    def tflops(self) -> Optional[float]:
        """Declared flops per second of the headline latency, in TFLOP/s; None without flops."""
        if self.flops is None or not self.latency_ms > 0:
            return None
        return self.flops / (self.latency_ms * 1e-3) / 1e12

    @property
    def gbps(self) -> Optional[float]:
        """Declared bytes per second of the headline latency, in GB/s; None without bytes."""
        if self.bytes is None or not self.latency_ms > 0:
            return None
        return self.bytes / (self.latency_ms * 1e-3) / 1e9

    @cached_property
    def speed_of_light(self) -> Optional["_kerntime.SpeedOfLight"]:
        """How close the declared work came to the GPU's peaks: ``precision``,
        ``peak_flops_per_s``, ``peak_bytes_per_s``, ``compute_pct``, ``memory_pct``, ``bound``
        ("compute" or "memory"), ``roofline_ns`` and ``peak_source``, computed by the C++ code
        `kerntime run` uses. None when no work was declared or the GPU is not in the peak table."""
        if self.flops is None and self.bytes is None:
            return None
        return _kerntime.speed_of_light(self.measurement, self.flops, self.bytes, self.precision)

    @property
    def latency_ms(self) -> float:
        return self.measurement.latency_ns / _NS_PER_MS

    @property
    def stdev_ms(self) -> float:
        """Sample standard deviation of the headline metric over every measured iteration."""
        return self.measurement.stats.stdev / _NS_PER_MS

    @property
    def timing_backend(self) -> str:
        """"cupti" (pure GPU time of the records) or "events" (the CUDA-event fallback)."""
        return self.measurement.backend

    @property
    def backend_reason(self) -> str:
        return self.measurement.backend_reason

    @property
    def launch(self) -> str:
        """"stream" (fn called every iteration) or "graph" (bench(cuda_graph=True): fn captured
        once per input set into a CUDA graph, one graph launch per iteration)."""
        return self.measurement.protocol_used.launch

    @property
    def counters(self) -> "_kerntime.Counters":
        """The counter pass (bench(counters=True)): ``status`` ("measured", "unavailable" with
        ``reason``, or "not_requested"), ``chip``, ``metrics``, ``passes``, ``seconds``, per kernel
        ``kernels[i].metrics`` and ``.derived`` (dram_bytes, dram_bytes_per_second,
        dram_fraction_of_peak, dram_percent_of_peak, compute_percent_of_peak, bound), the iteration's ``metrics_total``
        and ``derived``, and ``mismatches`` between profiled and timed kernels."""
        return self.measurement.counters

    @property
    def cupti_mode(self) -> str:
        """How CUPTI was held: "subscribed" (kerntime's own subscription),
        "shared_with_idle_torch_profiler" (the Activity API alone, beside an idle
        torch.profiler that holds the subscription) or "none" (CUDA events)."""
        return self.measurement.cupti_mode

    @property
    def metric(self) -> str:
        return self.measurement.protocol_used.metric

    @cached_property
    def kernels(self) -> List[Kernel]:
        """Every kernel, memset and memcpy of an iteration, in the engine's order (top_kernels()
        sorts by time). Empty with CUDA events, which see no kernels."""
        return [Kernel(k.name, k.kind, k.calls_per_iteration, k.mean_ns / _NS_PER_MS,
                       k.median_ns / _NS_PER_MS, k.share) for k in self.measurement.kernels]

    @cached_property
    def samples(self) -> List[List[Sample]]:
        """Per trial, every measured iteration."""
        return [[Sample(i.span_ns / _NS_PER_MS, i.busy_ns / _NS_PER_MS) for i in trial.iterations]
                for trial in self.measurement.trials]

    @cached_property
    def stats(self) -> Statistics:
        """Of the headline metric."""
        return Statistics.from_summary(self.measurement.stats)

    @cached_property
    def span_stats(self) -> Statistics:
        return Statistics.from_summary(self.measurement.span)

    @cached_property
    def busy_stats(self) -> Statistics:
        return Statistics.from_summary(self.measurement.busy)

    @cached_property
    def trial_means_ms(self) -> List[float]:
        return [mean / _NS_PER_MS for mean in self.measurement.trials_summary.means]

    @property
    def trial_stdev_ms(self) -> float:
        """Standard deviation of the trial means: how much a whole trial moves run to run."""
        return self.measurement.trials_summary.stdev_of_means / _NS_PER_MS

    @cached_property
    def telemetry(self) -> Telemetry:
        return Telemetry(self.measurement.telemetry,
                         tuple(trial.telemetry for trial in self.measurement.trials))

    @cached_property
    def warnings(self) -> List[str]:
        return list(self.measurement.warnings)

    @property
    def device(self) -> Any:
        return self.measurement.device

    @property
    def protocol(self) -> Any:
        return self.measurement.protocol_used

    @property
    def stopping(self) -> Any:
        """Which stopping rule ran and what it reached: ``trials``, ``stopped_because``
        ("trial_count", "interval_reached", "max_trials", "max_time",
        "timer_resolution"), ``median_interval`` (low,
        high in ns and confidence; None with fewer than 6 trials), ``half_width`` (fraction of
        the median), ``warmup_iterations`` and ``warmup_settled``."""
        return self.measurement.stopping

    @property
    def timer_resolution_ns(self) -> float:
        """The timer's step, measured from what it reported (32 ns for CUPTI on an H200); every
        interval includes it. 0 when not known."""
        return self.measurement.timer_resolution_ns

    @property
    def preparations(self) -> int:
        """How many fresh preparations the trials came from: 1 for one bench() call, more for a
        state of `kerntime run` (each trial its own by default) or a side of an A/B run."""
        return self.measurement.preparations

    @property
    def preparation_spread(self) -> "float | None":
        """With 2 or more preparations, the standard deviation of the log of each one's time,
        as a fraction: how far this work moves from one preparation to the next in a process,
        the floor under comparing it (docs/ab.md). None with one."""
        return self.measurement.preparation_spread

    @property
    def wall_seconds(self) -> float:
        """Host wall time of the whole measurement, warmup included."""
        return self.measurement.wall_seconds

    @property
    def host_phases(self) -> Dict[str, float]:
        """Where ``wall_seconds`` went, in seconds, phase by phase: prepare, warmup, attach,
        first_calls, trials (of which telemetry), detach (of which counter_pass), summarise
        (docs/queue.md)."""
        return self.measurement.host_phases

    def top_kernels(self, count: int) -> List[Kernel]:
        return sorted(self.kernels, key=lambda k: k.mean_ms, reverse=True)[:count]

    def to_json(self) -> str:
        return _kerntime.to_json(self.measurement)

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self.to_json())

    def __repr__(self) -> str:
        return (f"<kerntime.Result {self.latency_ms:.4f} ms ± {self.stdev_ms:.4f} "
                f"({self.metric}, {self.timing_backend}), {counted(len(self.kernels), 'kernel')}>")

    def __str__(self) -> str:
        lines = [f"{self.latency_ms:.4f} ms ± {self.stdev_ms:.4f} ms "
                 f"(median {self.metric}, {self.timing_backend}: {self.backend_reason})"]
        for kernel in self.kernels:
            lines.append(f"  {kernel.mean_ms:.4f} ms  {kernel.share:6.1%}  "
                         f"x{kernel.calls_per_iteration:g}  {kernel.name}")
        lines.extend(f"  warning: {warning}" for warning in self.warnings)
        return "\n".join(lines)
