"""kerntime.ab(): is B faster than A? Trials of two callables interleaved in one process.

Two separate runs minutes apart differ by more than most changes a kernel author judges (the clock
under the power cap, where buffers landed). ``ab`` runs one trial of A, one of B, one of B, one of
A, and again, so both sides see the same minutes of the GPU, and a linear drift cancels inside
every A B B A block. Every trial is a fresh preparation: ``bench`` makes new copies of the tensor
arguments (``input_sets``) and warms up again, so where one allocation landed is a random effect
of the trials, not a constant offset of a side. After each block a confidence sequence over the
blocks' paired log-ratios (Lai's t-mixture, valid when looked at after every block; the C++ core
in src/compare/confidence_sequence.cpp) is compared with the band; the run stops as soon as the
interval lies wholly above it (``slower``), below it (``faster``) or inside it (``same``), or says
``inconclusive`` with the interval reached at ``max_blocks`` or ``max_time``. The method and its
measured error rates are in docs/ab.md.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _kerntime
from .bench_function import bench
from .errors import InvalidArgument
from .message_words import counted
from .result import Result
from .session import session

# bench() options ab sets itself: one trial per call is what it interleaves.
_OWN_OPTIONS = ("trials", "stop_at_ci", "max_trials")
# The side of each trial of a block (docs/ab.md: A B B A).
_BLOCK_ORDER = ("a", "b", "b", "a")


@dataclass(frozen=True)
class KernelChange:
    """One kernel (name and kind) of either side: its mean time per iteration over the side's
    trials, in milliseconds; None on the side that did not run it."""

    name: str
    kind: str
    a_mean_ms: Optional[float]
    b_mean_ms: Optional[float]


@dataclass
class ABComparison:
    """B against A: ``ratio`` B/A of the trial medians (exp of the mean block log-ratio) with its
    interval, the ``verdict`` (slower, faster, same, inconclusive: B is slower than A, ...), the
    blocks it took, the ratio in cycles (time x each trial's on-GPU clock) when every trial
    measured its clock, every kernel of either side, and every Result."""

    verdict: str
    ratio: float
    ratio_low: float
    ratio_high: float
    band: float
    alpha: float
    blocks: int
    wall_seconds: float
    timer_resolution_ns: float
    cycles_ratio: Optional[float] = None
    cycles_low: Optional[float] = None
    cycles_high: Optional[float] = None
    cycles_verdict: Optional[str] = None
    notes: List[str] = field(default_factory=list)
    # Why the band is wider than the threshold asked ("threshold" when it is not): the blocks
    # spread so widely that the threshold was out of reach (run_ab).
    band_reason: str = "threshold"
    kernels: List[KernelChange] = field(default_factory=list)
    results_a: List[Result] = field(default_factory=list, repr=False)
    results_b: List[Result] = field(default_factory=list, repr=False)

    def __repr__(self) -> str:
        return (f"<ABComparison B/A {self.ratio:.4f} [{self.ratio_low:.4f}, "
                f"{self.ratio_high:.4f}] {self.verdict} (band ±{100 * self.band:g} %) after "
                f"{counted(self.blocks, 'block')}, {self.wall_seconds:.2f} s>")

    def __str__(self) -> str:
        lines = [f"B/A {self.ratio:.4f} ({100 * (self.ratio - 1):+.2f} %), "
                 f"{100 * (1 - self.alpha):g} % interval {self.ratio_low:.4f} … "
                 f"{self.ratio_high:.4f}: {self.verdict} (band ±{100 * self.band:g} %, "
                 f"{counted(self.blocks, 'block')} of A B B A, {self.wall_seconds:.2f} s)"]
        if self.cycles_ratio is not None:
            lines.append(f"in cycles {self.cycles_ratio:.4f} [{self.cycles_low:.4f}, "
                         f"{self.cycles_high:.4f}]: {self.cycles_verdict}")
        lines += self.notes
        return "\n".join(lines)


def ab(fn_a: Callable[..., Any], fn_b: Callable[..., Any], *args: Any, threshold: float = 0.01,
       alpha: float = 0.05, max_blocks: int = 50, max_time: float = 60.0,
       **options_and_kwargs: Any) -> ABComparison:
    """Is ``fn_b(*args, **kwargs)`` faster than ``fn_a(*args, **kwargs)``?

    Runs one trial of each in A B B A order (``bench(fn, *args, trials=1, ...)``: its warm-up,
    a fresh set of input copies and ``repeat`` flushed iterations), updates the interval of the
    ratio B/A after every block and stops when it decides against the band ±``threshold``
    (default 1 %), or at ``max_blocks`` blocks / ``max_time`` seconds with ``inconclusive``.
    From the 10th block on, blocks spread so widely that ``same`` at ±``threshold`` could not
    come within ``max_blocks`` go on with ``same`` judged at the narrowest band up to 5 x the
    threshold their spread could settle (``band``, ``band_reason``; ``slower`` and ``faster``
    stay at the threshold), and a spread that not even that could settle within twice
    ``max_blocks`` stops ``inconclusive`` sooner.
    ``alpha``: the chance that the interval ever misses the true ratio, over all the looks.
    Other keyword arguments are bench()'s options (``repeat``, ``warmup``, ``flush_l2``,
    ``input_sets``, ``metric``, ``backend``, ``stream``, ...) or fn's keyword arguments. ab's own
    (``threshold``, ``alpha``, ``max_blocks``, ``max_time``) never reach fn: a function that takes
    one of those names (``torch.addmm(..., alpha=)``) gets it through ``functools.partial``.
    Returns an ABComparison; raises InvalidArgument for bad options before anything runs."""
    if not hasattr(_kerntime, "SequentialRatio"):
        raise InvalidArgument(f"kerntime.ab: {_kerntime.compare_unavailable}")
    for name in _OWN_OPTIONS:
        if name in options_and_kwargs:
            raise InvalidArgument(f"kerntime.ab runs one trial per call and decides when to stop "
                                  f"itself: drop {name}=")
    if options_and_kwargs.get("cuda_graph") == "both":
        raise InvalidArgument("kerntime.ab compares two callables: pass cuda_graph=True or False")

    def measure(fn: Callable[..., Any]) -> Callable[[], Result]:
        return lambda: bench(fn, *args, trials=1, **options_and_kwargs)

    with session():  # CUPTI kept initialised from trial to trial (kerntime.session)
        return run_ab(measure(fn_a), measure(fn_b), threshold=threshold, alpha=alpha,
                      max_blocks=max_blocks, max_time=max_time)


def run_ab(measure_a: Callable[[], Result], measure_b: Callable[[], Result], *,
           threshold: float = 0.01, alpha: float = 0.05, max_blocks: int = 50,
           max_time: float = 60.0, clock: Callable[[], float] = time.monotonic) -> ABComparison:
    """The A/B loop over two callables that each measure one trial and return its Result: what
    ab() runs, and what the CPU tests drive with fixed results."""
    _check_options(threshold, alpha, max_blocks, max_time)
    started = clock()
    results: Dict[str, List[Result]] = {"a": [], "b": []}
    measure = {"a": measure_a, "b": measure_b}
    time_blocks: List[float] = []
    cycle_blocks: List[Optional[float]] = []
    sequence = None
    step = 0.0
    # Blocks spread too widely to settle `same` within max_blocks go on with `same` at the band
    # their spread could settle (up to 5 x the threshold; `slower` and `faster` stay at the
    # threshold), and are given up where not even that band could within twice max_blocks (the
    # run's rule, in C++).
    give_up_beyond = _kerntime.give_up_margin * max_blocks
    widest = _kerntime.widest_band_factor * threshold
    band = threshold  # the band `same` is judged at
    band_reason = "threshold"
    while len(time_blocks) < max_blocks:
        block: List[Result] = []
        for side in _BLOCK_ORDER:
            result = measure[side]()
            results[side].append(result)
            block.append(result)
        time_blocks.append(_kerntime.block_log_ratio([_time_ns(r) for r in block]))
        cycle_blocks.append(_cycles_log_ratio(block))
        if sequence is None:  # the timer's resolution, relative to the times, bounds the interval
            step = _resolution(block)
            sequence = _kerntime.SequentialRatio(alpha, step)
        sequence.add_block(time_blocks[-1])
        gave_up = False
        if sequence.decision(threshold, band) == "undecided":
            gave_up, wider = _kerntime.look_at_spread(sequence, threshold, band, max_blocks,
                                                      widest, give_up_beyond)
            if wider is not None:
                needed = sequence.observations_to_decide(threshold)
                band_reason = (
                    f"spread floor: the blocks spread so widely that same at ±{100 * threshold:g} "
                    f"% would take {'~' + str(needed) if needed else 'more'} of them, more than "
                    f"the {max_blocks} of max_blocks; same judged at ±{100 * wider:g} % instead, "
                    f"the narrowest band that spread could settle within them (slower and faster "
                    f"still at ±{100 * threshold:g} %)")
                band = wider
        if (sequence.decision(threshold, band) != "undecided" or clock() - started >= max_time
                or sequence.no_verdict_reachable(band) or gave_up):
            break
    assert sequence is not None  # max_blocks >= 1: at least one block ran
    ratio, low, high = sequence.interval()
    comparison = ABComparison(
        verdict=sequence.conclusion(threshold, band), ratio=ratio, ratio_low=low,
        ratio_high=high, band=band, band_reason=band_reason, alpha=alpha,
        blocks=sequence.blocks, wall_seconds=clock() - started,
        timer_resolution_ns=max(r.timer_resolution_ns for r in results["a"] + results["b"]),
        results_a=results["a"], results_b=results["b"],
        kernels=_kernel_changes(results["a"], results["b"]))
    _add_cycles(comparison, cycle_blocks, threshold, band)
    if band_reason != "threshold":
        comparison.notes.append(band_reason)
    if comparison.verdict == "inconclusive" and sequence.no_verdict_reachable(band):
        comparison.notes.append(
            f"stopped after {counted(comparison.blocks, 'block')}: the timer's resolution alone is "
            f"±{100 * step:.1f} % of the time, as wide as the band (±{100 * band:g} %), so "
            f"same cannot be reached, and the interval without it already lies inside the band, "
            f"so neither can slower or faster; measure more work per call or widen threshold")
    elif comparison.verdict == "inconclusive" and gave_up:
        comparison.notes.append(
            f"stopped after {counted(comparison.blocks, 'block')}: they spread so widely that "
            f"even a ratio of exactly 1 would need more than {give_up_beyond} blocks to settle "
            f"within ±{100 * max(widest, band):g} %, twice max_blocks; raise max_blocks or "
            f"widen threshold")
    elif comparison.verdict == "inconclusive":
        comparison.notes.append(
            f"inconclusive after {counted(comparison.blocks, 'block')}: the interval "
            f"[{low:.4f}, {high:.4f}] still crosses the band's edge (±{100 * band:g} %); "
            f"raise max_blocks or max_time, or widen threshold")
    return comparison


def _check_options(threshold: float, alpha: float, max_blocks: int, max_time: float) -> None:
    if not (isinstance(threshold, (int, float)) and 0 < threshold < 1):
        raise InvalidArgument(f"threshold must be a fraction in (0, 1), e.g. 0.01 for ±1 % "
                              f"(got {threshold!r})")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InvalidArgument(f"alpha must be in (0, 1), e.g. 0.05 (got {alpha!r})")
    if not (isinstance(max_blocks, int) and max_blocks >= 1):
        raise InvalidArgument(f"max_blocks must be a whole number of at least 1; the interval "
                              f"needs 3 blocks to bound the ratio (got {max_blocks!r})")
    if not (isinstance(max_time, (int, float)) and max_time > 0 and math.isfinite(max_time)):
        raise InvalidArgument(f"max_time must be a number of seconds above 0 (got {max_time!r})")


def _time_ns(result: Result) -> float:
    """The preparation's time the decision reads: the clipped mean of its trial's readings of the
    headline metric, finer than the timer's step (one trial per result; docs/ab.md)."""
    return _kerntime.preparation_time_ns(result.measurement)


def _resolution(block: List[Result]) -> float:
    """The finest ratio the block's trials resolve (the interval is never narrower)."""
    return _kerntime.resolution_fraction([r.measurement for r in block])


def _cycles_log_ratio(block: List[Result]) -> Optional[float]:
    """The block's log-ratio in cycles (each trial's median x its on-GPU SM clock), or None
    when a trial has no clock reading (telemetry off, CUDA events without the clock check)."""
    cycles = []
    for r in block:
        clocks = [t.measured_sm_clock_mhz for t in r.telemetry.trials]
        if not clocks or clocks[-1] is None:
            return None
        cycles.append(_time_ns(r) * clocks[-1])
    return _kerntime.block_log_ratio(cycles)


def _add_cycles(comparison: ABComparison, blocks: List[Optional[float]], band: float,
                same_band: float = 0.0) -> None:
    """The same sequence in cycles; a note when it does not give the verdict time gives."""
    if not blocks or any(b is None for b in blocks):
        return
    sequence = _kerntime.SequentialRatio(comparison.alpha, 0.0)
    for log_ratio in blocks:
        sequence.add_block(log_ratio)
    comparison.cycles_ratio, comparison.cycles_low, comparison.cycles_high = sequence.interval()
    comparison.cycles_verdict = sequence.conclusion(band, same_band)
    if (comparison.verdict in ("slower", "faster")
            and comparison.cycles_verdict != comparison.verdict):
        comparison.notes.append(
            f"{comparison.verdict} in time but {comparison.cycles_verdict} in cycles (B/A "
            f"{comparison.cycles_ratio:.4f}): the on-GPU clocks of the two sides' trials "
            f"differed, so the clock may explain the time; run again, or compare cycles")


def _kernel_changes(results_a: List[Result], results_b: List[Result]) -> List[KernelChange]:
    """Every kernel of either side with its mean time per iteration over the side's trials,
    largest first."""
    means: Dict[Tuple[str, str], List[Optional[float]]] = {}
    for index, results in enumerate((results_a, results_b)):
        totals: Dict[Tuple[str, str], float] = {}
        for r in results:
            for k in r.kernels:
                totals[(k.name, k.kind)] = totals.get((k.name, k.kind), 0.0) + k.mean_ms
        for key, total in totals.items():
            means.setdefault(key, [None, None])[index] = total / len(results)
    changes = [KernelChange(name, kind, a, b) for (name, kind), (a, b) in means.items()]
    changes.sort(key=lambda c: -max(c.a_mean_ms or 0.0, c.b_mean_ms or 0.0))
    return changes
