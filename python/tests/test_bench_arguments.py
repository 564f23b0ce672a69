"""What bench() hands to the engine: the input sets, the stream and the protocol. The engine is
replaced by a recorder that calls fn like the engine does (one input set per iteration, in
rotation) and returns the extension's fixed result; protocol errors come from the real C++
validation, which runs before any GPU work."""
import sys

import pytest

import kerntime
from kerntime import _kerntime

from fake_tensor import FakeTensor


class RecordingEngine:
    def __init__(self):
        self.calls = []
        self.seen = []

    def __call__(self, fn, input_sets, **options):
        self.calls.append((input_sets, options))
        for iteration in range(options["warmup"] + options["trials"] * options["repeats"]):
            args, kwargs = input_sets[iteration % len(input_sets)]
            fn(*args, **kwargs)
        return _kerntime._example_result()


@pytest.fixture
def engine(monkeypatch):
    recorder = RecordingEngine()
    monkeypatch.setattr(_kerntime, "measure", recorder)
    return recorder


def test_fn_sees_each_input_set_in_turn(engine):
    a = FakeTensor("a")
    seen = []
    result = kerntime.bench(lambda x, scale: seen.append((x, scale)), a, 2.0, warmup=1, trials=1,
                            repeat=5, input_sets=3)
    assert isinstance(result, kerntime.Result)
    tensors = [x for x, _ in seen]
    assert tensors[0] is a and tensors[3] is a  # set 0 is the original
    assert tensors[1].origin is a and tensors[2].origin is a and tensors[1] is not tensors[2]
    assert all(scale == 2.0 for _, scale in seen)
    assert a.clones == 2


def test_protocol_options_are_passed_through(engine):
    kerntime.bench(lambda: None, warmup=3, trials=2, repeat=7, flush_l2=False, input_sets=2,
                   backend="cupti", metric="busy")
    _, options = engine.calls[0]
    assert options["warmup"] == 3 and options["trials"] == 2 and options["repeats"] == 7
    assert options["flush_l2"] is False
    assert options["backend"] == "cupti" and options["metric"] == "busy"


def test_other_keyword_arguments_go_to_fn(engine):
    got = {}
    kerntime.bench(lambda **kw: got.update(kw), dim=-1, out=None, warmup=0, trials=1, repeat=1)
    assert got == {"dim": -1, "out": None}


def test_the_engine_waits_for_input_copies_only_when_there_are_some(engine):
    kerntime.bench(lambda x: None, FakeTensor("a"), warmup=0, trials=1, repeat=1)
    kerntime.bench(lambda x: None, 1.0, warmup=0, trials=1, repeat=1)
    kerntime.bench(lambda x: None, FakeTensor("a"), input_sets=1, warmup=0, trials=1, repeat=1)
    assert [options["wait_for_inputs"] for _, options in engine.calls] == [True, False, False]


def test_default_stream_without_a_framework_is_the_legacy_default(engine, monkeypatch):
    # Another test of the session may have imported torch or cupy: hide them here.
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    kerntime.bench(lambda: None, warmup=0, trials=1, repeat=1)
    _, options = engine.calls[0]
    assert options["stream"] == 0 and options["device"] == -1


class HasCudaStream:
    cuda_stream = 0x7F00


class HasPtr:
    ptr = 0x7F10


@pytest.mark.parametrize("stream, handle", [(0x1234, 0x1234), (HasCudaStream(), 0x7F00),
                                            (HasPtr(), 0x7F10)])
def test_an_explicit_stream_wins(engine, stream, handle):
    kerntime.bench(lambda: None, stream=stream, warmup=0, trials=1, repeat=1)
    _, options = engine.calls[0]
    assert options["stream"] == handle


@pytest.mark.parametrize("stream", ["default", -1, True, object()])
def test_an_unusable_stream_is_rejected(engine, stream):
    with pytest.raises(kerntime.InvalidArgument, match="stream"):
        kerntime.bench(lambda: None, stream=stream)
    assert engine.calls == []


def test_an_exception_in_fn_propagates_with_its_traceback(engine):
    def fn():
        raise KeyError("raised inside fn")

    with pytest.raises(KeyError, match="raised inside fn") as caught:
        kerntime.bench(fn, warmup=1, trials=1, repeat=1)
    assert caught.traceback[-1].name == "fn"


def test_the_stopping_rule_options_are_passed_through(engine):
    kerntime.bench(lambda: None, warmup=0, trials=1, repeat=1, stop_at_ci=0.5, max_trials=40,
                   max_time=12.5)
    _, options = engine.calls[0]
    assert options["stop_at_ci"] == 0.5 and options["max_trials"] == 40
    assert options["max_time"] == 12.5


@pytest.mark.parametrize("options, field", [({"trials": 0}, "trials"), ({"repeat": 0}, "repeats"),
                                            ({"warmup": -1}, "warmup"),
                                            ({"warmup": "often"}, "warmup"),
                                            ({"warmup": 2.5}, "warmup"),
                                            ({"backend": "nsight"}, "backend"),
                                            ({"metric": "mean"}, "metric"),
                                            ({"stop_at_ci": 0}, "stop_at_ci"),
                                            ({"stop_at_ci": 150}, "stop_at_ci"),
                                            ({"max_trials": 50}, "needs stop_at_ci"),
                                            ({"max_time": 5}, "needs stop_at_ci"),
                                            ({"stop_at_ci": 1, "trials": 9, "max_trials": 8},
                                             "max_trials"),
                                            ({"stop_at_ci": 1, "max_time": -1}, "max_time")])
def test_the_real_engine_rejects_a_bad_protocol_before_running(options, field):
    # No recorder here: the C++ binding validates before touching the GPU, so this runs on CPU.
    ran = []
    with pytest.raises(kerntime.InvalidArgument, match=field):
        kerntime.bench(lambda: ran.append(1), **options)
    assert ran == []


def test_result_stopping_says_which_rule_ran_and_what_it_reached():
    six = kerntime.Result(_kerntime._example_result(trials=6)).stopping
    assert six.trials == 6 and six.stopped_because == "trial_count"
    assert six.median_interval is not None and six.median_interval.confidence >= 0.95
    assert six.median_interval.low <= six.median_interval.high
    assert 0 < six.half_width < 0.05
    two = kerntime.Result(_kerntime._example_result(trials=2)).stopping
    assert two.median_interval is None and two.half_width is None


def test_counters_and_metrics_are_passed_through(engine):
    kerntime.bench(lambda: None, warmup=0, trials=1, repeat=1, counters=True)
    _, options = engine.calls[-1]
    assert options["counters"] is True and options["metrics"] == []
    kerntime.bench(lambda: None, warmup=0, trials=1, repeat=1,
                   metrics=("dram__bytes_read.sum", "gpu__time_duration.sum"))
    _, options = engine.calls[-1]
    assert options["counters"] is True  # metrics imply counters
    assert options["metrics"] == ["dram__bytes_read.sum", "gpu__time_duration.sum"]
    kerntime.bench(lambda: None, warmup=0, trials=1, repeat=1)
    _, options = engine.calls[-1]
    assert options["counters"] is False


@pytest.mark.parametrize("metrics", ["dram__bytes_read.sum", [1, 2], ["ok.sum", None]])
def test_metrics_must_be_a_list_of_names(engine, metrics):
    with pytest.raises(kerntime.InvalidArgument, match="metrics takes a list of CUPTI metric"):
        kerntime.bench(lambda: None, metrics=metrics)
    assert engine.calls == []


def test_counters_with_events_is_refused_by_the_protocol():
    # The real engine: the protocol check runs before any GPU work.
    with pytest.raises(kerntime.InvalidArgument, match="counters needs CUPTI"):
        kerntime.bench(lambda: None, counters=True, backend="events")


def test_a_metric_name_with_a_comma_is_refused():
    with pytest.raises(kerntime.InvalidArgument, match="one per entry"):
        kerntime.bench(lambda: None, metrics=["dram__bytes_read.sum,dram__bytes_write.sum"])


@pytest.mark.parametrize("fn", [None, 3, "torch.matmul"])
def test_something_not_callable_is_a_type_error_before_anything_runs(engine, fn):
    with pytest.raises(TypeError, match="kerntime.bench measures a callable"):
        kerntime.bench(fn)
    assert engine.calls == []
