"""TileLang's ``tilelang.profiler.do_bench`` (which ``Profiler.do_bench`` calls), measured by
kerntime. Same signature and return convention; the arguments that name a way of timing map to
kerntime's, listed in the docstring.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, List, Optional, Union

from ..errors import InvalidArgument
from .budget import estimate_call_ms, iterations_for
from .drop_in import iteration_times_ms, measure, refuse_inside_capture
from .summary import check_quantiles, check_return_mode, summarise

BACKENDS = ("event", "cupti", "cudagraph")


def do_bench(fn: Callable[[], Any], warmup: float = 25, rep: float = 100, _n_warmup: int = 0,
             _n_repeat: int = 0, quantiles: Optional[List[float]] = None, fast_flush: bool = True,
             backend: str = "event", return_mode: str = "mean", device: Any = None,
             cache_size: int = 256,
             early_stop_baseline: Optional[float] = None) -> Union[float, List[float]]:
    """Benchmark the runtime of a function with L2 cache management, as TileLang's ``do_bench``
    does, measured by kerntime: each iteration's GPU time from CUPTI on a cold L2, the flush
    outside the timed window, launch overhead excluded.

    Args, and how each maps:
        fn: Function to benchmark, called with no arguments.
        warmup, rep: Time budgets in ms, upper bounds (kerntime.testing.budget): at most 5
            warm-up and 30 measured iterations at these defaults, fewer for slow calls.
        _n_warmup, _n_repeat: Exact iteration counts where > 0, as in TileLang.
        quantiles: Quantiles of the iteration times (one alone comes back as a number).
        fast_flush, cache_size: Ignored: kerntime's flush reads 4 x the device's L2 (docs/flush.md).
        backend: "event" and "cupti" are both timed by kerntime (CUPTI; CUDA events only where
            CUPTI cannot be used, with a kerntime.testing.TimingWarning); "cudagraph" captures fn
            once into a CUDA graph and times each launch.
        return_mode: "min", "max", "mean" or "median".
        device: The CUDA device to run on (an int or a torch.device); by default the current one.
        early_stop_baseline: As in TileLang: when the first estimate of one call (host time
            around a synchronized call) exceeds it, that estimate is returned and nothing is
            measured.

    Returns:
        Milliseconds (a number, or a list for several quantiles);
        ``kerntime.testing.last_result()`` holds the whole kerntime Result.
    """
    check_return_mode(return_mode, allowed=("min", "max", "mean", "median"))
    wanted = check_quantiles(quantiles)
    if backend not in BACKENDS:
        raise InvalidArgument(f"backend must be one of {', '.join(map(repr, BACKENDS))} "
                              f"(got {backend!r})")
    refuse_inside_capture("kerntime.testing.tilelang.do_bench")
    with _on_device(device):
        estimate = estimate_call_ms(fn)
        if early_stop_baseline is not None and estimate is not None \
                and estimate > early_stop_baseline:
            return [estimate] * len(wanted) if wanted is not None else estimate
        iterations = iterations_for(warmup, rep, estimate, _n_warmup, _n_repeat,
                                    names=("warmup", "rep", "_n_warmup", "_n_repeat"))
        result = measure(fn, iterations, caller="kerntime.testing.tilelang.do_bench",
                         cuda_graph=backend == "cudagraph")
    return summarise(iteration_times_ms(result), wanted, return_mode)


def _on_device(device: Any) -> Any:
    """PyTorch's device context for `device` (None: the current device, nothing changes)."""
    if device is None:
        return contextlib.nullcontext()
    torch = sys.modules.get("torch")
    if torch is None:
        raise InvalidArgument(f"device={device!r} needs PyTorch to select the device; import torch "
                              "first, or leave device=None for the current one")
    index = device if isinstance(device, int) else torch.device(device)
    if not isinstance(index, int):
        if index.type != "cuda":
            raise InvalidArgument(f"do_bench device must be a CUDA device (got {device!r})")
        index = index.index if index.index is not None else torch.cuda.current_device()
    return torch.cuda.device(index)
