"""How many iterations a drop-in measures: the time budgets of do_bench-style calls as counts.

Triton's ``do_bench(warmup=25, rep=100)``, TileLang's and FlashInfer's benches take their budgets
in milliseconds and turn them into counts from a first estimate of one call: at the defaults a
5 us op runs ~1,000 event-timed iterations, each behind a 256 MB memset. kerntime's iterations
carry neither launch overhead nor the flush, so far fewer of them reach the same precision; the
budgets are read as upper bounds:

- measured iterations: ``rep / estimate``, at most 30 (30 per 100 ms where ``rep`` is larger
  than 100), at least 1, as up to 3 trials of equal length;
- warm-up iterations: ``warmup / estimate``, at most 5 (5 per 25 ms where ``warmup`` is larger
  than 25), at least 1 (the first call, which compiles or autotunes, comes before them);
- an explicit count (TileLang's ``_n_warmup``/``_n_repeat``, FlashInfer's ``dry_run_iters``/
  ``repeat_iters``) is used exactly.

``kerntime.testing.last_result().protocol`` shows what ran.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..errors import InvalidArgument

# At the adapters' default budgets (warmup 25 ms, rep 100 ms): 5 warm-up and 30 measured
# iterations. 30 CUPTI-timed iterations put the mean's standard error at a sixth of one
# iteration's spread; a 4096-cubed bf16 GEMM then costs ~8 ms of GPU time, not 100.
MEASURED_PER_100_MS = 30
WARMUP_PER_25_MS = 5
MOST_TRIALS = 3


@dataclass(frozen=True)
class Iterations:
    """The counts one drop-in call runs: warm-up, then ``trials`` x ``repeat``."""

    warmup: int
    trials: int
    repeat: int

    @property
    def measured(self) -> int:
        return self.trials * self.repeat


def _positive_budget(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 \
            or not math.isfinite(value):
        raise InvalidArgument(f"{name} is a time budget in milliseconds, a positive number "
                              f"(got {value!r}); e.g. {name}=100")
    return float(value)


def _exact_count(name: str, value: Any, zero_is_auto: bool) -> Optional[int]:
    """An explicit iteration count, or None where the budget decides: None, and 0 where 0 means
    "auto" (TileLang's ``_n_warmup=0``; FlashInfer's ``dry_run_iters=0`` is no warm-up)."""
    if value is None or (zero_is_auto and not isinstance(value, bool) and value == 0):
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgument(f"{name} is a number of iterations, a whole number >= 0 "
                              f"(got {value!r}); 0 or None lets the time budget decide")
    return value


def _within(budget_ms: float, estimate_ms: Optional[float], most: int) -> int:
    if estimate_ms is None or not estimate_ms > 0:
        return most
    return max(1, min(most, int(budget_ms / estimate_ms)))


def _split(measured: int) -> tuple:
    """Up to MOST_TRIALS trials of equal length that hold exactly `measured` iterations."""
    for trials in range(min(MOST_TRIALS, measured), 0, -1):
        if measured % trials == 0:
            return trials, measured // trials
    return 1, measured


def iterations_for(warmup_ms: Any, rep_ms: Any, estimate_ms: Optional[float],
                   warmup_count: Any = None, repeat_count: Any = None,
                   names: tuple = ("warmup", "rep", "n_warmup", "n_repeat"),
                   zero_is_auto: bool = True) -> Iterations:
    """The counts for budgets `warmup_ms` and `rep_ms` given one call's `estimate_ms` (None: no
    estimate, the budgets' caps apply), or the exact counts where given. `names` are the
    caller's own parameter names, used in messages; `zero_is_auto`: whether a count of 0 means
    "let the budget decide"."""
    warmup_name, rep_name, warmup_count_name, repeat_count_name = names
    warmup_ms = _positive_budget(warmup_name, warmup_ms)
    rep_ms = _positive_budget(rep_name, rep_ms)
    exact_warmup = _exact_count(warmup_count_name, warmup_count, zero_is_auto)
    exact_repeat = _exact_count(repeat_count_name, repeat_count, zero_is_auto)
    if exact_repeat == 0:
        raise InvalidArgument(f"{repeat_count_name} must be at least 1 (got 0): at least one "
                              "iteration is measured")
    most_measured = math.ceil(MEASURED_PER_100_MS * max(1.0, rep_ms / 100))
    most_warmup = math.ceil(WARMUP_PER_25_MS * max(1.0, warmup_ms / 25))
    measured = exact_repeat if exact_repeat is not None else _within(rep_ms, estimate_ms, most_measured)
    warmup = exact_warmup if exact_warmup is not None else _within(warmup_ms, estimate_ms,
                                                                   most_warmup)
    trials, repeat = _split(measured)
    return Iterations(warmup=warmup, trials=trials, repeat=repeat)


def estimate_call_ms(fn: Callable[[], Any]) -> Optional[float]:
    """One call's time in ms, host wall around the call and a device synchronize, after a first
    call (JIT compilation, autotuning). An upper bound of its GPU time: it only ever shrinks
    the counts of slow ops. None where PyTorch is not imported (the caps then apply)."""
    torch = sys.modules.get("torch")
    synchronize = getattr(getattr(torch, "cuda", None), "synchronize", None)
    fn()
    if synchronize is None:
        return None
    synchronize()
    start = time.perf_counter()
    fn()
    synchronize()
    return (time.perf_counter() - start) * 1e3
