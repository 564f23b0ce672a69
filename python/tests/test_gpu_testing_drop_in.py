"""kerntime.testing's drop-ins on the GPU, on real torch ops: each adapter's return convention,
the protocol it asked for, a multi-kernel op seen whole, patch() reaching Triton's autotuner, and
an unchanged Triton script run under ``python -m kerntime.testing``. Skipped without a CUDA
device or PyTorch (the Triton parts without Triton)."""

import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import kerntime
import kerntime.testing as kt
from kerntime.testing import flashinfer, tilelang

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)


@pytest.fixture(scope="module")
def x():
    return torch.randn(4096, 4096, device="cuda", dtype=torch.float16)


def test_do_bench_times_a_softmax_with_cupti_at_the_default_counts(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error", kt.TimingWarning)
        ms = kt.do_bench(lambda: torch.softmax(x, dim=-1))
    result = kt.last_result()
    assert result.timing_backend == "cupti"
    protocol = result.protocol
    assert (protocol.warmup, protocol.trials * protocol.repeats) == (5, 30)
    assert ms == pytest.approx(result.span_stats.mean_ms)
    # 64 MiB read and written on a cold L2: tens of microseconds on an H100 or H200.
    assert 0.005 < ms < 1.0


def test_return_all_and_quantiles_are_iteration_times(x):
    times = kt.do_bench(lambda: torch.softmax(x, dim=-1), return_mode="all")
    assert len(times) == 30 and all(t > 0 for t in times)
    median, low, high = kt.do_bench(lambda: torch.softmax(x, dim=-1), quantiles=[0.5, 0.2, 0.8])
    assert low <= median <= high


def test_a_multi_kernel_op_is_timed_whole_and_listed_per_kernel(x):
    ms = kt.do_bench(lambda: torch.softmax(x, dim=-1).mul_(2.0).add_(1.0))
    kernels = kt.last_result().kernels
    assert len(kernels) >= 3, [k.name for k in kernels]
    # The span covers every kernel of the iteration: at least their summed mean time.
    assert ms >= 0.99 * sum(k.mean_ms for k in kernels)


def test_do_bench_agrees_with_kerntime_bench_on_the_same_op(x):
    ms = kt.do_bench(lambda: torch.softmax(x, dim=-1), return_mode="median")
    direct = kerntime.bench(lambda: torch.softmax(x, dim=-1), input_sets=1)
    assert ms == pytest.approx(direct.latency_ms, rel=0.05)


def test_grad_to_none_clears_each_grad_before_the_call():
    w = torch.randn(1024, device="cuda", requires_grad=True)
    seen = []

    def step():
        seen.append(w.grad)
        w.grad = torch.ones_like(w)  # as a backward pass leaves it
        torch.mul(w.detach(), 2.0)

    assert kt.do_bench(step, grad_to_none=[w]) > 0
    assert len(seen) > 30 and all(grad is None for grad in seen)


def test_a_backward_pass_is_refused_with_the_reason_not_under_reported(x):
    # PyTorch runs a backward pass's kernels on its autograd thread, not on the thread that
    # called backward(); kerntime attributes work by the launching thread, so it refuses the
    # measurement and names the kernels rather than return a number without them (drop-in.md).
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.float16, requires_grad=True)
    inputs = torch.randn(64, 4096, device="cuda", dtype=torch.float16)
    with pytest.raises(kerntime.MeasurementInvalid, match="untagged.*another thread"):
        kt.do_bench(lambda: (inputs @ w).sum().backward(), grad_to_none=[w])


def test_do_bench_cudagraph_times_graph_launches(x):
    ms = kt.do_bench_cudagraph(lambda: torch.softmax(x, dim=-1))
    assert kt.last_result().launch == "graph" and ms > 0


def test_tilelang_and_flashinfer_adapters_on_a_torch_op(x):
    assert tilelang.do_bench(lambda: torch.softmax(x, dim=-1), _n_repeat=12) > 0
    assert kt.last_result().protocol.trials * kt.last_result().protocol.repeats == 12
    times = flashinfer.bench_gpu_time(torch.softmax, input_args=(x,), input_kwargs={"dim": -1},
                                      dry_run_iters=2, repeat_iters=20)
    assert len(times) == 20 and all(t > 0 for t in times)
    graph_times = flashinfer.bench_gpu_time(torch.softmax, input_args=(x, -1),
                                            use_cuda_graph=True)
    assert len(graph_times) == 30 and kt.last_result().launch == "graph"


def test_a_slow_call_is_bounded_by_the_budget():
    m = torch.randn(8192, 8192, device="cuda")
    kt.do_bench(lambda: [torch.matmul(m, m) for _ in range(4)], warmup=5, rep=20)
    protocol = kt.last_result().protocol
    assert protocol.trials * protocol.repeats < 30 and protocol.warmup < 5


try:
    import triton
    import triton.testing
    import triton.language as tl
except ImportError:
    triton = None

if triton is not None:
    # Two configurations, so the autotuner times both with triton.testing.do_bench.
    @triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})],
                     key=["n"])
    @triton.jit
    def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)


@pytest.mark.skipif(triton is None, reason="Triton is not installed")
def test_patch_reaches_tritons_autotuner(x):
    flat = x.flatten()
    out = torch.empty_like(flat)
    kt.patch()
    try:
        assert triton.testing.do_bench is kt.do_bench
        before = kt.last_result()
        scale_kernel[lambda meta: (triton.cdiv(flat.numel(), meta["BLOCK"]),)](flat, out,
                                                                               flat.numel())
        torch.cuda.synchronize()
        after = kt.last_result()
        assert after is not before, "the autotuner's timing went through kerntime"
        assert [k.name for k in after.kernels] == ["scale_kernel"]
    finally:
        kt.unpatch()
    assert triton.testing.do_bench is not kt.do_bench


def test_an_unchanged_triton_script_runs_under_python_m_kerntime_testing(tmp_path):
    pytest.importorskip("triton")
    script = tmp_path / "triton_script.py"
    script.write_text(textwrap.dedent("""
        import torch, triton.testing, kerntime.testing
        x = torch.randn(1 << 20, device="cuda")
        ms = triton.testing.do_bench(lambda: x.mul(2))
        print(triton.testing.do_bench.__module__, kerntime.testing.last_result().timing_backend,
              ms > 0)
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-m", "kerntime.testing", str(script)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["kerntime.testing.triton", "cupti", "True"]
