"""kerntime: how long CUDA work really takes on the GPU, from Python.

    import kerntime
    result = kerntime.bench(torch.matmul, a, b)
    print(result.latency_ms, result.timing_backend)
    for kernel in result.kernels:
        print(kernel.name, kernel.mean_ms, kernel.share)

The measurement is kerntime's C++ engine (CUPTI pure kernel time on a cold L2, CUDA events when
CUPTI is unavailable); this package prepares the arguments and the stream and wraps the result.
"""

from . import errors, reprs, torch_profiler_state
from ._kerntime import __version__, json_schema_version
from .ab import ABComparison, KernelChange, ab
from .bench_function import bench
from .errors import *  # noqa: F401,F403 (the exception classes, listed in errors.__all__)
from .load import load
from .result import Kernel, Result, Sample, Statistics, Telemetry
from .session import session

reprs.install()

# Warm-up steps of a torch.profiler schedule are invisible to torch's flags: track them from now
# on, so that kerntime never shares CUPTI with an armed profiler (docs/torch-profiler.md).
torch_profiler_state.track_torch_profiler()

__all__ = [
    "__version__",
    "json_schema_version",
    "bench",
    "load",
    "ab",
    "session",
    "ABComparison",
    "KernelChange",
    "Result",
    "Kernel",
    "Sample",
    "Statistics",
    "Telemetry",
    *errors.__all__,
]
