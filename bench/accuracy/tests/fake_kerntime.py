#!/usr/bin/env python3
"""A stand-in for `kerntime` in the CPU end-to-end test of the study: `run` writes a kerntime JSON
(schema 1) with made-up but well-formed results for the states the study asks for; under
fake_ncu.py it prints nothing. Test input only: its numbers never reach a real report."""

import json
import re
import sys

STATES = ([f"spin/duration_us={d}" for d in (1, 5, 20, 100)]
          + [f"copy/bytes={b}/l2={c}" for b in (1 << 20, 1 << 24, 1 << 28) for c in ("cold", "hot")]
          + [f"gemm_bf16/size={n}" for n in (1024, 4096, 8192)]
          + [f"reduce_sum/T=float/elements={n}" for n in (1 << 20, 1 << 26)]
          + [f"radix_sort/elements={n}" for n in (1 << 20, 1 << 26)])

KERNELS = {
    "spin": [("_ZN8kerntime5suite12_GLOBAL__N_111spin_kernelEm", "kernel", 1)],
    "copy": [("[memcpy DtoD]", "memcpy", 1)],
    "gemm_bf16": [("nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_NNN", "kernel", 1)],
    "reduce_sum": [("_ZN3cub18DeviceReduceKernelEv", "kernel", 1),
                   ("_ZN3cub28DeviceReduceSingleTileKernelEv", "kernel", 1)],
    "radix_sort": [("_ZN3cub30DeviceRadixSortHistogramKernelEv", "kernel", 1),
                   ("_ZN3cub29DeviceRadixSortOnesweepKernelEv", "kernel", 4)],
}


def latency_us(state: str) -> float:
    m = re.search(r"duration_us=(\d+)", state)
    if m:
        return int(m.group(1)) + 0.3
    m = re.search(r"=(\d+)", state)
    return 5.0 + int(m.group(1)) / 1e6 if m else 10.0


def result(state: str, backend: str) -> dict:
    t = latency_us(state) * 1e3 * (1.02 if backend == "events" else 1.0)
    span = [t + (i % 5) for i in range(50)]
    stats = {"count": 250, "median_ns": t + 2, "mean_ns": t + 2, "stdev_ns": 1.4,
             "min_ns": t, "max_ns": t + 4, "p10_ns": t, "p90_ns": t + 4, "cv": 1.4 / t}
    kernels = [] if backend == "events" else [
        {"name": n, "kind": k, "calls_per_iteration": c, "mean_ns": t / 2, "median_ns": t / 2,
         "share": 0.5} for n, k, c in KERNELS[state.split("/")[0]]]
    return {"protocol": {"warmup": 10, "trials": 5, "repeats": 50, "flush_l2": True,
                         "flush_bytes": 0, "input_sets": 3, "backend": "auto", "metric": "span",
                         "telemetry": True, "throttle_threshold": 0.9,
                         "discard_throttled": False},
            "timing_backend": backend, "backend_reason": "fake", "latency_ns": t + 2,
            "statistics": {"headline": stats, "span": stats, "busy": stats},
            "trial_statistics": {"means_ns": [t + 2] * 5, "medians_ns": [t + 2] * 5,
                                 "stdev_of_means_ns": 0.0, "cv_of_means": 0.001},
            "trials": [{"span_ns": span, "busy_ns": span} for _ in range(5)],
            "kernels": kernels, "warnings": [], "wall_seconds": 0.02 + 261 * t / 1e9,
            "flush_bytes": 0 if state.endswith("l2=hot") else 125829120}


def main() -> int:
    args = sys.argv[1:]
    if not args or args[0] != "run":
        print("fake kerntime", args)
        return 0
    pattern = args[args.index("--filter") + 1]
    backend = args[args.index("--backend") + 1] if "--backend" in args else "cupti"
    states = [s for s in STATES if re.search(pattern, s)]
    if "--json" in args:
        runs = [{"benchmark": s.split("/")[0], "state_name": s, "axes": [], "status": "ok",
                 "error_kind": None, "message": None, "flops_per_iteration": None,
                 "bytes_per_iteration": None, "result": result(s, backend)} for s in states]
        with open(args[args.index("--json") + 1], "w", encoding="utf-8") as f:
            json.dump({"json_schema_version": 1, "context": {}, "runs": runs}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
