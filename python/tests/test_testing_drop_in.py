"""kerntime.testing: the drop-in do_bench functions translate their frameworks' arguments and
return conventions, and nothing else. The engine call is the one thing replaced here: it returns
the extension's fixed measurement (kerntime._kerntime._example_result, real C++ objects), and
records what the adapter asked of kerntime.bench(). GPU tests of the same adapters on real torch
ops are in test_gpu_testing_drop_in.py."""

import inspect
import statistics
import subprocess
import sys
import textwrap
import types
import warnings

import pytest

import kerntime
import kerntime.testing as kt
from kerntime import _kerntime
from kerntime.testing import budget, drop_in, summary
from kerntime.testing import flashinfer as flashinfer_drop_in
from kerntime.testing import tilelang as tilelang_drop_in
from kerntime.testing import triton as triton_drop_in


class Engine:
    """Stands in for kerntime.bench(): records each call, runs the measured callable once with the
    first input set (so wrappers are exercised), returns the fixed measurement."""

    def __init__(self, backend="cupti"):
        self.backend = backend
        self.engine_warnings = False  # the fixture's own warning ("not a measurement"), or none
        self.calls = []

    def __call__(self, fn, *args, **options):
        self.calls.append((fn, args, options))
        fn(*args)
        result = kerntime.Result(_kerntime._example_result(backend=self.backend))
        if not self.engine_warnings:
            result.__dict__["warnings"] = []
        return result


@pytest.fixture
def engine(monkeypatch):
    fake = Engine()
    monkeypatch.setattr(drop_in, "bench", fake)
    monkeypatch.setattr(drop_in, "keep_session", lambda: None)
    for module in (triton_drop_in, tilelang_drop_in, flashinfer_drop_in):
        monkeypatch.setattr(module, "estimate_call_ms", lambda fn: 0.01)
    return fake


def example_times():
    result = kerntime.Result(_kerntime._example_result())
    return [sample.span_ms for trial in result.samples for sample in trial]


# --- budgets into counts ------------------------------------------------------------------------

def test_default_budgets_give_5_warmup_and_3_trials_of_10():
    counts = budget.iterations_for(25, 100, estimate_ms=0.005)
    assert (counts.warmup, counts.trials, counts.repeat, counts.measured) == (5, 3, 10, 30)


def test_without_an_estimate_the_caps_apply():
    assert budget.iterations_for(25, 100, None).measured == 30


def test_a_slow_call_gets_what_the_budget_allows():
    counts = budget.iterations_for(25, 100, estimate_ms=10.0)
    assert counts.warmup == 2 and counts.measured == 10 and (counts.trials, counts.repeat) == (2, 5)
    slowest = budget.iterations_for(25, 100, estimate_ms=500.0)
    assert (slowest.warmup, slowest.trials, slowest.repeat) == (1, 1, 1)


def test_larger_budgets_raise_the_caps_proportionally():
    counts = budget.iterations_for(250, 1000, estimate_ms=0.001)
    assert counts.warmup == 50 and counts.measured == 300


def test_exact_counts_are_used_exactly_even_when_prime():
    counts = budget.iterations_for(25, 100, 0.01, warmup_count=3, repeat_count=31)
    assert counts.warmup == 3 and counts.measured == 31 and counts.trials == 1


def test_zero_means_auto_only_where_the_framework_says_so():
    assert budget.iterations_for(25, 100, None, 0, 0).measured == 30  # TileLang's _n_repeat=0
    no_warmup = budget.iterations_for(25, 100, None, 0, 12, zero_is_auto=False)  # FlashInfer's
    assert no_warmup.warmup == 0 and no_warmup.measured == 12
    with pytest.raises(kerntime.InvalidArgument, match="repeat_iters must be at least 1"):
        budget.iterations_for(25, 100, None, 0, 0, zero_is_auto=False,
                              names=("dry_run_time_ms", "repeat_time_ms", "dry_run_iters",
                                     "repeat_iters"))


@pytest.mark.parametrize("bad", [0, -5, float("nan"), float("inf"), "100", True, None])
def test_a_budget_that_is_not_a_positive_number_is_refused_by_its_name(bad):
    with pytest.raises(kerntime.InvalidArgument, match=r"rep is a time budget in milliseconds"):
        budget.iterations_for(25, bad, None)


@pytest.mark.parametrize("bad", [-1, 2.5, "3", True])
def test_an_iteration_count_that_is_not_a_whole_number_is_refused(bad):
    with pytest.raises(kerntime.InvalidArgument, match=r"_n_warmup is a number of iterations"):
        budget.iterations_for(25, 100, None, bad, None,
                              names=("warmup", "rep", "_n_warmup", "_n_repeat"))


# --- return conventions -------------------------------------------------------------------------

def test_quantiles_interpolate_between_order_statistics():
    times = [4.0, 1.0, 3.0, 2.0]
    assert summary.summarise(times, [0.5], "mean") == 2.5
    assert summary.summarise(times, [0.2, 0.8, 0.0, 1.0], "mean") == pytest.approx(
        [1.6, 3.4, 1.0, 4.0])


def test_return_modes():
    times = [4.0, 1.0, 3.0, 2.0]
    assert summary.summarise(times, None, "mean") == 2.5
    assert summary.summarise(times, None, "median") == 2.5
    assert summary.summarise(times, None, "min") == 1.0
    assert summary.summarise(times, None, "max") == 4.0
    assert summary.summarise(times, None, "all") == times


@pytest.mark.parametrize("bad", [[1.5], [-0.1], ["0.5"], "0.5", [], [True]])
def test_quantiles_must_be_fractions(bad):
    with pytest.raises(kerntime.InvalidArgument, match="quantiles"):
        summary.check_quantiles(bad)


# --- Triton's do_bench --------------------------------------------------------------------------

def test_do_bench_returns_the_mean_iteration_time_in_ms(engine):
    value = kt.do_bench(lambda: None)
    assert value == pytest.approx(statistics.mean(example_times()))
    assert kt.last_result() is not None and kt.last_result().timing_backend == "cupti"


def test_do_bench_asks_kerntime_for_its_counts_on_a_cold_l2_without_input_copies(engine):
    kt.do_bench(lambda: None)
    _, args, options = engine.calls[-1]
    assert args == ()
    assert options == dict(warmup=5, trials=3, repeat=10, flush_l2=True, input_sets=1,
                           cuda_graph=False)


def test_do_bench_quantiles_and_all(engine):
    times = example_times()
    median, low, high = kt.do_bench(lambda: None, quantiles=[0.5, 0.2, 0.8])
    ordered = sorted(times)
    assert median == pytest.approx(summary.quantile(ordered, 0.5))
    assert low <= median <= high
    assert kt.do_bench(lambda: None, quantiles=[0.5]) == pytest.approx(median)
    assert kt.do_bench(lambda: None, return_mode="all") == pytest.approx(times)
    assert kt.do_bench(lambda: None, return_mode="min") == pytest.approx(min(times))


def test_do_bench_refuses_an_unknown_return_mode_before_measuring(engine):
    with pytest.raises(kerntime.InvalidArgument, match="return_mode must be one of"):
        kt.do_bench(lambda: None, return_mode="p50")
    assert engine.calls == []


def test_grad_to_none_clears_each_grad_before_every_call(engine):
    seen = []
    a, b = types.SimpleNamespace(grad=1), types.SimpleNamespace(grad=2)

    def fn():
        seen.append((a.grad, b.grad))

    kt.do_bench(fn, grad_to_none=[a, b])
    assert seen == [(None, None)]  # the engine's one call of the measured callable


def test_do_bench_cudagraph_measures_graph_launches(engine):
    kt.do_bench_cudagraph(lambda: None)
    _, _, options = engine.calls[-1]
    assert options["cuda_graph"] is True and options["trials"] * options["repeat"] == 30


def test_an_event_fallback_is_said_as_a_timing_warning(engine):
    engine.backend = "events"
    with pytest.warns(kt.TimingWarning, match=r"kerntime.testing.do_bench: timed with CUDA "
                                              r"events, not CUPTI \(.+\); the times include"):
        kt.do_bench(lambda: None)


def test_cupti_timing_without_engine_warnings_warns_nothing(engine):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kt.do_bench(lambda: None)


def test_the_engines_warnings_reach_the_caller(engine):
    engine.engine_warnings = True
    with pytest.warns(kt.TimingWarning, match=r"^kerntime.testing.do_bench: example result built "
                                              r"for kerntime's tests; not a measurement$"):
        kt.do_bench(lambda: None)


# --- TileLang's do_bench ------------------------------------------------------------------------

def test_tilelang_cudagraph_backend_and_exact_counts(engine):
    tilelang_drop_in.do_bench(lambda: None, backend="cudagraph", _n_warmup=2, _n_repeat=7)
    _, _, options = engine.calls[-1]
    assert options["cuda_graph"] is True
    assert (options["warmup"], options["trials"], options["repeat"]) == (2, 1, 7)


@pytest.mark.parametrize("backend", ["event", "cupti"])
def test_tilelang_event_and_cupti_backends_are_both_kerntimes_timer(engine, backend):
    tilelang_drop_in.do_bench(lambda: None, backend=backend)
    assert engine.calls[-1][2]["cuda_graph"] is False


def test_tilelang_refuses_what_tilelang_refuses(engine):
    with pytest.raises(kerntime.InvalidArgument, match="return_mode"):
        tilelang_drop_in.do_bench(lambda: None, return_mode="all")
    with pytest.raises(kerntime.InvalidArgument, match="backend must be one of"):
        tilelang_drop_in.do_bench(lambda: None, backend="nsys")
    assert engine.calls == []


def test_tilelang_early_stop_returns_the_estimate_without_measuring(engine, monkeypatch):
    monkeypatch.setattr(tilelang_drop_in, "estimate_call_ms", lambda fn: 5.0)
    assert tilelang_drop_in.do_bench(lambda: None, early_stop_baseline=1.0) == 5.0
    assert tilelang_drop_in.do_bench(lambda: None, early_stop_baseline=1.0, quantiles=[0.5, 0.9]) == [
        5.0, 5.0]
    assert engine.calls == []


# --- FlashInfer's bench_gpu_time ----------------------------------------------------------------

def test_bench_gpu_time_returns_every_iteration_time(engine):
    assert flashinfer_drop_in.bench_gpu_time(lambda: None) == pytest.approx(example_times())


def test_bench_gpu_time_passes_its_arguments_and_keeps_fn_keywords_apart(engine):
    received = []

    def fn(x, stream, bytes):  # keyword names that are kerntime.bench()'s own parameters
        received.append((x, stream, bytes))

    flashinfer_drop_in.bench_gpu_time(fn, input_args=(1,), input_kwargs={"stream": 2, "bytes": 3},
                              dry_run_iters=0, repeat_iters=12)
    assert received == [(1, 2, 3)]
    _, args, options = engine.calls[-1]
    assert args == (1, {"stream": 2, "bytes": 3})
    assert (options["warmup"], options["trials"] * options["repeat"]) == (0, 12)
    assert options["flush_l2"] is True and options["input_sets"] == 1


def test_bench_gpu_time_deprecated_l2_flush_warns_and_decides(engine):
    with pytest.warns(DeprecationWarning, match="Use cold_l2_cache instead"):
        flashinfer_drop_in.bench_gpu_time(lambda: None, l2_flush=False)
    assert engine.calls[-1][2]["flush_l2"] is False
    flashinfer_drop_in.bench_gpu_time(lambda: None, cold_l2_cache=False)
    assert engine.calls[-1][2]["flush_l2"] is False


def test_bench_gpu_time_cuda_graph(engine):
    flashinfer_drop_in.bench_gpu_time(lambda: None, use_cuda_graph=True, num_iters_within_graph=4)
    assert engine.calls[-1][2]["cuda_graph"] is True


def test_across_ranks_without_torch_distributed_is_the_value_itself():
    assert flashinfer_drop_in.across_ranks([1.0, 2.0], max) == [1.0, 2.0]


# --- signatures: the frameworks' own, parameter for parameter -----------------------------------

def parameters(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


E = inspect.Parameter.empty

# Read from each framework's repository: Triton 3.6's python/triton/testing.py, TileLang's
# tilelang/profiler/bench.py at a35008a4, FlashInfer's flashinfer/testing/utils.py at fb28d724.
TRITON_DO_BENCH = [("fn", E), ("warmup", 25), ("rep", 100), ("grad_to_none", None),
                   ("quantiles", None), ("return_mode", "mean")]
TRITON_DO_BENCH_CUDAGRAPH = [("fn", E), ("rep", 20), ("grad_to_none", None), ("quantiles", None),
                             ("return_mode", "mean")]
TILELANG_DO_BENCH = [("fn", E), ("warmup", 25), ("rep", 100), ("_n_warmup", 0), ("_n_repeat", 0),
                     ("quantiles", None), ("fast_flush", True), ("backend", "event"),
                     ("return_mode", "mean"), ("device", None), ("cache_size", 256),
                     ("early_stop_baseline", None)]
FLASHINFER_BENCH_GPU_TIME = [
    ("fn", E), ("dry_run_iters", None), ("repeat_iters", None), ("dry_run_time_ms", 25),
    ("repeat_time_ms", 100), ("l2_flush", None), ("l2_flush_size_mb", None),
    ("l2_flush_device", None), ("sleep_after_run", False), ("enable_cupti", False),
    ("use_cuda_graph", False), ("num_iters_within_graph", 10), ("input_args", ()),
    ("input_kwargs", None), ("cold_l2_cache", True), ("aggregate_op", max)]


def test_signatures_are_the_frameworks():
    assert parameters(kt.do_bench) == TRITON_DO_BENCH
    assert parameters(kt.do_bench_cudagraph) == TRITON_DO_BENCH_CUDAGRAPH
    assert parameters(tilelang_drop_in.do_bench) == TILELANG_DO_BENCH
    assert parameters(flashinfer_drop_in.bench_gpu_time) == FLASHINFER_BENCH_GPU_TIME


@pytest.mark.parametrize("module, name, ours", [
    ("triton.testing", "do_bench", kt.do_bench),
    ("triton.testing", "do_bench_cudagraph", kt.do_bench_cudagraph),
    ("tilelang.profiler.bench", "do_bench", tilelang_drop_in.do_bench),
    ("flashinfer.testing", "bench_gpu_time", flashinfer_drop_in.bench_gpu_time),
])
def test_signatures_match_the_installed_framework(module, name, ours):
    installed = pytest.importorskip(module, reason=f"{module} is not installed here")
    assert parameters(ours) == parameters(getattr(installed, name))


# --- patch() and python -m kerntime.testing -----------------------------------------------------

@pytest.fixture
def fake_frameworks(tmp_path, monkeypatch):
    """Importable stand-ins for triton.testing and tilelang.profiler, in a temporary folder."""
    (tmp_path / "triton").mkdir()
    (tmp_path / "triton" / "__init__.py").write_text("from . import testing\n")
    (tmp_path / "triton" / "testing.py").write_text(
        "def do_bench(fn, warmup=25, rep=100):\n    return 'triton'\n"
        "def do_bench_cudagraph(fn, rep=20):\n    return 'triton graph'\n")
    profiler = tmp_path / "tilelang" / "profiler"
    profiler.mkdir(parents=True)
    (tmp_path / "tilelang" / "__init__.py").write_text("")
    (profiler / "bench.py").write_text("def do_bench(fn):\n    return 'tilelang'\n")
    (profiler / "__init__.py").write_text(
        "from tilelang.profiler.bench import do_bench\n"
        "class Profiler:\n    def do_bench(self, fn):\n        return do_bench(fn)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("triton", "triton.testing", "tilelang", "tilelang.profiler",
                 "tilelang.profiler.bench"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield tmp_path
    kt.unpatch()
    for name in ("triton", "triton.testing", "tilelang", "tilelang.profiler",
                 "tilelang.profiler.bench"):
        sys.modules.pop(name, None)


def test_patch_replaces_an_imported_module_and_unpatch_restores_it(fake_frameworks):
    import triton.testing
    original = triton.testing.do_bench
    kt.patch()
    assert triton.testing.do_bench is kt.do_bench
    assert triton.testing.do_bench_cudagraph is kt.do_bench_cudagraph
    assert "triton.testing.do_bench" in kt.patched()
    kt.unpatch()
    assert triton.testing.do_bench is original and kt.patched() == []


def test_patch_before_import_patches_at_import_and_reaches_tilelangs_profiler(fake_frameworks):
    kt.patch()
    import tilelang.profiler
    ours = tilelang_drop_in.do_bench
    assert tilelang.profiler.bench.do_bench is ours and tilelang.profiler.do_bench is ours
    assert tilelang.profiler.Profiler.do_bench.__globals__["do_bench"] is ours
    kt.unpatch()
    assert tilelang.profiler.do_bench(None) == "tilelang"
    assert tilelang.profiler.bench.do_bench(None) == "tilelang"


def test_patch_names_an_unknown_framework():
    with pytest.raises(kerntime.InvalidArgument, match="patch\\(\\) knows triton, tilelang, "
                                                       "flashinfer \\(got jax\\)"):
        kt.patch(("jax",))


def run_module(args, env_path, cwd):
    import os
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(env_path)] + sys.path))
    return subprocess.run([sys.executable, "-m", "kerntime.testing", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_python_m_kerntime_testing_runs_an_unchanged_script_patched(fake_frameworks, tmp_path):
    script = tmp_path / "bench_script.py"
    script.write_text(textwrap.dedent("""
        import sys
        import triton.testing
        print(triton.testing.do_bench.__module__, sys.argv[1:])
    """))
    done = run_module([str(script), "--size", "4096"], fake_frameworks, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "kerntime.testing.triton ['--size', '4096']"


def test_python_m_kerntime_testing_names_a_missing_script(tmp_path):
    done = run_module(["no_such_script.py"], tmp_path, tmp_path)
    assert done.returncode == 2
    assert "no script at 'no_such_script.py'" in done.stderr


@pytest.mark.skipif(_kerntime.cuda_device_count() > 0,
                    reason="a CUDA device is present: test_gpu_testing_drop_in.py measures")
@pytest.mark.parametrize("drop_in", [kt.do_bench, kt.do_bench_cudagraph, tilelang_drop_in.do_bench,
                                     flashinfer_drop_in.bench_gpu_time])
def test_without_a_gpu_each_drop_in_says_so(drop_in):
    with pytest.raises(kerntime.DeviceUnavailable, match="no CUDA device found"):
        drop_in(lambda: None)


@pytest.mark.parametrize("drop_in", [kt.do_bench, kt.do_bench_cudagraph, tilelang_drop_in.do_bench,
                                     flashinfer_drop_in.bench_gpu_time])
def test_a_drop_in_called_inside_a_graph_capture_is_refused_before_fn_runs(drop_in, engine,
                                                                            monkeypatch):
    # As Triton's own test_cudagraph_bench_rejects_active_capture: PyTorch says the current stream
    # is capturing; nothing may be launched, synchronized or timed.
    synchronized = []
    cuda = types.SimpleNamespace(is_current_stream_capturing=lambda: True,
                                 synchronize=lambda: synchronized.append(True))
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=cuda))
    called = []
    with pytest.raises(kerntime.InvalidArgument, match="captures a CUDA graph.*warm up"):
        drop_in(lambda: called.append(True))
    assert called == [] and synchronized == [] and engine.calls == []
