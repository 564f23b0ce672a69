"""kerntime.session(): measurements that share one CUPTI initialisation.

    with kerntime.session():
        for size in sizes:
            results.append(kerntime.bench(op, make(size)))

    @kerntime.session()
    def sweep(): ...

Inside a session, each measurement ends by disabling CUPTI's activity, flushing and
unsubscribing, without ``cuptiFinalize``; the next one subscribes again in ~0.01 ms instead of
~10 ms and its first launch costs ~1 ms instead of ~4 ms. The L2 flush buffer (4 x L2: 240 MiB
on an H200) and the blocking kernel are kept per device for the session's life. So every
measurement after the first in a session skips 8-12 ms of fixed cost (H200, docs/queue.md).

What stays behind between measurements, for your own CUDA work: CUPTI initialised with nothing
enabled. Measured on an H200 with the GPU's own clock (docs/queue.md, "Inside a session"):
back-to-back empty kernels take the same GPU time with CUPTI kept as after it is finalized and as
after a measurement that never loaded CUPTI (1.756, 1.755 and 1.762 us per kernel), while CUPTI
attached makes them 1.988 us; each launch costs the host ~0.8 us more than after finalizing
(~2.2 us more on an H100 host: 6.70 against 4.55 us per launch).

The end of the outermost session frees what was kept and finalizes CUPTI, unless torch.profiler
subscribed meanwhile (it keeps its subscription to the end of the process): then CUPTI is left to
it. Sessions nest and are process-wide; the pytest plugin holds one for the whole test session
(``--kerntime-no-session`` turns it off), and ``kerntime.ab`` holds one while it runs. Outside a
session, ``bench()`` finalizes CUPTI after its measurement.
"""

from __future__ import annotations

import contextlib
from typing import Any

from . import _kerntime, torch_profiler_state

# While torch.profiler records or is armed (or a Kineto daemon may start a trace), the end of the
# outermost session leaves CUPTI to it rather than finalizing under it, subscribed or not.
_PROFILER_HOLDERS = (_kerntime.CuptiHolder.torch_profiler_recording,
                     _kerntime.CuptiHolder.torch_profiler_armed,
                     _kerntime.CuptiHolder.kineto_daemon)


def _profiler_active() -> bool:
    return torch_profiler_state.cupti_holder() in _PROFILER_HOLDERS


class session(contextlib.ContextDecorator):  # noqa: N801 (used like a function: kerntime.session())
    """A scope of measurements that keeps CUPTI initialised between them; a context manager and a
    decorator. See the module's docstring for what it keeps and what that costs."""

    def __init__(self) -> None:
        self._entered = 0  # this object's open scopes: a decorated function may recurse

    def __enter__(self) -> "session":
        _kerntime._enter_session()
        self._entered += 1
        return self

    def __exit__(self, *exc: Any) -> bool:
        # Only a scope this object opened is closed: a stray or second exit must not close
        # another's (the pytest plugin's, say).
        if self._entered > 0:
            try:
                profiler_active = _profiler_active()
            except Exception:  # torch's internals: when unsure, leave CUPTI to the profiler
                profiler_active = True
            self._entered -= 1
            _kerntime._leave_session(profiler_active=profiler_active)
        return False

    @staticmethod
    def depth() -> int:
        """How many sessions are open in this process."""
        return _kerntime._session_depth()

    @staticmethod
    def last_end() -> str:
        """What the end of the last outermost session did with CUPTI: "finalized",
        "left_to_other_subscriber" (torch.profiler held it), "left_to_measurement" (a
        measurement on another thread held it, and finalized it when it ended), "probe_failed"
        (CUPTI could not be asked whether someone holds it, so it was left), "left_to_profiler"
        (torch.profiler was recording or armed) or "nothing_kept"."""
        return _kerntime._session_last_end()

    @staticmethod
    def kept_resources() -> int:
        """How many flush buffers and blocking kernels the open session keeps."""
        return _kerntime._session_kept_resources()
