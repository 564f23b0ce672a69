"""``triton.testing.do_bench`` and ``do_bench_cudagraph``, measured by kerntime.

Same signatures, same return conventions (milliseconds; ``return_mode`` or ``quantiles``), so a
call site changes only its import, or not at all under ``kerntime.testing.patch()``. What differs
is what the number means: the GPU time of the work fn launched, from CUPTI, on a cold L2 with
the flush outside the timed window, without launch overhead, over fewer iterations (budget.py).
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Union

from .budget import estimate_call_ms, iterations_for
from .drop_in import clear_grads, iteration_times_ms, measure, refuse_inside_capture
from .summary import check_quantiles, check_return_mode, summarise


def do_bench(fn: Callable[[], Any], warmup: float = 25, rep: float = 100, grad_to_none: Any = None,
             quantiles: Optional[List[float]] = None,
             return_mode: str = "mean") -> Union[float, List[float]]:
    """Benchmark the runtime of the provided function, as ``triton.testing.do_bench`` does,
    measured by kerntime: each iteration's GPU time from CUPTI (the span from the first kernel's
    start to the last one's end), on a cold L2 with the flush outside the timed window, launch
    overhead excluded. Where CUPTI cannot be used, CUDA events time the same protocol and a
    ``kerntime.testing.TimingWarning`` says so.

    :param fn: Function to benchmark, called with no arguments
    :param warmup: Warm-up time budget in ms, an upper bound: at most 5 warm-up iterations (5
        per 25 ms above 25), fewer where one call takes longer (after a first, untimed call)
    :param rep: Measuring time budget in ms, an upper bound: at most 30 measured iterations (30
        per 100 ms above 100), fewer where one call takes longer; kerntime's iterations carry
        neither launch overhead nor the flush, so far fewer reach do_bench's precision
    :param grad_to_none: Tensors whose ``.grad`` is set to None before every iteration (host
        work, no GPU time)
    :param quantiles: Quantiles of the iteration times to return instead of ``return_mode``'s
        value (one quantile alone comes back as a number)
    :param return_mode: "min", "max", "mean", "median" or "all" (the list of iteration times)
    :return: Milliseconds. ``kerntime.testing.last_result()`` has the whole kerntime Result:
        backend, per-kernel shares, protocol, telemetry.
    """
    check_return_mode(return_mode)
    wanted = check_quantiles(quantiles)
    refuse_inside_capture("kerntime.testing.do_bench")
    call = clear_grads(fn, grad_to_none)
    iterations = iterations_for(warmup, rep, estimate_call_ms(call))
    result = measure(call, iterations, caller="kerntime.testing.do_bench")
    return summarise(iteration_times_ms(result), wanted, return_mode)


def do_bench_cudagraph(fn: Callable[[], Any], rep: float = 20, grad_to_none: Any = None,
                       quantiles: Optional[List[float]] = None,
                       return_mode: str = "mean") -> Union[float, List[float]]:
    """Benchmark the runtime of the provided function captured in a CUDA graph, as
    ``triton.testing.do_bench_cudagraph`` does, measured by kerntime: fn is captured once, the
    graph launched once per iteration with the L2 flush outside it, and each launch's kernels
    timed by CUPTI (``kerntime.bench(cuda_graph=True)``). fn must be capturable
    (``kerntime.NotCapturable`` says why not).

    :param fn: Function to benchmark, called with no arguments
    :param rep: Measuring time budget in ms, an upper bound as in ``do_bench`` (at most 30
        measured iterations, fewer where one call takes longer), after at most 5 warm-up
        iterations
    :param grad_to_none: Tensors whose ``.grad`` is set to None before the call (at capture)
    :param quantiles: As in ``do_bench``
    :param return_mode: As in ``do_bench``
    :return: Milliseconds per call
    """
    check_return_mode(return_mode)
    wanted = check_quantiles(quantiles)
    refuse_inside_capture("kerntime.testing.do_bench_cudagraph")
    call = clear_grads(fn, grad_to_none)
    iterations = iterations_for(25, rep, estimate_call_ms(call))
    result = measure(call, iterations, caller="kerntime.testing.do_bench_cudagraph",
                     cuda_graph=True)
    return summarise(iteration_times_ms(result), wanted, return_mode)
