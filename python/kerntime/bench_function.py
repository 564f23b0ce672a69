"""kerntime.bench(): measure a Python callable under kerntime's protocol."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Union

from . import _kerntime, torch_profiler_state
from .capture_stream import capturable
from .declared_work import checked_count, precision_name
from .errors import InvalidArgument
from .input_sets import iter_tensors, make_input_sets
from .result import Result
from .streams import choose_stream


def bench(fn: Callable[..., Any], *args: Any, warmup: Union[int, str] = 10, trials: int = 5,
          repeat: int = 50, flush_l2: bool = True, input_sets: int = 3, backend: str = "auto",
          metric: str = "span", stream: Any = None, stop_at_ci: Optional[float] = None,
          max_trials: Optional[int] = None, max_time: Optional[float] = None,
          flops: Optional[float] = None, bytes: Optional[float] = None, dtype: Any = None,
          cuda_graph: Union[bool, str] = False, counters: bool = False,
          metrics: Optional[Sequence[str]] = None, **kwargs: Any) -> Any:
    """Measures ``fn(*args, **kwargs)`` on the GPU.

    ``warmup`` untimed iterations (JIT compilation and autotuning happen there, before the
    timer is attached), then ``trials`` x ``repeat`` measured iterations, each on a cold L2
    (``flush_l2``) and rotating over ``input_sets`` copies of the tensor arguments, made before
    timing (see kerntime.input_sets for which arguments are copied).

    ``warmup="auto"``: after 10 iterations, go on warming up until the iteration time has
    settled. ``stop_at_ci=0.5``: after ``trials`` trials, keep adding trials until the 95 %
    interval of the median is within ±0.5 % of it, bounded by ``max_trials`` (default 100) and
    ``max_time`` seconds (default 30). ``Result.stopping`` says what ran and what it reached.

    ``backend``: "auto" (CUPTI, falling back to CUDA events with a warning), "cupti" (raise
    CuptiUnavailable instead of falling back) or "events". After torch.profiler has been used
    in the process it holds CUPTI; kerntime then shares CUPTI with it while it is idle
    (``Result.cupti_mode``), and falls back with the reason while it records or is armed
    (docs/torch-profiler.md). ``metric``: the headline is the
    median of "span" (first GPU start to last GPU end of an iteration) or "busy" (sum of the GPU
    records). ``stream``: see kerntime.streams; by default the framework's current stream.

    ``flops``, ``bytes`` (read + written) and ``dtype`` declare one iteration's work; then
    ``Result.tflops``, ``Result.gbps`` and ``Result.speed_of_light`` (compute and memory % of the
    GPU's peaks, as `kerntime run` computes them). ``dtype`` is kerntime's precision name
    ("bf16_tensor", "fp32", ...) or a torch dtype: bfloat16 and float16 are their tensor-core
    precisions, float32 is CUDA-core fp32 (name "tf32_tensor" for a TF32 matmul).

    ``cuda_graph=True``: capture fn once per input set into a CUDA graph (after the warm-up) and
    launch the graph each iteration, the flush outside it (how CUDA-graph deployments run an
    op; ``Result.launch`` is "graph"). fn must not synchronize or allocate (NotCapturable says
    why and what to change); on PyTorch's default stream, fn runs on a side stream.
    ``cuda_graph="both"``: measures both ways and returns ``{"stream": Result, "graph": Result}``.

    ``counters=True``: after the timing trials, one flushed iteration is profiled with CUPTI's
    range profiler (kernel replay) and ``Result.counters`` gives each kernel's hardware counters:
    DRAM bytes read and written, DRAM %, L2 hit rate, tensor-pipe % and what kerntime derives
    (bytes per second over its own timed duration, the bound). ``metrics=[...]``: CUPTI metric
    names of this GPU's chip instead of the default set (implies counters; an unknown name raises
    InvalidArgument naming the chip's closest names before anything runs). Timing is unchanged;
    where counters cannot be collected ``Result.counters.status`` is "unavailable" with the reason
    (docs/counters.md).

    Keyword arguments named like bench's own parameters are bench's; pass such arguments to fn
    through functools.partial. fn's return value is discarded. An exception raised by fn
    propagates unchanged, with its traceback; nothing falls back.
    """
    if not callable(fn):  # before the device is touched: bench(None) is a mistake, not a GPU's
        raise TypeError(f"kerntime.bench measures a callable: fn is {type(fn).__name__} "
                        f"({fn!r:.60}); pass the function to time, e.g. bench(torch.matmul, a, b)")
    if cuda_graph == "both":
        options = {name: value for name, value in locals().items()
                   if name not in ("fn", "args", "kwargs", "cuda_graph")}
        return {launch: bench(fn, *args, **options, cuda_graph=launch == "graph", **kwargs)
                for launch in ("stream", "graph")}
    if not isinstance(cuda_graph, bool):
        raise InvalidArgument(f"cuda_graph takes True, False or \"both\" (got {cuda_graph!r})")
    metric_names = _metric_names(metrics)
    work = dict(flops=checked_count("flops", flops), bytes=checked_count("bytes", bytes),
                precision=precision_name(dtype))
    sets = make_input_sets(args, kwargs, input_sets)
    copied_tensors = input_sets > 1 and any(True for _ in iter_tensors(args, kwargs))
    chosen = choose_stream(stream, iter_tensors(args, kwargs))
    if cuda_graph:
        chosen = capturable(chosen)
    with chosen.context:
        # Who holds CUPTI if kerntime cannot subscribe: an idle torch.profiler is shared with
        # (checked again after the measurement), any other holder names the fallback's reason.
        measurement = _kerntime.measure(
            fn, sets, warmup=warmup, trials=trials, repeats=repeat, flush_l2=flush_l2,
            backend=backend, metric=metric, stream=chosen.handle, device=chosen.device,
            wait_for_inputs=copied_tensors, stop_at_ci=stop_at_ci, cuda_graph=cuda_graph,
            max_trials=max_trials,
            max_time=max_time, cupti_holder=torch_profiler_state.cupti_holder(),
            cupti_recheck=torch_profiler_state.cupti_holder,
            counters=bool(counters) or bool(metric_names), metrics=metric_names)
    return Result(measurement, **work)


def _metric_names(metrics: Optional[Sequence[str]]) -> List[str]:
    """bench(metrics=...) as a list of names: a sequence of strings, never one string."""
    if metrics is None:
        return []
    if isinstance(metrics, str) or not all(isinstance(name, str) for name in metrics):
        raise InvalidArgument(
            f"metrics takes a list of CUPTI metric names (got {metrics!r}); e.g. "
            "metrics=[\"dram__bytes_read.sum\", \"dram__bytes_write.sum\"]")
    return list(metrics)
