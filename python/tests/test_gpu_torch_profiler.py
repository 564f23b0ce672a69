"""kerntime beside torch.profiler on a GPU (PyTorch 2.11's Kineto keeps CUPTI's subscription from
its first use on). Skipped without a CUDA device or torch.

CUPTI's state is process-wide and the profiler's subscription is never given back, so the whole
story runs once, in order, in a fresh Python process; each test checks one chapter of it.
"""

import pytest

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)

import torch_story  # noqa: E402 (after the skips: it is only for GPU runs)

STORY = r"""
    story["before_any_profile"] = outcome(short_bench)

    story["first_profile_sin_kernels"] = profile_sin(5)

    story["after_profile"] = outcome(short_bench)
    story["after_profile_strict"] = outcome(lambda: short_bench(backend="cupti"))

    (story["inside_profile"], story["inside_profile_calls"],
     story["inside_profile_sin_kernels"]) = bench_while_profiling()
    story["inside_profile_strict"] = outcome(lambda: short_bench(backend="cupti"))

    prof = profile(activities=activities,
                   schedule=schedule(wait=0, warmup=1, active=1, repeat=1))
    prof.start()  # step 0: warm-up, the next trace prepared
    story["during_warmup"] = outcome(short_bench)
    prof.step()  # step 1: recording
    for _ in range(7):
        torch.sin(x)
    torch.cuda.synchronize()
    prof.step()
    prof.stop()
    story["warmup_profile_sin_kernels"] = sin_kernels(prof)

    story["after_schedule"] = outcome(short_bench)
    story["profile_after_bench_sin_kernels"] = profile_sin(9)

    # Tripwires: a grant given wrongly is an error, never a number.
    sets = [((x,), {})]
    def granted_measure(recheck):
        return _kerntime.measure(work, sets, warmup=2, trials=2, repeats=5, flush_l2=True,
                                 backend="auto", metric="span", stream=0,
                                 cupti_holder=_kerntime.CuptiHolder.idle_torch_profiler,
                                 cupti_recheck=recheck)
    with profile(activities=activities) as p:
        story["wrong_grant_while_recording"] = outcome(lambda: kerntime.Result(
            granted_measure(None)))
    story["recheck_says_recording"] = outcome(lambda: kerntime.Result(granted_measure(
        lambda: _kerntime.CuptiHolder.torch_profiler_recording)))
    story["after_tripwires"] = outcome(short_bench)
    print("STORY " + json.dumps(story))
"""


@pytest.fixture(scope="module")
def story():
    return torch_story.tell(STORY)  # pytest -s shows it: the figures of docs/torch-profiler.md


def test_before_any_profile_kerntime_subscribes(story):
    assert story["before_any_profile"]["backend"] == "cupti", story["before_any_profile"]
    assert story["before_any_profile"]["mode"] == "subscribed"


def test_after_a_profile_bench_shares_cupti_with_the_idle_profiler(story):
    subscribed_ms = story["before_any_profile"]["latency_ms"]
    for chapter in ("after_profile", "after_profile_strict", "after_schedule", "after_tripwires"):
        r = story[chapter]
        assert r.get("backend") == "cupti", (chapter, r)
        assert r["mode"] == "shared_with_idle_torch_profiler", (chapter, r)
        assert "shared with an idle torch.profiler" in r["reason"], (chapter, r)
        assert any("sin" in name for name in r["kernels"]), (chapter, r)
        # The same kernel reads the same in both modes. Without kerntime's own timestamp
        # callback the profiler's (TSC ticks) made it read 2.1x long (18.5 vs 8.8 us).
        assert 0.8 < r["latency_ms"] / subscribed_ms < 1.25, (chapter, r, subscribed_ms)


def test_inside_an_active_profile_bench_falls_back_and_the_trace_keeps_every_kernel(story):
    r = story["inside_profile"]
    assert r.get("backend") == "events", r
    assert r["mode"] == "none"
    assert "torch.profiler is recording" in r["reason"], r
    assert story["inside_profile_calls"] > 0
    assert story["inside_profile_sin_kernels"] == story["inside_profile_calls"], story
    strict = story["inside_profile_strict"]  # after the profile: shared again
    assert strict.get("mode") == "shared_with_idle_torch_profiler", strict


def test_during_a_warmup_step_bench_falls_back_and_the_next_trace_is_whole(story):
    r = story["during_warmup"]
    assert r.get("backend") == "events", r
    assert "torch.profiler is armed" in r["reason"], r
    assert story["warmup_profile_sin_kernels"] == 7, story


def test_a_profile_after_bench_still_records(story):
    assert story["first_profile_sin_kernels"] == 5, story
    assert story["profile_after_bench_sin_kernels"] == 9, story


def test_a_wrong_grant_or_a_profiler_waking_up_makes_the_measurement_invalid(story):
    wrong = story["wrong_grant_while_recording"]
    assert wrong.get("error") == "MeasurementInvalid", wrong
    tripwires = ("never pushed", "never pushes", "another CUPTI client handed out")
    assert any(words in wrong["message"] for words in tripwires), wrong
    woke = story["recheck_says_recording"]
    assert woke.get("error") == "MeasurementInvalid", woke
    assert "after the measurement" in woke["message"], woke
    assert "torch.profiler is recording" in woke["message"], woke
