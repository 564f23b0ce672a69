"""torch.topk (x 1 Mi floats, k = 1024, defaults) outside a session and inside one
(kerntime.session): each call's engine wall time against the GPU time of its flushes and work
(target <= 1.5 for the second call in a session, docs/queue.md), and its host phases.
Run: PYTHONPATH=<build>/python python3 bench/session/torch_session.py"""
import torch

import kerntime

x = torch.randn(1 << 20, device="cuda")


def show(where, call, **options):
    r = kerntime.bench(torch.topk, x, 1024, **options)
    flush_ms = r.measurement.flush_median_ns / 1e6
    gpu = sum(s.span_ms + flush_ms for trial in r.samples for s in trial) / 1e3
    phases = " ".join(f"{name}_ms={seconds * 1e3:.2f}" for name, seconds in r.host_phases.items())
    launch = "graph" if options.get("cuda_graph") else "stream"
    print(f"RESULT session_torch_topk where={where} launch={launch} call={call} "
          f"wall_s={r.wall_seconds:.4f} gpu_s={gpu:.4f} ratio={r.wall_seconds / gpu:.2f} "
          f"median_us={r.latency_ms * 1e3:.2f} {phases}", flush=True)


for call in (1, 2, 3):
    show("outside", call)
with kerntime.session():
    for call in (1, 2, 3, 4):
        show("session", call)
    for call in (1, 2, 3):
        show("session", call, cuda_graph=True)
