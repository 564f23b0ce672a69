"""bench(cuda_graph=True) on real PyTorch work (H200, PyTorch 2.11): the callable is captured once
per input set and each iteration launches the graph. Skipped without a CUDA device or torch."""

import pytest

import kerntime

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)


def several_small_ops(t):
    return torch.relu(t * 2 + 1).sum(dim=0)


def test_a_multi_kernel_op_is_timed_as_a_graph_with_every_kernel_listed():
    x = torch.randn(256, 256, device="cuda")
    graph = kerntime.bench(several_small_ops, x, cuda_graph=True, backend="cupti")
    stream = kerntime.bench(several_small_ops, x, backend="cupti")
    assert graph.launch == "graph" and stream.launch == "stream"
    assert graph.to_dict()["protocol"]["launch"] == "graph"
    assert graph.timing_backend == "cupti"
    assert {k.name for k in graph.kernels} == {k.name for k in stream.kernels}
    assert all(k.calls_per_iteration >= 1 for k in graph.kernels)
    assert len(graph.samples) == graph.protocol.trials
    print(f"stream {stream.latency_ms * 1e3:.2f} us, graph {graph.latency_ms * 1e3:.2f} us")


def test_both_returns_the_stream_and_the_graph_result():
    x = torch.randn(256, 256, device="cuda")
    results = kerntime.bench(several_small_ops, x, cuda_graph="both", trials=2, repeat=20)
    assert list(results) == ["stream", "graph"]
    assert results["stream"].launch == "stream" and results["graph"].launch == "graph"


def test_a_callable_that_synchronizes_is_refused_with_the_reason():
    x = torch.randn(256, 256, device="cuda")
    with pytest.raises(kerntime.NotCapturable) as refused:
        kerntime.bench(lambda t: (t * 2).sum().item(), x, cuda_graph=True)
    assert refused.value.kind == "not_capturable"
    assert refused.value.why and refused.value.fix
    print(refused.value)
