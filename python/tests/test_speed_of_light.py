"""bench(flops=, bytes=, dtype=): the precision names and torch dtypes accepted, the errors, and
Result.speed_of_light from the C++ code `kerntime run` uses, on the extension's fixed result with
an H200's clocks and bus width (no GPU needed), against figures computed by hand."""

import json
import math

import pytest

import kerntime
from kerntime import _kerntime
from kerntime.declared_work import precision_name
from kerntime.session_report import RecordedResult, read_json, render_json, render_markdown

# sm_90 in docs/speed-of-light.md: 132 SMs x 1980 MHz x 4096 bf16 FLOP per clock per SM, and
# DRAM 2 x 3201 MHz x 6016 bits / 8.
H200_BF16_FLOPS_PER_S = 132 * 1980e6 * 4096
H200_DRAM_BYTES_PER_S = 2 * 3201e6 * 6016 / 8
LATENCY_NS = 11350  # the fixture's median span: (11350 + 11350) / 2 of its eight iterations


class FakeDtype:
    """Prints like a torch dtype, as str(torch.bfloat16) does."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


@pytest.fixture
def engine(monkeypatch):
    monkeypatch.setattr(_kerntime, "measure",
                        lambda fn, sets, **options: _kerntime._example_result(h200_peaks=True))


@pytest.mark.parametrize("dtype, name", [
    ("bf16_tensor", "bf16_tensor"), ("fp32", "fp32"), ("tf32_tensor", "tf32_tensor"),
    (FakeDtype("bfloat16"), "bf16_tensor"), (FakeDtype("float16"), "fp16_tensor"),
    (FakeDtype("float32"), "fp32"), (FakeDtype("float64"), "fp64"),
    (FakeDtype("float8_e4m3fn"), "fp8_tensor"), (FakeDtype("float8_e5m2"), "fp8_tensor"),
    (FakeDtype("int8"), "int8_tensor"), (None, None)])
def test_dtype_names_a_kerntime_precision(dtype, name):
    assert precision_name(dtype) == name


@pytest.mark.parametrize("dtype", ["bfloat16", "fp4", FakeDtype("complex64"), 3])
def test_an_unknown_dtype_is_a_value_error_naming_the_accepted_names(dtype):
    with pytest.raises(ValueError, match="bf16_tensor.*torch.bfloat16"):
        precision_name(dtype)


@pytest.mark.parametrize("options, match", [
    (dict(flops=-1.0), "flops= must be a finite count >= 0"),
    (dict(flops=math.nan), "flops= must be a finite count >= 0"),
    (dict(bytes=math.inf), "bytes= must be a finite count >= 0"),
    (dict(bytes="1GB"), "bytes= must be a number per iteration"),
    (dict(flops=True), "flops= must be a number per iteration"),
    (dict(flops=1e9, dtype="bfloat16"), "fp64, fp64_tensor")])
def test_invalid_work_is_refused_before_anything_runs(options, match, monkeypatch):
    monkeypatch.setattr(_kerntime, "measure", lambda *a, **k: pytest.fail("measured"))
    with pytest.raises(ValueError, match=match):
        kerntime.bench(lambda: None, **options)


def test_speed_of_light_matches_the_hand_computed_roofline(engine):
    result = kerntime.bench(lambda: None, flops=1e10, bytes=1e7, dtype=FakeDtype("bfloat16"))
    assert result.measurement.latency_ns == LATENCY_NS
    sol = result.speed_of_light
    assert sol.precision == "bf16_tensor"
    assert sol.peak_flops_per_s == pytest.approx(H200_BF16_FLOPS_PER_S)  # 1070.5 TFLOP/s
    assert sol.peak_bytes_per_s == pytest.approx(H200_DRAM_BYTES_PER_S)  # 4814.3 GB/s
    assert sol.compute_pct == pytest.approx(100 * 1e10 / (LATENCY_NS * 1e-9) / 1070.53056e12)
    assert sol.compute_pct == pytest.approx(82.30, abs=0.01)
    assert sol.memory_pct == pytest.approx(18.30, abs=0.01)
    assert sol.bound == "compute"
    assert sol.roofline_ns == pytest.approx(1e10 / H200_BF16_FLOPS_PER_S * 1e9)  # 9341 ns
    assert "sm_90" in sol.peak_source
    assert repr(sol).startswith("SpeedOfLight(") and "bound='compute'" in repr(sol)
    assert result.tflops == pytest.approx(1e10 / (LATENCY_NS * 1e-9) / 1e12)
    assert result.gbps == pytest.approx(1e7 / (LATENCY_NS * 1e-9) / 1e9)


def test_bytes_alone_give_a_memory_bound(engine):
    result = kerntime.bench(lambda: None, bytes=1e8)
    sol = result.speed_of_light
    assert sol.precision is None and sol.compute_pct is None
    assert sol.bound == "memory"
    assert sol.memory_pct == pytest.approx(100 * 1e8 / (LATENCY_NS * 1e-9) / H200_DRAM_BYTES_PER_S)
    assert result.tflops is None


def test_nothing_declared_has_no_speed_of_light(engine):
    result = kerntime.bench(lambda: None)
    assert result.speed_of_light is None
    assert result.tflops is None and result.gbps is None


def test_a_gpu_outside_the_peak_table_has_no_speed_of_light():
    # The plain fixture has no clocks: no peak is known, as for an architecture not in the table.
    result = kerntime.Result(_kerntime._example_result(), flops=1e10, precision="bf16_tensor")
    assert result.speed_of_light is None
    assert result.tflops == pytest.approx(1e10 / (LATENCY_NS * 1e-9) / 1e12)


@pytest.mark.reads_results
def test_the_session_report_carries_the_work_and_its_speed_of_light(engine):
    result = kerntime.bench(lambda: None, flops=1e10, bytes=1e7, dtype="bf16_tensor")
    recorded = [RecordedResult("test_gemm", "result", False, True, result)]
    text = render_json(recorded, "pytest")
    run = json.loads(text)["runs"][0]
    assert run["flops_per_iteration"] == 1e10 and run["bytes_per_iteration"] == 1e7
    assert run["flops_precision"] == "bf16_tensor"
    assert run["speed_of_light"]["bound"] == "compute"
    assert run["speed_of_light"]["compute_pct"] == pytest.approx(82.30, abs=0.01)
    back = read_json(text, "session.json")[0].result
    assert (back.flops, back.bytes, back.precision) == (1e10, 1e7, "bf16_tensor")
    assert back.speed_of_light.compute_pct == pytest.approx(result.speed_of_light.compute_pct)
    assert "82.3" in render_markdown(recorded, "pytest")
