"""FlashInfer's ``flashinfer.testing.bench_gpu_time``, measured by kerntime. Same signature and
return type (every measured iteration's time in ms); the arguments that pick a way of timing map
to kerntime's, listed in the docstring.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

from .budget import estimate_call_ms, iterations_for
from .drop_in import iteration_times_ms, measure, refuse_inside_capture


def bench_gpu_time(fn: Callable[..., Any], dry_run_iters: Optional[int] = None,
                   repeat_iters: Optional[int] = None, dry_run_time_ms: int = 25,
                   repeat_time_ms: int = 100, l2_flush: Optional[bool] = None,
                   l2_flush_size_mb: Optional[int] = None, l2_flush_device: Optional[str] = None,
                   sleep_after_run: bool = False, enable_cupti: bool = False,
                   use_cuda_graph: bool = False, num_iters_within_graph: int = 10,
                   input_args: Tuple = (), input_kwargs: Optional[Dict[str, Any]] = None,
                   cold_l2_cache: bool = True, aggregate_op: Callable = max) -> List[float]:
    """GPU benchmarking as FlashInfer's ``bench_gpu_time``, measured by kerntime: every
    iteration's GPU time from CUPTI, the L2 flushed before each iteration and outside its time,
    launch overhead excluded, whichever timing flags are passed.

    Args, and how each maps:
        fn: The function to benchmark, called as ``fn(*input_args, **input_kwargs)``.
        dry_run_iters, repeat_iters: Exact iteration counts where given, as in FlashInfer.
        dry_run_time_ms, repeat_time_ms: Time budgets in ms, upper bounds
            (kerntime.testing.budget): at most 5 warm-up and 30 measured iterations at these
            defaults, fewer for slow calls.
        cold_l2_cache: Flush the L2 before each iteration (kerntime's flush, outside the time).
        l2_flush: Deprecated as in FlashInfer (a DeprecationWarning): its value replaces
            cold_l2_cache. l2_flush_size_mb, l2_flush_device: ignored; kerntime's flush reads
            4 x the L2 of the device the work runs on.
        enable_cupti: Ignored: kerntime times with CUPTI wherever it can (CUDA events where it
            cannot, with a kerntime.testing.TimingWarning).
        use_cuda_graph: fn is captured once into a CUDA graph and each launch is timed.
            num_iters_within_graph is ignored: CUPTI times one call per launch, so nothing
            needs amortising.
        sleep_after_run: Ignored: kerntime measures the card as found and flags throttled
            trials (a TimingWarning) instead.
        input_args, input_kwargs: fn's arguments; the work runs on the current stream of the
            framework their tensors belong to.
        aggregate_op: With torch.distributed initialised over more than one rank, the estimate
            and each iteration's time are combined across ranks with it, as in FlashInfer.

    Returns:
        List[float]: Per-iteration execution times in milliseconds;
        ``kerntime.testing.last_result()`` holds the whole kerntime Result.
    """
    refuse_inside_capture("kerntime.testing.flashinfer.bench_gpu_time")
    kwargs = dict(input_kwargs or {})
    args = tuple(input_args)
    flush = cold_l2_cache
    if any(p is not None for p in (l2_flush, l2_flush_size_mb, l2_flush_device)):
        warnings.warn("l2_flush, l2_flush_size_mb, and l2_flush_device are deprecated. "
                      "Use cold_l2_cache instead.", category=DeprecationWarning, stacklevel=2)
        flush = l2_flush if l2_flush is not None else cold_l2_cache
    estimate = estimate_call_ms(lambda: fn(*args, **kwargs))
    if estimate is not None:
        estimate = across_ranks(estimate, aggregate_op)
    iterations = iterations_for(
        dry_run_time_ms, repeat_time_ms, estimate, dry_run_iters, repeat_iters,
        names=("dry_run_time_ms", "repeat_time_ms", "dry_run_iters", "repeat_iters"),
        zero_is_auto=False)
    result = measure(fn, iterations, caller="kerntime.testing.flashinfer.bench_gpu_time",
                     args=args, kwargs=kwargs, flush_l2=bool(flush), cuda_graph=use_cuda_graph)
    return across_ranks(iteration_times_ms(result), aggregate_op)


def across_ranks(value: Any, op: Callable) -> Any:
    """`value` (a number, or a list with one number per iteration) combined over the ranks of an
    initialised torch.distributed group of more than one rank with `op`; else `value` itself."""
    torch = sys.modules.get("torch")
    distributed = getattr(torch, "distributed", None)
    if distributed is None or not distributed.is_available() or not distributed.is_initialized():
        return value
    world = distributed.get_world_size()
    if world <= 1:
        return value
    gathered: List[Any] = [None] * world
    distributed.all_gather_object(gathered, value)
    if isinstance(value, list):
        return [op(values) for values in zip(*gathered)]
    return op(gathered)
