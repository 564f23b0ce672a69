"""kerntime.session(): the scope that keeps CUPTI initialised between measurements, as a context
manager, a decorator, nested, with an exception inside, and held by the pytest plugin. The CUPTI
side (what a measurement leaves, what the end finalizes) is checked by the C++ scope tests with a
faked CUPTI and on the GPU (test_gpu_session.py)."""

import importlib

import pytest

import kerntime
from test_pytest_plugin import isolate


def test_a_session_nests_and_ends_with_its_outermost_block():
    start = kerntime.session.depth()  # the plugin's own, when it is loaded
    with kerntime.session() as outer:
        assert isinstance(outer, kerntime.session)
        assert kerntime.session.depth() == start + 1
        with kerntime.session():
            assert kerntime.session.depth() == start + 2
        assert kerntime.session.depth() == start + 1
    assert kerntime.session.depth() == start


def test_a_decorated_function_runs_inside_a_session_every_call():
    start = kerntime.session.depth()
    seen = []

    @kerntime.session()
    def sweep(n):
        seen.append(kerntime.session.depth())
        return n * 2

    assert sweep(2) == 4
    assert sweep(3) == 6
    assert seen == [start + 1, start + 1]
    assert kerntime.session.depth() == start


def test_an_exception_inside_ends_the_session_and_propagates():
    start = kerntime.session.depth()
    with pytest.raises(ZeroDivisionError):
        with kerntime.session():
            1 / 0
    assert kerntime.session.depth() == start


def test_a_second_exit_of_one_session_does_not_close_another():
    start = kerntime.session.depth()
    with kerntime.session():
        inner = kerntime.session()
        inner.__enter__()
        inner.__exit__(None, None, None)
        inner.__exit__(None, None, None)  # a stray second exit
        assert kerntime.session.depth() == start + 1
    assert kerntime.session.depth() == start


def test_a_decorated_function_that_recurses_opens_and_closes_its_scope_each_time():
    start = kerntime.session.depth()
    depths = []

    @kerntime.session()
    def walk(n):
        depths.append(kerntime.session.depth() - start)
        if n:
            walk(n - 1)

    walk(2)
    assert depths == [1, 2, 3]
    assert kerntime.session.depth() == start


def test_the_outermost_end_tells_the_engine_when_torch_profiler_is_active(monkeypatch):
    session_module = importlib.import_module("kerntime.session")  # kerntime.session is the class
    told = []
    leave = session_module._kerntime._leave_session

    def recording_leave(profiler_active=False):
        told.append(profiler_active)
        leave(profiler_active=profiler_active)

    monkeypatch.setattr(session_module._kerntime, "_leave_session", recording_leave)
    holder = kerntime._kerntime.CuptiHolder
    for state, active in [(holder.torch_profiler_recording, True),
                          (holder.torch_profiler_armed, True),
                          (holder.idle_torch_profiler, False), (holder.unknown, False)]:
        monkeypatch.setattr(session_module.torch_profiler_state, "cupti_holder",
                            lambda state=state: state)
        with kerntime.session():
            pass
        assert told[-1] is active, state


def test_a_session_without_measurements_keeps_and_finalizes_nothing():
    if kerntime.session.depth() > 0:
        pytest.skip("the pytest plugin holds a session here: the end is checked in a subprocess")
    with kerntime.session():
        assert kerntime.session.kept_resources() == 0
    assert kerntime.session.last_end() == "nothing_kept"


SESSION_TEST = '''
import kerntime


def test_depth():
    print("DEPTH", kerntime.session.depth())
'''


@pytest.mark.parametrize("flags, depth", [((), 1), (("--kerntime-no-session",), 0)])
def test_the_pytest_plugin_holds_a_session_unless_told_not_to(pytester, monkeypatch, flags, depth):
    isolate(monkeypatch)
    pytester.makepyfile(test_depth=SESSION_TEST)
    outcome = pytester.runpytest_subprocess("-p", "kerntime.pytest_plugin", "-s", *flags)
    outcome.assert_outcomes(passed=1)
    assert f"DEPTH {depth}" in outcome.stdout.str()
