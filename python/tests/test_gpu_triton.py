"""A Triton kernel: its first-call JIT compilation happens in the warmup, before CUPTI is
attached, so it never lands in the measurement. Skipped without a CUDA device, torch or triton."""

import time

import pytest

import kerntime

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x, y, out):
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)


def test_first_call_jit_stays_out_of_the_measurement(tmp_path, monkeypatch):
    # An empty cache folder makes the first call, inside bench()'s warmup, a real compilation.
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    x, y, out = (torch.randn(1 << 20, device="cuda") for _ in range(3))
    started = time.perf_counter()
    result = kerntime.bench(add, x, y, out, backend="cupti")
    wall_s = time.perf_counter() - started
    assert result.timing_backend == "cupti"
    assert [k.name for k in result.kernels] == ["add_kernel"]
    # 12 MiB moved: a few microseconds on an H200; the JIT took far longer than that.
    assert result.latency_ms < 1.0
    assert result.stats.max_ms < 1.0, "no iteration may contain the compilation"
    assert wall_s > 10 * result.latency_ms / 1e3
