"""kerntime.session() on a GPU with PyTorch: measurements keep CUPTI between them, torch.profiler
started inside a session works and sees its kernels, the next measurement shares CUPTI with the
idle profiler or falls back while it records (as outside a session), and the session's end leaves
CUPTI to the profiler. Skipped without a CUDA device or torch.

CUPTI's state is process-wide, so the story runs once, in order, in a fresh Python process."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)

STORY = textwrap.dedent(r"""
    import json
    import kerntime
    import torch
    from torch.profiler import ProfilerActivity, profile

    x = torch.randn(1 << 22, device="cuda")

    calls = [0]

    def work(t):
        calls[0] += 1
        torch.sin(t)  # one kernel per call, named after sin

    def sin_kernels(prof):
        return sum(1 for e in prof.events()
                   if str(e.device_type).endswith("CUDA") and "sin" in e.name)

    def outcome(fn):
        try:
            r = fn()
            return {"backend": r.timing_backend, "mode": r.cupti_mode, "reason": r.backend_reason,
                    "kernels": [k.name for k in r.kernels], "latency_ms": r.latency_ms,
                    "phases": r.host_phases}
        except kerntime.KerntimeError as e:
            return {"error": type(e).__name__, "message": str(e)}

    def short_bench():
        return kerntime.bench(work, x, warmup=2, trials=2, repeat=5)

    story = {"outside": [outcome(short_bench) for _ in range(2)]}
    with kerntime.session():
        story["inside"] = [outcome(short_bench) for _ in range(3)]
        story["kept_resources"] = kerntime.session.kept_resources()
        activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
        with profile(activities=activities) as p:
            for _ in range(5):
                torch.sin(x)
            torch.cuda.synchronize()
        story["profile_in_session_sin_kernels"] = sin_kernels(p)
        story["after_profile"] = outcome(short_bench)
        calls[0] = 0
        with profile(activities=activities) as p:
            story["inside_profile"] = outcome(short_bench)
            torch.cuda.synchronize()
        story["inside_profile_calls"] = calls[0]
        story["inside_profile_sin_kernels"] = sin_kernels(p)
    story["end"] = kerntime.session.last_end()
    story["after_session"] = outcome(short_bench)
    with profile(activities=activities) as p:
        for _ in range(3):
            torch.sin(x)
        torch.cuda.synchronize()
    story["profile_after_session_sin_kernels"] = sin_kernels(p)
    print("STORY " + json.dumps(story))
""")


@pytest.fixture(scope="module")
def story():
    run = subprocess.run([sys.executable, "-c", STORY], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ))
    lines = [line for line in run.stdout.splitlines() if line.startswith("STORY ")]
    assert run.returncode == 0 and lines, run.stdout[-3000:] + run.stderr[-3000:]
    story = json.loads(lines[-1][len("STORY "):])
    print(json.dumps(story, indent=1))
    return story


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
