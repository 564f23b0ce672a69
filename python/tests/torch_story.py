"""A story of kerntime beside torch.profiler, told once in a fresh Python process (CUPTI's state is
process-wide and PyTorch's Kineto never gives its subscription back). ``PRELUDE`` is the story's
start: a tensor, a work of one ``sin`` kernel per call that counts its calls, and helpers that turn
a measurement into a dict; each story adds chapters to ``story`` and prints it."""

import json
import os
import subprocess
import sys
import textwrap

PRELUDE = textwrap.dedent(r"""
    import json, sys
    import kerntime  # first, as in a pytest session with kerntime's plugin
    import torch
    from kerntime import _kerntime
    from torch.profiler import ProfilerActivity, profile, schedule

    x = torch.randn(1 << 22, device="cuda")
    calls = [0]
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]

    def work(t):
        calls[0] += 1
        torch.sin(t)  # one kernel per call, named after sin

    def sin_kernels(prof):
        return sum(1 for e in prof.events()
                   if str(e.device_type).endswith("CUDA") and "sin" in e.name)

    def short_bench(**kw):
        return kerntime.bench(work, x, warmup=2, trials=2, repeat=5, **kw)

    def outcome(fn):
        try:
            r = fn()
            return {"backend": r.timing_backend, "mode": r.cupti_mode,
                    "reason": r.backend_reason, "kernels": [k.name for k in r.kernels],
                    "latency_ms": r.latency_ms, "phases": r.host_phases}
        except kerntime.KerntimeError as e:
            return {"error": type(e).__name__, "message": str(e)}

    def profile_sin(n):
        # n sin kernels under a whole torch.profiler trace: how many it saw.
        with profile(activities=activities) as p:
            for _ in range(n):
                torch.sin(x)
            torch.cuda.synchronize()
        return sin_kernels(p)

    def bench_while_profiling(**kw):
        # A measurement inside a recording trace: its outcome, the work's calls, the trace's sins.
        calls[0] = 0
        with profile(activities=activities) as p:
            result = outcome(lambda: short_bench(**kw))
            torch.cuda.synchronize()
        return result, calls[0], sin_kernels(p)

    story = {}
""")


def tell(chapters: str) -> dict:
    """Runs PRELUDE + chapters (which end by printing "STORY " + json.dumps(story)) in a fresh
    process and returns the story."""
    run = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(chapters)],
                         capture_output=True, text=True, timeout=300, env=dict(os.environ))
    lines = [line for line in run.stdout.splitlines() if line.startswith("STORY ")]
    assert run.returncode == 0 and lines, run.stdout[-3000:] + run.stderr[-3000:]
    story = json.loads(lines[-1][len("STORY "):])
    print(json.dumps(story, indent=1))  # shown with pytest -s: the figures of the docs
    return story
