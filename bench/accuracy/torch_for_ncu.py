"""The study's PyTorch operations, run plainly for Nsight Compute:

    ncu --profile-from-start off --clock-control none --cache-control all \
        --metrics gpu__time_duration.sum --csv ... python3 torch_for_ncu.py CALLS

Each op is warmed up outside the profiled range (JIT, cuBLAS heuristics, allocator), then, inside
one cudaProfilerStart/Stop range: a marker kernel, and after each op's CALLS calls another marker.
No explicit L2 flush: `--cache-control all` flushes before every kernel Nsight Compute profiles.
Prints one line `OPS {json}` naming the ops in order.
"""

import json
import sys

import torch

import torch_ops


def marker() -> None:
    if hasattr(torch.cuda, "_sleep"):
        torch.cuda._sleep(100)  # at::cuda's spin kernel: no op of the study launches it
    else:
        torch.ones(1, device="cuda").mul_(2)


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    ops = torch_ops.make_ops(torch)
    for op in ops:
        for _ in range(3):
            op.fn(*op.args)
    marker()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    marker()
    for op in ops:
        for _ in range(calls):
            op.fn(*op.args)
        marker()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print("OPS " + json.dumps({"calls": calls, "ops": [op.id for op in ops]}), flush=True)


if __name__ == "__main__":
    main()
