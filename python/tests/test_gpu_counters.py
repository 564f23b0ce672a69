"""bench(counters=True) on the H200: hardware counters beside the time (docs/counters.md)."""

import pytest

import kerntime

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)


def test_a_copy_reads_and_writes_the_bytes_it_moves():
    src = torch.ones(64 << 20, device="cuda", dtype=torch.float32)  # 256 MiB
    dst = torch.empty_like(src)
    # torch.mul with out= is one elementwise kernel (copy_ would be a cudaMemcpy, no kernel).
    result = kerntime.bench(lambda a, b: torch.mul(a, 1.0, out=b), src, dst, counters=True,
                            backend="cupti")
    counters = result.counters
    assert counters.status == "measured", counters.reason
    assert counters.chip and counters.passes >= 1
    assert counters.kernels, "the copy kernel has counters"
    total = counters.metrics_total
    assert total["dram__bytes_read.sum"] == pytest.approx(src.nbytes, rel=0.02)
    assert total["dram__bytes_write.sum"] == pytest.approx(src.nbytes, rel=0.03)
    assert counters.derived.bound == "memory"
    assert 0.5 < counters.derived.dram_fraction_of_peak < 1.0  # of the table's 4.8 TB/s
    assert result.timing_backend == "cupti"


def test_a_bf16_matmul_is_compute_bound():
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    result = kerntime.bench(torch.matmul, a, b, counters=True)
    counters = result.counters
    assert counters.status == "measured", counters.reason
    assert counters.derived.compute_percent_of_peak > 50
    assert counters.derived.bound == "compute"


def test_an_unknown_metric_names_the_chip_and_runs_nothing():
    calls = []
    with pytest.raises(kerntime.InvalidArgument, match="not a metric of chip"):
        kerntime.bench(lambda: calls.append(1), metrics=["dram__byts_read.sum"])
    assert calls == []


def test_without_counters_the_block_says_not_requested():
    x = torch.randn(1 << 20, device="cuda")
    result = kerntime.bench(torch.neg, x, repeat=10, trials=2)
    assert result.counters.status == "not_requested"
