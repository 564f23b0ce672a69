"""The Result object: its contents match the C++ measurement_result it wraps, and to_json() /
to_dict() are the C++ engine's own serialisation. The result is the extension's fixed test
fixture (kerntime._kerntime._example_result), rendered by the real C++ code."""

import json
import pathlib
import statistics

import pytest

import kerntime
from kerntime import _kerntime


@pytest.fixture
def result():
    return kerntime.Result(_kerntime._example_result())


def all_spans(result):
    return [sample.span_ms for trial in result.samples for sample in trial]


def test_latency_is_the_median_span_in_ms(result):
    assert result.metric == "span"
    assert result.latency_ms == pytest.approx(statistics.median(all_spans(result)))
    assert result.latency_ms == pytest.approx(result.measurement.latency_ns / 1e6)


def test_stdev_is_the_sample_stdev_of_every_iteration(result):
    assert result.stdev_ms == pytest.approx(statistics.stdev(all_spans(result)))
    assert result.stats.stdev_ms == result.stdev_ms


def test_samples_are_per_trial_lists_of_span_and_busy(result):
    protocol = result.protocol
    assert len(result.samples) == protocol.trials == 2
    assert all(len(trial) == protocol.repeats == 4 for trial in result.samples)
    first = result.samples[0][0]
    assert first.span_ms == pytest.approx(0.01125)  # 10 us kernel + 1 us memset + 0.25 us gap
    assert first.busy_ms == pytest.approx(0.011)
    assert result.trial_means_ms == pytest.approx(
        [statistics.mean(s.span_ms for s in trial) for trial in result.samples])


def test_backend_and_reason(result):
    assert result.timing_backend == "cupti"
    assert "fixture" in result.backend_reason
    events = kerntime.Result(_kerntime._example_result(backend="events"))
    assert events.timing_backend == "events" and events.kernels == []


def test_kernels_are_listed_with_kind_calls_times_and_share(result):
    names = [k.name for k in result.kernels]
    assert names == ['void gemm<float, 128>(params<"tn", 3>, int)', "[CUDA memset]"]
    gemm, memset = result.kernels
    assert gemm.kind == "kernel" and memset.kind == "memset"
    assert gemm.calls_per_iteration == 1
    assert memset.mean_ms == pytest.approx(0.001)
    assert gemm.share + memset.share == pytest.approx(1.0)
    assert gemm.mean_ms == pytest.approx(result.busy_stats.mean_ms - memset.mean_ms)
    assert [k.name for k in result.top_kernels(1)] == [gemm.name]


def test_telemetry_and_warnings(result):
    assert result.telemetry.device.available is False
    assert "fixture" in result.telemetry.device.unavailable_reason
    assert len(result.telemetry.trials) == 2
    assert result.telemetry.throttled_trials == []
    assert result.warnings and "not a measurement" in result.warnings[0]


def test_scale_multiplies_every_time():
    base = kerntime.Result(_kerntime._example_result())
    doubled = kerntime.Result(_kerntime._example_result(scale=2.0))
    assert doubled.latency_ms == pytest.approx(2 * base.latency_ms)
    assert doubled.kernels[0].mean_ms == pytest.approx(2 * base.kernels[0].mean_ms)


def test_to_dict_is_the_parsed_cpp_json(result):
    text = result.to_json()
    assert result.to_dict() == json.loads(text)
    assert text == _kerntime.to_json(result.measurement)


def test_json_holds_the_same_numbers_as_the_object(result):
    d = result.to_dict()
    assert d["timing_backend"] == result.timing_backend
    assert d["latency_ns"] == pytest.approx(result.latency_ms * 1e6)
    assert [k["name"] for k in d["kernels"]] == [k.name for k in result.kernels]
    assert d["trials"][0]["span_ns"] == pytest.approx(
        [s.span_ms * 1e6 for s in result.samples[0]])
    assert d["warnings"] == result.warnings


def test_host_phases_name_every_phase_in_seconds_as_the_json_does(result):
    phases = result.host_phases
    assert list(phases) == ["prepare", "warmup", "attach", "first_calls", "trials", "telemetry",
                            "detach", "counter_pass", "summarise"]
    assert phases["trials"] == 0.02 and phases["telemetry"] == 0.001
    assert phases == result.to_dict()["host_phases_seconds"]


def test_kernel_names_with_quotes_survive_the_json_round_trip(result):
    parsed = json.loads(result.to_json())
    assert parsed["kernels"][0]["name"] == 'void gemm<float, 128>(params<"tn", 3>, int)'


def test_repr_and_str_name_the_latency_and_kernels(result):
    assert f"{result.latency_ms:.4f} ms" in repr(result)
    assert "[CUDA memset]" in str(result)


def test_result_only_wraps_engine_results():
    with pytest.raises(TypeError):
        kerntime.Result({"latency_ns": 1})


def test_load_gives_each_measured_state_of_a_kerntime_json_as_bench_returns_it():
    if not hasattr(_kerntime, "read_result_set"):
        pytest.skip("this build of kerntime has no compare (the reader's binding)")
    data = pathlib.Path(__file__).resolve().parents[2] / "tests" / "report" / "data"
    results = kerntime.load(data / "h200-suite.json")
    assert len(results) >= 20
    gemm = results["gemm_bf16/size=4096"]
    assert isinstance(gemm, kerntime.Result)
    assert gemm.latency_ms == pytest.approx(0.173854, rel=1e-6)
    assert gemm.timing_backend == "cupti"
    assert gemm.kernels and gemm.flops is not None
    assert gemm.tflops == pytest.approx(790.6, rel=0.001)  # 2 × 4096³ flops in 173.854 µs
    assert gemm.timer_resolution_ns == pytest.approx(32, abs=1)  # read off the old file's spans
    assert list(results)[0] == "copy/bytes=1048576/l2=cold"  # the file's order


def test_one_measurement_is_one_preparation_with_no_spread(result):
    assert result.preparations == 1
    assert result.preparation_spread is None
    assert result.to_dict()["preparations"] == 1
    assert result.to_dict()["preparation_spread"] is None


def test_preparations_and_their_spread_read_back_from_a_run_file(tmp_path):
    if not hasattr(_kerntime, "read_result_set"):
        pytest.skip("this build of kerntime has no compare (the reader's binding)")
    data = pathlib.Path(__file__).resolve().parents[2] / "tests" / "report" / "data"
    document = json.loads((data / "h200-suite.json").read_text())
    edited = next(run for run in document["runs"] if run["state_name"] == "gemm_bf16/size=4096")
    edited["result"]["preparations"] = 5
    edited["result"]["preparation_spread"] = 0.0213
    path = tmp_path / "pooled.json"
    path.write_text(json.dumps(document))
    results = kerntime.load(path)
    assert results["gemm_bf16/size=4096"].preparations == 5
    assert results["gemm_bf16/size=4096"].preparation_spread == pytest.approx(0.0213)
    assert results["copy/bytes=1048576/l2=cold"].preparations == 1  # written before the field


def test_load_of_a_file_that_is_not_a_result_set_names_the_file():
    if not hasattr(_kerntime, "read_result_set"):
        pytest.skip("this build of kerntime has no compare (the reader's binding)")
    with pytest.raises(kerntime.InvalidArgument, match="nothing.json"):
        kerntime.load("nothing.json")


def test_every_result_object_has_a_readable_repr(result):
    # print(result.counters) once said <kerntime._kerntime.Counters object at 0x...>.
    stopping = repr(result.stopping)
    assert stopping.startswith("StoppingSummary(") and "trials=" in stopping
    counters = repr(result.counters)
    assert counters.startswith("Counters(") and "status='" in counters
    assert repr(result.measurement).startswith("MeasurementResult(")
    assert "[" in repr(result.measurement)  # its long lists are counted, not printed
    assert " object at 0x" not in repr(result.measurement.device)
    for name in kerntime.reprs.RESULT_CLASSES:
        cls = getattr(_kerntime, name)
        assert "__repr__" in vars(cls), name
