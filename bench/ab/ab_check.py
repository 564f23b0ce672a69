"""kerntime.ab on the GPU, repeated (docs/ab.md): how often an A/A comparison of one op decides
`slower` or `faster` at the ±1 % band (false decisions), how often it ends `inconclusive`, and how
often a known small change is decided. Each run of ab is a fresh pair of sides in one process
(every trial makes new input copies). Prints RESULT lines.

    python3 bench/ab/ab_check.py [--runs 20] [--max-blocks 30]
"""

import argparse
import statistics
import time

import torch

import kerntime


def ops():
    """The A/A ops: compute-bound, memory-bound of several sizes, launch-bound."""
    g = torch.randn(1024, 1024, device="cuda", dtype=torch.bfloat16)
    h = torch.randn(1024, 1024, device="cuda", dtype=torch.bfloat16)
    copy_src = torch.empty(1 << 18, device="cuda", dtype=torch.float32)  # 1 MiB
    copy_dst = torch.empty_like(copy_src)
    sum_in = torch.randn(1 << 16, device="cuda")
    add_a = torch.randn(4096, device="cuda")
    add_b = torch.randn(4096, device="cuda")
    soft = torch.randn(4096, 1024, device="cuda")
    return {
        "gemm_bf16_1024": (lambda: torch.matmul(g, h)),
        "copy_1MiB": (lambda: copy_dst.copy_(copy_src)),
        "sum_64Ki": (lambda: sum_in.sum()),
        "add_4K": (lambda: torch.add(add_a, add_b)),
        "softmax_4Kx1K": (lambda: torch.softmax(soft, dim=-1)),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--max-blocks", type=int, default=30)
    args = parser.parse_args()
    started = time.monotonic()
    for name, fn in ops().items():
        verdicts = {}
        blocks = []
        walls = []
        for _ in range(args.runs):
            c = kerntime.ab(fn, fn, max_blocks=args.max_blocks)
            verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
            blocks.append(c.blocks)
            walls.append(c.wall_seconds)
        false = verdicts.get("slower", 0) + verdicts.get("faster", 0)
        print(f"RESULT ab_aa op={name} runs={args.runs} false={false} "
              f"inconclusive={verdicts.get('inconclusive', 0)} same={verdicts.get('same', 0)} "
              f"blocks_median={statistics.median(blocks):g} blocks_max={max(blocks)} "
              f"wall_median_s={statistics.median(walls):.2f}", flush=True)
    # A known change: a spin of ~20 µs against one 1 % longer (torch.cuda._sleep counts cycles).
    for base_us, extra in ((20, 0.01), (200, 0.005)):
        cycles = int(base_us * 1980)
        longer = int(cycles * (1 + extra))
        decided = 0
        blocks = []
        walls = []
        for _ in range(args.runs):
            c = kerntime.ab(lambda: torch.cuda._sleep(cycles), lambda: torch.cuda._sleep(longer),
                            max_blocks=args.max_blocks, threshold=extra / 2)
            decided += c.verdict == "slower"
            blocks.append(c.blocks)
            walls.append(c.wall_seconds)
        print(f"RESULT ab_detect base_us={base_us} change_pct={100 * extra:g} "
              f"band_pct={50 * extra:g} slower={decided}/{args.runs} "
              f"blocks_median={statistics.median(blocks):g} p90={sorted(blocks)[int(0.9 * len(blocks)) - 1]} "
              f"wall_median_s={statistics.median(walls):.2f}", flush=True)
    print(f"RESULT ab_check total_s={time.monotonic() - started:.1f}")


if __name__ == "__main__":
    main()
