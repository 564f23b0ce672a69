"""kerntime.testing: drop-in replacements for the benchmark functions kernel authors already call.

    from kerntime.testing import do_bench        # instead of: from triton.testing import do_bench
    ms = do_bench(lambda: torch.softmax(x, -1))  # same signature, same return convention

    import kerntime.testing
    kerntime.testing.patch()                     # triton.testing.do_bench (and TileLang's,
                                                 # FlashInfer's) now measure with kerntime

    python -m kerntime.testing script.py args   # an unchanged script, patched

- ``do_bench``, ``do_bench_cudagraph``: ``triton.testing``'s (kerntime.testing.triton).
- ``kerntime.testing.tilelang.do_bench``: TileLang's profiler ``do_bench``.
- ``kerntime.testing.flashinfer.bench_gpu_time``: FlashInfer's.

Each keeps its framework's signature and return type and measures with kerntime's protocol
underneath (kerntime.bench(): CUPTI pure GPU time, cold L2 with the flush outside the timed
window, no launch overhead); time budgets become iteration counts as kerntime.testing.budget
says. What a number cannot carry comes as a ``TimingWarning`` (the timer fell back to CUDA
events, trials were throttled), and ``last_result()`` returns the whole kerntime Result of the
last call. docs/drop-in.md has the argument-by-argument mapping.
"""

from .drop_in import TimingWarning, last_result
from .patching import patch, patched, unpatch
from .triton import do_bench, do_bench_cudagraph

__all__ = ["do_bench", "do_bench_cudagraph", "patch", "unpatch", "patched", "last_result",
           "TimingWarning"]
