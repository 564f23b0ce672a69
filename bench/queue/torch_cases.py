"""The PyTorch cases of docs/queue.md: deep launch queues (topk, 2,000 tiny ops per trial), work
that synchronizes (.item(), .cpu(), torch.cuda.synchronize()) and torch.compile's reduce-overhead
mode with rotated inputs and with input_sets=1. Prints wall time, GPU time (span + flush) and the
warnings of each. Run: PYTHONPATH=<build>/python python3 bench/queue/torch_cases.py"""
import time
import torch
import kerntime

x = torch.randn(1 << 20, device="cuda")
small = torch.randn(256, device="cuda")


def show(label, fn, *args, **kw):
    t0 = time.perf_counter()
    r = kerntime.bench(fn, *args, **kw)
    wall = time.perf_counter() - t0
    flush_ms = r.measurement.flush_median_ns / 1e6
    gpu = sum(s.span_ms + flush_ms for tr in r.samples for s in tr) / 1e3
    print(f"{label}: backend={r.timing_backend} wall={wall:.3f}s engine={r.wall_seconds:.3f}s "
          f"gpu={gpu:.3f}s ratio={r.wall_seconds / gpu:.2f} median={r.latency_ms * 1e3:.2f}us "
          f"kernels={len(r.kernels)} flush={flush_ms * 1e3:.1f}us")
    print("    host phases (ms): " + " ".join(f"{name}={seconds * 1e3:.1f}"
                                              for name, seconds in r.host_phases.items()))
    for k in r.kernels[:3]:
        print(f"    {k.name[:80]} calls={k.calls_per_iteration} mean={k.mean_ms * 1e3:.2f}us")
    for warning in r.warnings:
        print("    warning:", warning)


def host_us_per_call(fn, *args, calls=20):
    """Host time of one call with nothing attached: the launches only (20 calls of topk queue
    ~440 launches, well inside the launch queue, so none waits for the GPU)."""
    fn(*args)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    seconds = time.perf_counter() - t0
    torch.cuda.synchronize()
    return seconds / calls * 1e6


show("topk", torch.topk, x, 1024)
show("topk again", torch.topk, x, 1024)
print(f"topk host time per call, no CUPTI: {host_us_per_call(torch.topk, x, 1024):.1f} us")
show("topk cuda_graph", torch.topk, x, 1024, cuda_graph=True)
show("tiny add_ repeat 2000", lambda t: t.add_(1), small, repeat=2000)
show("tiny add_ repeat 2000 events", lambda t: t.add_(1), small, repeat=2000, backend="events")
show(".item()", lambda t: (t * 2).sum().item(), x)
show(".item() events", lambda t: (t * 2).sum().item(), x, backend="events")
show(".cpu()", lambda t: t.sum().cpu(), x)
show("synchronize", lambda t: (t.mul_(1), torch.cuda.synchronize()), x)
f = torch.compile(lambda t: (t * 2 + 1).relu(), mode="reduce-overhead")
show("compile reduce-overhead", f, x)
show("compile reduce-overhead input_sets=1", f, x, input_sets=1)
