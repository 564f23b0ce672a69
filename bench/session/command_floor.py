"""Where a one-state `kerntime run` spends its wall time (issue 27: the command's floor).

Runs `kerntime run --filter 'spin/duration_us=1$'` under a pseudo-terminal, so the supervisor
prints its progress line ("... ok in S s, E s elapsed", E counted from the supervisor's start), and
timestamps that line as it arrives. Then, per run:
  before  = line arrival - E       the process's start up to the supervisor (parsing, plan)
  run     = E                      supervised: worker start + the state; --no-isolation: the
                                   state alone (CUDA and its context are made before, in "before")
  after   = exit - line arrival    the worker's exit, the reports, the supervisor's exit
The same with --no-isolation (the states in the command's own process) for comparison.
Usage: command_floor.py KERNTIME [--runs N]; prints RESULT lines."""

import argparse
import os
import pty
import re
import select
import statistics
import time

LINE = re.compile(rb"ok in ([\d.]+) s(?: on GPU \d+)?, ([\d.]+) s elapsed")
SUMMARY = re.compile(rb"\(([\d.]+) s to start, ([\d.]+) s to exit")


def one_run(kerntime: str, *flags: str) -> dict | None:
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(kerntime, [kerntime, "run", "--filter", "spin/duration_us=1$", "-q", *flags])
    text, seen = b"", None
    while True:
        ready, _, _ = select.select([fd], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        text += chunk
        if seen is None and LINE.search(text):
            seen = time.monotonic()
    _, status = os.waitpid(pid, 0)
    end = time.monotonic()
    line = LINE.search(text)
    if status != 0 or line is None or seen is None:
        print(f"RESULT command_floor error=exit_{status} output={text[-200:]!r}")
        return None
    elapsed = float(line.group(2))
    summary = SUMMARY.search(text)
    return {"wall": end - start, "before": seen - start - elapsed, "run": elapsed,
            "state": float(line.group(1)), "after": end - seen,
            "worker_start": float(summary.group(1)) if summary else float("nan"),
            "worker_exit": float(summary.group(2)) if summary else float("nan")}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("kerntime")
    parser.add_argument("--runs", type=int, default=5)
    a = parser.parse_args()
    for mode, flags in (("supervised", ()), ("no_isolation", ("--no-isolation",))):
        rows = [r for r in (one_run(a.kerntime, *flags) for _ in range(a.runs)) if r]
        if not rows:
            continue
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(f"RESULT command_floor mode={mode} runs={len(rows)} "
              + " ".join(f"{k}_ms={1e3 * v:.0f}" for k, v in med.items()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
