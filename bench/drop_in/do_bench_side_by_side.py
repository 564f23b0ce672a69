"""triton.testing.do_bench and kerntime.testing.do_bench side by side, in one process.

Four ops (fp16 softmax and layer_norm over 4096 x 4096, a 4096-element add, a 4096-cubed bf16
matmul), each called 10 times through each function at default arguments, alternating A B B A so
that drift in time falls on both. For each: the value (median of the 10), its spread over the 10
calls ((max - min) / median and the coefficient of variation), and the wall time per call (median
of the 10; the first call of each function, which sets up, is reported apart). Prints a markdown
table; --json FILE writes every value and wall time. Needs a CUDA device, PyTorch and Triton.

    python3 bench/drop_in/do_bench_side_by_side.py [--calls 10] [--json FILE]
"""

import argparse
import json
import statistics
import time

import torch
import triton.testing

import kerntime
import kerntime.testing


def ops():
    torch.manual_seed(0)
    x16 = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    a, b = (torch.randn(4096, device="cuda") for _ in range(2))
    m1, m2 = (torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    return {
        "softmax fp16 4096x4096": lambda: torch.softmax(x16, dim=-1),
        "layer_norm fp16 4096x4096": lambda: torch.nn.functional.layer_norm(x16, (4096,)),
        "add fp32 4096": lambda: torch.add(a, b),
        "matmul bf16 4096^3": lambda: torch.matmul(m1, m2),
    }


def timed_call(bench, fn):
    started = time.perf_counter()
    value = bench(fn)
    return value, time.perf_counter() - started


def spread(values):
    median = statistics.median(values)
    return (max(values) - min(values)) / median, statistics.stdev(values) / statistics.mean(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--json", help="write every value and wall time to this file")
    parser.add_argument("--results", action="store_true",
                        help="also print one RESULT line per op (scripts/gpu_check.sh)")
    options = parser.parse_args()
    benches = {"triton": triton.testing.do_bench, "kerntime": kerntime.testing.do_bench}
    rows = {}
    for name, fn in ops().items():
        fn()
        torch.cuda.synchronize()
        first = {side: timed_call(bench, fn) for side, bench in benches.items()}
        calls = {side: [] for side in benches}
        for index in range(options.calls):
            order = ("triton", "kerntime") if index % 2 == 0 else ("kerntime", "triton")
            for side in order:
                calls[side].append(timed_call(benches[side], fn))
        rows[name] = {"first_call_s": {side: first[side][1] for side in benches},
                      "values_ms": {side: [v for v, _ in calls[side]] for side in benches},
                      "wall_s": {side: [w for _, w in calls[side]] for side in benches},
                      "kerntime_backend": kerntime.testing.last_result().timing_backend,
                      "kerntime_protocol": str(kerntime.testing.last_result().protocol)}
    device = torch.cuda.get_device_name()
    print(f"## do_bench side by side on {device} ({options.calls} calls each, default arguments)\n")
    print("| op | do_bench ms | spread (range, CV) | wall ms/call | kerntime ms | spread (range, CV) "
          "| wall ms/call | wall ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, row in rows.items():
        cells = []
        for side in benches:
            values, walls = row["values_ms"][side], row["wall_s"][side]
            value_range, cv = spread(values)
            cells += [f"{statistics.median(values):.4f}", f"{value_range:.2%}, {cv:.2%}",
                      f"{statistics.median(walls) * 1e3:.1f}"]
        ratio = statistics.median(row["wall_s"]["kerntime"]) / statistics.median(
            row["wall_s"]["triton"])
        print(f"| {name} | " + " | ".join(cells) + f" | 1/{1 / ratio:.1f} |")
    if options.results:
        for name, row in rows.items():
            values, walls = row["values_ms"], row["wall_s"]
            op = name.split()[0] + "_" + name.split()[-1].replace("^", "")
            print(f"RESULT do_bench op={op} triton_ms={statistics.median(values['triton']):.5f} "
                  f"kerntime_ms={statistics.median(values['kerntime']):.5f} "
                  f"triton_spread_pct={100 * spread(values['triton'])[0]:.3f} "
                  f"kerntime_spread_pct={100 * spread(values['kerntime'])[0]:.3f} "
                  f"wall_ratio={statistics.median(walls['kerntime']) / statistics.median(walls['triton']):.4f}")
    print("\nfirst calls (s): " + "; ".join(
        f"{name}: do_bench {row['first_call_s']['triton']:.3f}, kerntime "
        f"{row['first_call_s']['kerntime']:.3f}" for name, row in rows.items()))
    if options.json:
        with open(options.json, "w") as out:
            json.dump({"device": device, "calls": options.calls, "ops": rows}, out, indent=1)


if __name__ == "__main__":
    main()
