"""When kerntime may share CUPTI with torch.profiler: every condition of the grant, decided on
stand-in torch objects shaped like torch 2.11's (no GPU, no torch needed)."""

import sys
import types

import pytest

from kerntime import _kerntime, torch_profiler_state as state

Holder = _kerntime.CuptiHolder


class StandInProfile:
    """Shaped like torch.autograd.profiler.profile: prepare (Kineto armed), exit."""

    def __init__(self, fail_prepare=False):
        self.fail_prepare = fail_prepare
        self.calls = []

    def _prepare_trace(self):
        self.calls.append("prepare")
        if self.fail_prepare:
            raise RuntimeError("prepare failed")

    def _start_trace(self):
        self.calls.append("start")

    def __exit__(self, *exc):
        self.calls.append("exit")
        return False


def stand_in_torch(kineto=True, recording=False, python_flag=False, profile_class=None):
    profiler = types.SimpleNamespace(_is_profiler_enabled=python_flag,
                                     profile=profile_class or type("P", (StandInProfile,), {}))
    autograd = types.SimpleNamespace(kineto_available=lambda: kineto,
                                     _profiler_enabled=lambda: recording, profiler=profiler)
    return types.SimpleNamespace(autograd=autograd)


@pytest.fixture(autouse=True)
def fresh_tracking(monkeypatch):
    monkeypatch.setattr(state, "_prepared", {})
    monkeypatch.setattr(state, "_watched_from_import", False)
    monkeypatch.setattr(state, "_ever_prepared", False)


def holder(torch, **environ):
    return state.cupti_holder(torch, environ)


def test_an_idle_profiler_is_granted():
    assert holder(stand_in_torch()) == Holder.idle_torch_profiler


def test_without_torch_loaded_the_holder_is_another_tool(monkeypatch):
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert state.cupti_holder(None, {}) == Holder.unknown


def test_without_kineto_the_holder_is_another_tool():
    assert holder(stand_in_torch(kineto=False)) == Holder.unknown


def test_a_recording_profiler_is_refused_by_either_flag():
    assert holder(stand_in_torch(recording=True)) == Holder.torch_profiler_recording
    assert holder(stand_in_torch(python_flag=True)) == Holder.torch_profiler_recording


def test_a_profiler_between_prepare_and_exit_is_armed():
    torch = stand_in_torch()
    profiler = torch.autograd.profiler.profile()
    assert holder(torch) == Holder.idle_torch_profiler  # the check wraps the class
    profiler._prepare_trace()  # a schedule's warm-up step: torch's flags still say idle
    assert holder(torch) == Holder.torch_profiler_armed
    profiler._start_trace()
    assert holder(stand_in_torch(recording=True, profile_class=type(profiler))) == \
        Holder.torch_profiler_recording
    profiler.__exit__(None, None, None)
    assert holder(torch) == Holder.idle_torch_profiler
    assert profiler.calls == ["prepare", "start", "exit"]  # the wrapped methods still ran


def test_a_failed_prepare_leaves_nothing_armed():
    torch = stand_in_torch()
    assert holder(torch) == Holder.idle_torch_profiler
    profiler = torch.autograd.profiler.profile(fail_prepare=True)
    with pytest.raises(RuntimeError, match="prepare failed"):
        profiler._prepare_trace()
    assert holder(torch) == Holder.idle_torch_profiler


def test_a_profiler_dropped_while_armed_stays_armed():
    torch = stand_in_torch()
    holder(torch)
    torch.autograd.profiler.profile()._prepare_trace()  # no reference kept, never exited
    assert holder(torch) == Holder.torch_profiler_armed


def test_the_kineto_daemon_refuses_sharing():
    assert holder(stand_in_torch(), KINETO_USE_DAEMON="1") == Holder.kineto_daemon
    assert holder(stand_in_torch(), KINETO_USE_DAEMON="") == Holder.idle_torch_profiler


def test_an_injected_tool_holds_cupti_whatever_torch_says():
    assert holder(stand_in_torch(), CUDA_INJECTION64_PATH="/opt/nsys/libToolsInjection64.so") \
        == Holder.injected_tool


def test_a_profiler_class_that_cannot_be_wrapped_gives_no_proof_of_idleness():
    torch = stand_in_torch(profile_class=type("Bare", (), {}))
    assert holder(torch) == Holder.unknown


def test_watched_since_import_and_never_used_means_kineto_never_subscribed(monkeypatch):
    monkeypatch.setattr(state, "_watched_from_import", True)
    torch = stand_in_torch()
    assert holder(torch) == Holder.unknown
    profiler = torch.autograd.profiler.profile()
    profiler._prepare_trace()
    profiler.__exit__(None, None, None)
    assert holder(torch) == Holder.idle_torch_profiler


def test_wrapping_twice_wraps_once():
    profile_class = type("P", (StandInProfile,), {})
    assert state.track(profile_class) and state.track(profile_class)
    profiler = profile_class()
    profiler._prepare_trace()
    profiler.__exit__(None, None, None)
    assert profiler.calls == ["prepare", "exit"]


def test_the_profiler_module_is_wrapped_when_imported_after_kerntime():
    profile_class = type("P", (StandInProfile,), {})

    class TorchLoader:
        def exec_module(self, module):
            module.profile = profile_class

        def get_source(self, name):
            return "source of " + name

    loader = state._TrackingLoader(TorchLoader())
    module = types.ModuleType("torch.autograd.profiler")
    loader.exec_module(module)
    assert getattr(profile_class, state._MARK)
    assert state._watched_from_import
    assert loader.get_source("m") == "source of m"  # tracebacks still find the source


def test_the_reasons_are_the_words_every_output_gives():
    assert state.describe(Holder.torch_profiler_recording) == "torch.profiler is recording"
    assert state.describe(Holder.torch_profiler_armed).startswith("torch.profiler is armed")
    assert state.describe(Holder.unknown).startswith("held by another tool")
    assert state.describe(Holder.injected_tool).startswith("held by another tool")
    assert state.describe(Holder.idle_torch_profiler) == "shared with an idle torch.profiler"
