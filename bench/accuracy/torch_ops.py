"""The PyTorch operations of the study, built once and shared by torch_cases.py (kerntime, CUDA
events, do_bench) and torch_for_ncu.py (Nsight Compute), so both time the same work."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

MiB = 1 << 20


@dataclass
class Op:
    id: str  # stable key in accuracy.json
    description: str
    fn: Callable[..., Any]
    args: Tuple[Any, ...]
    cpp_counterpart: Optional[str] = None  # a state of the bundled suite doing the same work


def _matmul(a, b, c):
    import torch
    torch.matmul(a, b, out=c)


def _softmax(x):
    import torch
    return torch.softmax(x, dim=-1)


def _sort(x, values, indices):
    import torch
    torch.sort(x, out=(values, indices))


def _copy(destination, source):
    destination.copy_(source)


def make_ops(torch) -> List[Op]:
    device = "cuda"
    bf16 = torch.bfloat16
    g = torch.Generator(device=device).manual_seed(1234)

    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, device=device, dtype=dtype, generator=g)

    n = 4096
    skinny_k = skinny_n = 8192
    rows, cols = 4096, 8192
    sort_n = 16 * MiB
    copy_bytes = 256 * MiB
    return [
        Op("torch_matmul_bf16_4096", f"torch.matmul bf16 {n}x{n} @ {n}x{n}", _matmul,
           (randn(n, n, dtype=bf16), randn(n, n, dtype=bf16),
            torch.empty(n, n, device=device, dtype=bf16)),
           cpp_counterpart="gemm_bf16/size=4096"),
        Op("torch_matmul_bf16_m1", f"torch.matmul bf16 1x{skinny_k} @ {skinny_k}x{skinny_n} "
           "(skinny M=1)", _matmul,
           (randn(1, skinny_k, dtype=bf16), randn(skinny_k, skinny_n, dtype=bf16),
            torch.empty(1, skinny_n, device=device, dtype=bf16))),
        Op("torch_softmax_f32", f"torch.softmax fp32 {rows}x{cols}, dim=-1", _softmax,
           (randn(rows, cols),)),
        Op("torch_sort_f32_16M", f"torch.sort fp32, {sort_n} elements", _sort,
           (randn(sort_n), torch.empty(sort_n, device=device),
            torch.empty(sort_n, device=device, dtype=torch.int64))),
        Op("torch_copy_256MiB", "Tensor.copy_ 256 MiB, device to device", _copy,
           (torch.empty(copy_bytes, device=device, dtype=torch.uint8),
            torch.full((copy_bytes,), 7, device=device, dtype=torch.uint8)),
           cpp_counterpart="copy/bytes=268435456/l2=cold"),
    ]
