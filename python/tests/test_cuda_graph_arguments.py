"""bench(cuda_graph=...) without a GPU: what reaches the engine (a recorder stands in for it, as
in test_bench_arguments), the "both" result, a refused value, and the NotCapturable error the
engine raises for work that cannot be captured (thrown by the extension's internal hook)."""

import pytest

import kerntime
from kerntime import _kerntime

from fake_tensor import FakeTensor


@pytest.fixture
def engine(monkeypatch):
    calls = []

    def record(fn, input_sets, **options):
        calls.append(options)
        return _kerntime._example_result()

    monkeypatch.setattr(_kerntime, "measure", record)
    return calls


def test_cuda_graph_reaches_the_engine(engine):
    kerntime.bench(lambda x: None, FakeTensor("a"), cuda_graph=True, stream=5)
    kerntime.bench(lambda x: None, FakeTensor("a"), stream=5)
    assert [call["cuda_graph"] for call in engine] == [True, False]


def test_both_measures_stream_then_graph_with_the_same_protocol(engine):
    results = kerntime.bench(lambda x: None, FakeTensor("a"), cuda_graph="both", trials=2,
                             repeat=7, stream=5)
    assert list(results) == ["stream", "graph"]
    assert all(isinstance(r, kerntime.Result) for r in results.values())
    assert [call["cuda_graph"] for call in engine] == [False, True]
    assert all(call["trials"] == 2 and call["repeats"] == 7 for call in engine)


def test_an_unknown_value_is_refused_before_anything_runs(engine):
    with pytest.raises(kerntime.InvalidArgument, match='cuda_graph takes True, False or "both"'):
        kerntime.bench(lambda x: None, FakeTensor("a"), cuda_graph="yes")
    assert engine == []


def test_not_capturable_carries_why_and_fix():
    with pytest.raises(kerntime.NotCapturable) as caught:
        _kerntime._throw_error("not_capturable", "it synchronized with the host")
    assert issubclass(kerntime.NotCapturable, kerntime.KerntimeError)
    assert caught.value.kind == "not_capturable"
    assert caught.value.capture_error == "cudaErrorStreamCaptureUnsupported"
    assert caught.value.why == "it synchronized with the host"
    assert caught.value.fix == "the fix"
    assert "cannot be captured into a CUDA graph" in str(caught.value)
