"""Which CUDA stream the benchmarked callable runs on, and which device.

kerntime times the work enqueued on one stream; the callable, being ordinary framework code,
launches on its framework's *current* stream. So by default kerntime measures that stream:

1. an explicit ``stream=`` wins: an int handle (0 is the legacy default stream), or an object
   with ``.cuda_stream`` (``torch.cuda.Stream``) or ``.ptr`` (``cupy.cuda.Stream``). A
   ``torch.cuda.Stream`` or CuPy stream is also made current while fn runs, so the framework
   launches on it; with a bare int the callable must launch on that stream itself;
2. otherwise, the current stream of the framework the tensor arguments belong to (PyTorch, then
   CuPy);
3. otherwise PyTorch's current stream if torch is imported, else CuPy's if cupy is imported;
4. otherwise the legacy default stream (0).

Frameworks are looked up in ``sys.modules`` only: kerntime never imports torch or cupy itself.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass
from typing import Any, ContextManager, Iterable, Optional

from .errors import InvalidArgument


@dataclass(frozen=True)
class StreamChoice:
    handle: int  # cudaStream_t as an integer; 0 is the legacy default stream
    device: int  # CUDA device ordinal to make current, -1 to leave the current one
    context: ContextManager[Any]  # makes the stream current in its framework while fn runs
    source: str  # how it was chosen, in words


def _torch() -> Any:
    return sys.modules.get("torch")


def _cupy() -> Any:
    return sys.modules.get("cupy")


def _framework_of(tensor: Any) -> Optional[str]:
    module = type(tensor).__module__ or ""
    if module.startswith("torch"):
        return "torch"
    if module.startswith("cupy"):
        return "cupy"
    return None


def _torch_device(torch: Any, tensors: Iterable[Any]) -> int:
    for tensor in tensors:
        device = getattr(tensor, "device", None)
        if getattr(device, "type", None) == "cuda":
            return device.index if device.index is not None else torch.cuda.current_device()
    return torch.cuda.current_device()


def _torch_choice(torch: Any, tensors: Iterable[Any], source: str) -> StreamChoice:
    device = _torch_device(torch, tensors)
    stream = torch.cuda.current_stream(device)
    return StreamChoice(int(stream.cuda_stream), device, contextlib.nullcontext(), source)


def _cupy_choice(cupy: Any, source: str) -> StreamChoice:
    stream = cupy.cuda.get_current_stream()
    device = cupy.cuda.Device().id
    return StreamChoice(int(stream.ptr), device, contextlib.nullcontext(), source)


def _explicit_choice(stream: Any) -> StreamChoice:
    torch = _torch()
    cupy = _cupy()
    if isinstance(stream, bool):
        raise InvalidArgument("stream must be an int handle or a stream object, not a bool")
    if isinstance(stream, int):
        if stream < 0:
            raise InvalidArgument(f"stream handle must be >= 0 (got {stream})")
        return StreamChoice(stream, -1, contextlib.nullcontext(), "stream= (int handle)")
    if torch is not None and isinstance(stream, torch.cuda.Stream):
        return StreamChoice(int(stream.cuda_stream), stream.device.index,
                            torch.cuda.stream(stream), "stream= (torch.cuda.Stream)")
    if cupy is not None and isinstance(stream, cupy.cuda.Stream):
        # A CuPy stream is its own context manager: inside it, it is CuPy's current stream.
        return StreamChoice(int(stream.ptr), -1, stream, "stream= (cupy.cuda.Stream)")
    for attribute in ("cuda_stream", "ptr"):
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return StreamChoice(handle, -1, contextlib.nullcontext(), f"stream= (.{attribute})")
    raise InvalidArgument(
        f"stream must be an int handle or have .cuda_stream or .ptr (got {type(stream).__name__})")


def choose_stream(stream: Any, tensors: Iterable[Any]) -> StreamChoice:
    """The stream to measure, following the rules of this module's docstring."""
    if stream is not None:
        return _explicit_choice(stream)
    tensors = list(tensors)
    frameworks = [_framework_of(tensor) for tensor in tensors]
    torch = _torch()
    cupy = _cupy()
    if torch is not None and "torch" in frameworks:
        return _torch_choice(torch, tensors, "PyTorch's current stream (torch tensor arguments)")
    if cupy is not None and "cupy" in frameworks:
        return _cupy_choice(cupy, "CuPy's current stream (CuPy array arguments)")
    if torch is not None and torch.cuda.is_available():
        return _torch_choice(torch, (), "PyTorch's current stream (torch is imported)")
    if cupy is not None:
        return _cupy_choice(cupy, "CuPy's current stream (cupy is imported)")
    return StreamChoice(0, -1, contextlib.nullcontext(), "the legacy default stream")
