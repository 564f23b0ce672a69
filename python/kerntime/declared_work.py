"""The work one iteration of a benchmark does, as bench(flops=, bytes=, dtype=) declares it: the
counts checked and the precision named as kerntime names it (the C++ flop_precision), so the
speed of light is computed by the same C++ code as `kerntime run`'s."""

from __future__ import annotations

import math
from typing import Any, Optional

from . import _kerntime

# torch dtypes by name, so torch need not be imported. float32 means CUDA cores: a TF32 matmul
# (torch.backends.cuda.matmul.allow_tf32) must be named "tf32_tensor" explicitly.
_TORCH_PRECISIONS = {
    "torch.bfloat16": "bf16_tensor",
    "torch.float16": "fp16_tensor",
    "torch.float32": "fp32",
    "torch.float64": "fp64",
    "torch.float8_e4m3fn": "fp8_tensor",
    "torch.float8_e5m2": "fp8_tensor",
    "torch.int8": "int8_tensor",
}


def precision_name(dtype: Any) -> Optional[str]:
    """kerntime's name of ``dtype``: one of kerntime's names, or a torch dtype."""
    if dtype is None:
        return None
    if isinstance(dtype, str):
        if _kerntime.parse_flop_precision(dtype) is not None:
            return dtype
    elif str(dtype) in _TORCH_PRECISIONS:
        return _TORCH_PRECISIONS[str(dtype)]
    raise ValueError(
        f"dtype={dtype!r} is not a precision kerntime knows; name one of "
        f"{_kerntime.flop_precision_names()}, or pass one of the torch dtypes "
        f"{', '.join(_TORCH_PRECISIONS)}")


def checked_count(name: str, value: Any) -> Optional[float]:
    """``value`` as a float, or ValueError saying what to pass."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name}= must be a number per iteration (e.g. {name}=2 * n**3), "
                         f"got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name}= must be a finite count >= 0 per iteration, got {value!r}")
    return float(value)
