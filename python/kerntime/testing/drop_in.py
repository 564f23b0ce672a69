"""The one call every adapter of kerntime.testing makes: kerntime.bench() with the counts the
adapter chose, the result kept for last_result(), and what the adapter's return type cannot
carry said as warnings.

Every drop-in call measures inside one kerntime session, opened at the first call and closed when
the interpreter exits (or by ``kerntime.testing.unpatch()``): CUPTI stays initialised between
calls, so a call after the first skips ~10 ms of set-up (docs/python.md, "Sessions"). What that
leaves behind for the rest of the process is the session's (kerntime.session's docstring).
"""

from __future__ import annotations

import atexit
import sys
import threading
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..bench_function import bench
from ..errors import InvalidArgument
from ..result import Result
from ..session import session
from .budget import Iterations


class TimingWarning(UserWarning):
    """What a do_bench-style number cannot say: the timer fell back to CUDA events, trials were
    throttled, or the engine had another warning. ``kerntime.testing.last_result()`` holds the
    whole result."""


_lock = threading.Lock()
_last: Optional[Result] = None
_kept_session: Optional[session] = None


def last_result() -> Optional[Result]:
    """The kerntime Result of the last drop-in call in this process (None before the first):
    the timer that ran (``timing_backend``), every kernel with its share (``kernels``), the
    protocol that ran (``protocol``), telemetry and warnings."""
    return _last


def keep_session() -> None:
    """Opens the drop-ins' session once; it closes at exit or in release_session()."""
    global _kept_session
    with _lock:
        if _kept_session is None:
            _kept_session = session()
            _kept_session.__enter__()
            atexit.register(release_session)


def release_session() -> None:
    """Closes the drop-ins' session, if open: CUPTI is finalized unless another scope or a
    profiler holds it."""
    global _kept_session
    with _lock:
        kept, _kept_session = _kept_session, None
    if kept is not None:
        kept.__exit__(None, None, None)


def _with_keyword_dict(fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn called with its keyword arguments passed as one trailing dict, so that names of fn's
    own (``stream``, ``bytes``, ``dtype``) never meet bench()'s parameters, while the tensors in
    the dict are still copied into each input set."""

    def call(*args: Any) -> Any:
        return fn(*args[:-1], **args[-1])

    return call


def refuse_inside_capture(caller: str) -> None:
    """A drop-in called while the current stream captures a CUDA graph (an autotuner reached from
    inside a capture) would launch into the capture: refused before fn is called, as Triton's
    do_bench_cudagraph refuses it."""
    torch = sys.modules.get("torch")
    capturing = getattr(getattr(torch, "cuda", None), "is_current_stream_capturing", None)
    if capturing is not None and capturing():
        raise InvalidArgument(f"{caller} was called while the current stream captures a CUDA graph; "
                              "nothing can be timed inside a capture: warm up (and autotune) the "
                              "kernels before capturing")


def measure(fn: Callable[..., Any], iterations: Iterations, *, caller: str,
            args: Sequence[Any] = (), kwargs: Optional[Dict[str, Any]] = None,
            flush_l2: bool = True, cuda_graph: bool = False, input_sets: int = 1) -> Result:
    """bench(fn, *args, **kwargs) with `iterations`' counts; warns as `caller` (the adapter's
    name, e.g. "kerntime.testing.do_bench") where the result needs saying."""
    global _last
    keep_session()
    call_args = list(args)
    target = fn
    if kwargs:
        target = _with_keyword_dict(fn)
        call_args.append(dict(kwargs))
    result = bench(target, *call_args, warmup=iterations.warmup, trials=iterations.trials,
                   repeat=iterations.repeat, flush_l2=flush_l2, input_sets=input_sets,
                   cuda_graph=cuda_graph)
    _last = result
    for message in warnings_of(result, caller):
        warnings.warn(message, TimingWarning, stacklevel=3)
    return result


def warnings_of(result: Result, caller: str) -> List[str]:
    """What `caller`'s return value cannot carry: the event fallback and the engine's warnings
    (throttled trials among them)."""
    said = []
    if result.timing_backend != "cupti":
        said.append(f"{caller}: timed with CUDA events, not CUPTI ({result.backend_reason}); the "
                    "times include launch overhead. kerntime.testing.last_result() has the "
                    "details")
    said.extend(f"{caller}: {warning}" for warning in result.warnings)
    return said


def iteration_times_ms(result: Result) -> List[float]:
    """Every measured iteration's time in ms, trial after trial: the span (first GPU record's
    start to the last one's end), what an event pair around the call would read without the
    launch overhead."""
    return [sample.span_ms for trial in result.samples for sample in trial]


def clear_grads(fn: Callable[[], Any], grad_to_none: Any) -> Callable[[], Any]:
    """fn preceded by Triton's ``grad_to_none``: each tensor's ``.grad`` set to None before every
    call, host work that adds no GPU time to the iteration."""
    if grad_to_none is None:
        return fn
    tensors = list(grad_to_none)

    def call() -> Any:
        for tensor in tensors:
            tensor.grad = None
        return fn()

    return call
