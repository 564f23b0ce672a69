"""kerntime's exceptions, all derived from KerntimeError.

They are the C++ engine's error types as registered by the extension, so an error raised deep in
the engine arrives here as the matching class, with ``e.kind`` naming its kind as the reports do
(``"invalid_argument"``, ``"device_unavailable"``, ...):

- InvalidArgument: the protocol or an argument is unusable; nothing ran.
- DeviceUnavailable: no usable CUDA device (no GPU, no driver, or a GPU this build of kerntime has
  no code for: docs/building.md); nothing ran.
- CuptiUnavailable: CUPTI cannot be used here (``e.reason`` says why); raised only with
  ``backend="cupti"``, ``"auto"`` falls back to CUDA events instead.
- BenchmarkFailed: the benchmarked code raised a CUDA error (``e.cuda_error``,
  ``e.cuda_error_name``, ``e.where``). Never a reason to fall back to another timer.
- MeasurementInvalid: the timer ran but its records cannot be trusted (dropped records, zero
  timestamps, untagged work); kerntime never under-reports.
- NotCapturable: ``cuda_graph=True`` and the work cannot be captured into a CUDA graph (it
  synchronizes, allocates, uses the legacy stream): ``e.capture_error`` (the CUDA error),
  ``e.why`` and ``e.fix`` in words; nothing was timed.

An exception raised by the benchmarked callable itself is not wrapped: it propagates as it was
raised, with its traceback.
"""

from ._kerntime import (
    BenchmarkFailed,
    CuptiUnavailable,
    DeviceUnavailable,
    InvalidArgument,
    KerntimeError,
    MeasurementInvalid,
    NotCapturable,
)

__all__ = [
    "KerntimeError",
    "InvalidArgument",
    "DeviceUnavailable",
    "CuptiUnavailable",
    "BenchmarkFailed",
    "MeasurementInvalid",
    "NotCapturable",
]


def error_kind(error: BaseException) -> str:
    """The report's error kind of an exception: its ``kind`` for kerntime's errors, else
    ``"error"``."""
    return getattr(error, "kind", "error") if isinstance(error, KerntimeError) else "error"
