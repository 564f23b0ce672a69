"""kerntime.session() on a GPU with PyTorch: measurements keep CUPTI between them, torch.profiler
started inside a session works and sees its kernels, the next measurement shares CUPTI with the
idle profiler or falls back while it records (as outside a session), and the session's end leaves
CUPTI to the profiler. Skipped without a CUDA device or torch.

CUPTI's state is process-wide, so the story runs once, in order, in a fresh Python process."""

import pytest

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)

import torch_story  # noqa: E402 (after the skips: it is only for GPU runs)

STORY = r"""
    story["outside"] = [outcome(short_bench) for _ in range(2)]
    with kerntime.session():
        story["inside"] = [outcome(short_bench) for _ in range(3)]
        story["kept_resources"] = kerntime.session.kept_resources()
        story["profile_in_session_sin_kernels"] = profile_sin(5)
        story["after_profile"] = outcome(short_bench)
        (story["inside_profile"], story["inside_profile_calls"],
         story["inside_profile_sin_kernels"]) = bench_while_profiling()
    story["end"] = kerntime.session.last_end()
    story["after_session"] = outcome(short_bench)
    story["profile_after_session_sin_kernels"] = profile_sin(3)
    print("STORY " + json.dumps(story))
"""


@pytest.fixture(scope="module")
def story():
    return torch_story.tell(STORY)


def test_measurements_in_a_session_subscribe_and_attach_in_a_fraction_of_the_time(story):
    for r in story["outside"] + story["inside"]:
        assert r.get("mode") == "subscribed", r
    outside_attach = story["outside"][1]["phases"]["attach"]
    for r in story["inside"][1:]:
        assert r["phases"]["attach"] < outside_attach / 3, (r["phases"], outside_attach)
    assert story["kept_resources"] == 2  # one flush buffer and one blocking kernel


def test_the_same_kernel_reads_the_same_inside_and_outside(story):
    outside = story["outside"][1]["latency_ms"]
    for r in story["inside"]:
        assert 0.9 < r["latency_ms"] / outside < 1.1, (r["latency_ms"], outside)


def test_torch_profiler_started_inside_a_session_sees_its_kernels(story):
    assert story["profile_in_session_sin_kernels"] == 5, story
    # A measurement inside the recording profile falls back; the trace keeps every kernel.
    assert story["inside_profile_calls"] > 0
    assert story["inside_profile_sin_kernels"] == story["inside_profile_calls"], story


def test_after_the_profile_bench_shares_cupti_or_falls_back_as_outside_a_session(story):
    after = story["after_profile"]
    assert after.get("backend") == "cupti", after
    assert after["mode"] == "shared_with_idle_torch_profiler", after
    inside = story["inside_profile"]
    assert inside.get("backend") == "events", inside
    assert "torch.profiler is recording" in inside["reason"], inside


def test_the_session_end_leaves_cupti_to_the_profiler(story):
    assert story["end"] == "left_to_other_subscriber"
    assert story["after_session"].get("mode") == "shared_with_idle_torch_profiler"
    assert story["profile_after_session_sin_kernels"] == 3, story
