"""The PyTorch side of the accuracy study, on the GPU (python3 with torch, triton, kerntime):

    python3 torch_cases.py OUT.json

For each op of torch_ops.py: kerntime.bench (CUPTI, the default protocol), kerntime.bench with
the event fallback forced, a plain CUDA-event loop (L2 flushed by a 2 x L2 fill before each
call, events around the call only) and triton.testing.do_bench. Then the same memset through
kerntime's C++ path and its Python path, and the GPU time of one L2 flush. Every failure is
recorded next to the case, never hidden; the file is written even when a case fails.
"""

import json
import sys
import time
import traceback

import torch

import sample_stats
import torch_ops

EVENT_LOOP_CALLS = 50


def error_text(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}".strip()[:500]


def kerntime_summary(result) -> dict:
    import kerntime_json
    return kerntime_json.summarise_result(result.to_dict())


def event_loop(fn, args, flush_buffer) -> dict:
    """flush; record(start); fn; record(end): the usual hand-written benchmark loop."""
    for _ in range(3):
        fn(*args)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(EVENT_LOOP_CALLS)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(EVENT_LOOP_CALLS)]
    torch.cuda.synchronize()
    for start, end in zip(starts, ends):
        flush_buffer.zero_()
        start.record()
        fn(*args)
        end.record()
    torch.cuda.synchronize()
    return sample_stats.summary([s.elapsed_time(e) * 1e6 for s, e in zip(starts, ends)])


def do_bench(fn, args) -> dict:
    import triton.testing
    call = lambda: fn(*args)  # noqa: E731
    try:
        times_ms = triton.testing.do_bench(call, warmup=10, rep=60, return_mode="all")
        return sample_stats.summary([t * 1e6 for t in times_ms])
    except (TypeError, ValueError, AssertionError):  # an older do_bench without return_mode="all"
        p10, p50, p90 = triton.testing.do_bench(call, warmup=10, rep=60,
                                                quantiles=[0.1, 0.5, 0.9])
        return {"count": None, "median_us": p50 * 1e3, "p10_us": p10 * 1e3, "p90_us": p90 * 1e3}


def run_method(record: dict, name: str, function) -> None:
    started = time.perf_counter()
    try:
        record["methods"][name] = function()
    except Exception as e:  # one failed method must not hide the others
        record["methods"][name] = {"error": error_text(e)}
        traceback.print_exc()
    record["methods"][name]["host_seconds"] = time.perf_counter() - started


def main() -> None:
    out_path = sys.argv[1]
    report = {"versions": {"torch": torch.__version__}, "ops": [], "probes": {}, "errors": []}
    try:
        import triton
        report["versions"]["triton"] = triton.__version__
    except Exception as e:
        report["errors"].append("triton: " + error_text(e))
    try:
        import kerntime
        report["versions"]["kerntime"] = kerntime.__version__
        report["kerntime_module"] = kerntime.__file__
    except Exception as e:
        kerntime = None
        report["errors"].append("kerntime module: " + error_text(e))

    properties = torch.cuda.get_device_properties(0)
    l2_bytes = int(properties.L2_cache_size)
    report["device"] = {"name": properties.name, "l2_bytes": l2_bytes}
    flush_buffer = torch.empty(2 * l2_bytes, dtype=torch.uint8, device="cuda")

    def write() -> None:
        with open(out_path, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)

    ops = torch_ops.make_ops(torch)
    torch.cuda.synchronize()
    for op in ops:
        record = {"id": op.id, "description": op.description,
                  "cpp_counterpart": op.cpp_counterpart, "methods": {}}
        report["ops"].append(record)
        print(f"torch case {op.id}", flush=True)
        if kerntime is not None:
            run_method(record, "kerntime",
                       lambda: kerntime_summary(kerntime.bench(op.fn, *op.args)))
            run_method(record, "kerntime_events",
                       lambda: kerntime_summary(kerntime.bench(op.fn, *op.args,
                                                               backend="events")))
        run_method(record, "torch_events", lambda: event_loop(op.fn, op.args, flush_buffer))
        run_method(record, "do_bench", lambda: do_bench(op.fn, op.args))
        write()

    if kerntime is not None:
        from kerntime import _kerntime
        # The same 256 MiB memset through the C++ engine with a C++ work function and through
        # kerntime.bench with a Python callable: the two paths must read the same GPU time.
        try:
            probe = _kerntime._MemsetProbe(256 * torch_ops.MiB)
            probe.measure_native(warmup=2, trials=1, repeats=2)  # CUPTI's one-time start-up
            native = kerntime.Result(probe.measure_native(warmup=10, trials=5, repeats=50))
            python = kerntime.bench(probe.launch, stream=0, input_sets=1)
            report["probes"]["memset_256MiB"] = {"cpp": kerntime_summary(native),
                                                 "python": kerntime_summary(python)}
        except Exception as e:
            report["probes"]["memset_256MiB"] = {"error": error_text(e)}
        # One L2 flush as kerntime runs it (a memset of 2 x L2), back to back, timed by CUPTI.
        try:
            flush = _kerntime._MemsetProbe(2 * l2_bytes)
            r = kerntime.bench(flush.launch, stream=0, input_sets=1, flush_l2=False)
            report["probes"]["flush"] = {"bytes": 2 * l2_bytes, **kerntime_summary(r)}
        except Exception as e:
            report["probes"]["flush"] = {"error": error_text(e)}
    write()


if __name__ == "__main__":
    main()
