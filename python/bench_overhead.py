"""Host cost of kerntime's Python path per iteration.

The same GPU operation (a 4-byte memset, far shorter than either path's launch cost) is measured
by the C++ engine twice: once with a C++ work function, once through kerntime.bench() with a
Python callable. The difference in wall time over the number of iterations is what the Python
path adds to each iteration (argument preparation included, spread over the iterations).
Prints one line. Needs a CUDA device.

    python python/bench_overhead.py [--trials 5 --repeat 200]
"""

import argparse
import time

import kerntime
from kerntime import _kerntime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5, help="best of this many of each path")
    options = parser.parse_args()

    probe = _kerntime._MemsetProbe(4)
    iterations = options.warmup + options.trials * options.repeat

    def native() -> float:
        started = time.perf_counter()
        probe.measure_native(warmup=options.warmup, trials=options.trials, repeats=options.repeat)
        return time.perf_counter() - started

    def python() -> float:
        started = time.perf_counter()
        kerntime.bench(probe.launch, stream=0, warmup=options.warmup, trials=options.trials,
                       repeat=options.repeat, input_sets=1)
        return time.perf_counter() - started

    native()  # the first measurement pays CUPTI's one-time start-up
    native_s = min(native() for _ in range(options.rounds))
    python_s = min(python() for _ in range(options.rounds))
    overhead_us = (python_s - native_s) / iterations * 1e6
    print(f"kerntime python path overhead: {overhead_us:.2f} us/iteration "
          f"(python {python_s * 1e3:.1f} ms, C++ {native_s * 1e3:.1f} ms, "
          f"{iterations} iterations each, best of {options.rounds})")


if __name__ == "__main__":
    main()
