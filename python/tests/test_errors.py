"""kerntime's exception classes: one per C++ error type, all under KerntimeError, carrying the
error's facts as attributes. The C++ exceptions are thrown by an internal hook of the extension
so the translation is checked on machines where the engine cannot run."""

import ctypes

import pytest

import kerntime
from kerntime import _kerntime


@pytest.mark.parametrize("cls", [kerntime.InvalidArgument, kerntime.CuptiUnavailable,
                                 kerntime.BenchmarkFailed, kerntime.MeasurementInvalid,
                                 kerntime.DeviceUnavailable])
def test_every_error_derives_from_kerntime_error(cls):
    assert issubclass(cls, kerntime.KerntimeError)
    assert issubclass(kerntime.KerntimeError, Exception)


def test_errors_are_distinct_types():
    classes = {kerntime.InvalidArgument, kerntime.CuptiUnavailable, kerntime.BenchmarkFailed,
               kerntime.MeasurementInvalid, kerntime.DeviceUnavailable}
    assert len(classes) == 5
    assert not issubclass(kerntime.CuptiUnavailable, kerntime.BenchmarkFailed)


def test_cupti_unavailable_carries_the_reason():
    with pytest.raises(kerntime.CuptiUnavailable) as caught:
        _kerntime._throw_error("cupti_unavailable", "another profiler holds CUPTI")
    assert caught.value.reason == "another profiler holds CUPTI"
    assert "CUPTI unavailable: another profiler holds CUPTI" in str(caught.value)


def test_benchmark_failed_carries_the_cuda_error():
    with pytest.raises(kerntime.BenchmarkFailed) as caught:
        _kerntime._throw_error("benchmark_failed", "iteration 3")
    assert caught.value.cuda_error == 700
    assert caught.value.cuda_error_name == "cudaErrorIllegalAddress"
    assert caught.value.where == "iteration 3"
    assert "cudaErrorIllegalAddress" in str(caught.value)


@pytest.mark.parametrize("kind, cls", [("invalid_argument", kerntime.InvalidArgument),
                                       ("measurement_invalid", kerntime.MeasurementInvalid),
                                       ("error", kerntime.KerntimeError)])
def test_other_errors_keep_their_message(kind, cls):
    with pytest.raises(cls, match="dropped 12 records"):
        _kerntime._throw_error(kind, "dropped 12 records")


@pytest.mark.parametrize("kind, cls", [("invalid_argument", kerntime.InvalidArgument),
                                       ("device_unavailable", kerntime.DeviceUnavailable),
                                       ("cupti_unavailable", kerntime.CuptiUnavailable),
                                       ("benchmark_failed", kerntime.BenchmarkFailed),
                                       ("measurement_invalid", kerntime.MeasurementInvalid),
                                       ("error", kerntime.KerntimeError)])
def test_every_error_carries_the_kind_the_reports_name_it_by(kind, cls):
    with pytest.raises(cls) as caught:
        _kerntime._throw_error(kind, "a message")
    assert type(caught.value) is cls
    assert caught.value.kind == kind
    assert kerntime.errors.error_kind(caught.value) == kind
    assert kerntime.errors.error_kind(KeyError("not kerntime's")) == "error"


def test_errors_module_exports_the_same_classes():
    from kerntime import errors

    assert errors.CuptiUnavailable is kerntime.CuptiUnavailable is _kerntime.CuptiUnavailable


@pytest.mark.skipif(_kerntime.cuda_device_count() > 0, reason="this machine has a CUDA device")
def test_without_a_device_bench_fails_loudly_before_calling_fn():
    ran = []
    with pytest.raises(kerntime.KerntimeError, match="CUDA"):
        kerntime.bench(lambda: ran.append(1), warmup=1, trials=1, repeat=1)
    assert ran == []


def _driver_loads():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


@pytest.mark.skipif(_driver_loads(), reason="an NVIDIA driver is installed here")
def test_without_a_driver_bench_says_no_driver_is_installed():
    # The runtime's own words ("CUDA driver version is insufficient") would send a user to
    # upgrade a driver they do not have.
    with pytest.raises(kerntime.DeviceUnavailable, match="no NVIDIA driver is installed"):
        kerntime.bench(lambda: None)
