"""The supervised run on a GPU, over fault_suite (fine / wild pointer / fine / never ends):
the wild pointer fails alone (cuda_fault) and the state after it is measured on a fresh context;
a kernel that never ends is killed at --state-timeout and the GPU measures the next state. Prints
RESULT lines (recovery time, wall times) for docs/scale.md. Exit 77 where there is no GPU.
Usage: check_fault_suite.py FAULT_SUITE [OUT_FOLDER]"""

import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time

suite = sys.argv[1]
folder = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp())
folder.mkdir(parents=True, exist_ok=True)
problems = []


def run(name, *args, timeout=300):
    out = folder / f"{name}.json"
    start = time.monotonic()
    done = subprocess.run([suite, "run", "--json", str(out), "-q", "--trials", "3", *args],
                          capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - start
    (folder / f"{name}.log").write_text(done.stderr)
    if done.returncode == 3:
        print("SKIPPED: no CUDA device:", done.stderr.strip())
        sys.exit(77)
    runs = {r["state_name"]: r for r in json.loads(out.read_text())["runs"]} if out.exists() else {}
    return done, runs, seconds


def expect(condition, message):
    if not condition:
        problems.append(message)
        print("FAIL:", message)


done, runs, seconds = run("fault", "--filter", "fine_before|wild_pointer|fine_after")
print(done.stderr)
expect(done.returncode == 1, f"fault run exit {done.returncode}, expected 1")
expect(runs.get("fine_before", {}).get("status") == "ok", "fine_before was not measured")
expect(runs.get("wild_pointer", {}).get("error_kind") == "cuda_fault",
       f"wild_pointer: {runs.get('wild_pointer', {}).get('error_kind')}, expected cuda_fault")
expect(runs.get("fine_after", {}).get("status") == "ok",
       f"fine_after after the fault: {runs.get('fine_after', {}).get('message')}")
failed = sum(r["status"] == "failed" for r in runs.values())
expect(failed == 1, f"{failed} states failed, expected exactly 1")
ready = re.search(r"(\d+) worker process\w* \(([\d.]+) s to start, ", done.stderr)
print(f"RESULT fault_suite failed={failed} third={runs.get('fine_after', {}).get('status')} "
      f"workers={ready.group(1) if ready else '?'} start_s_all={ready.group(2) if ready else '?'} "
      f"wall_s={seconds:.2f} fine_after_wall_s={runs.get('fine_after', {}).get('wall_seconds', 0):.2f}")

done, runs, seconds = run("fault_in_process", "--no-isolation", "--filter",
                          "fine_before|wild_pointer|fine_after")
print(f"RESULT fault_no_isolation failed={sum(r['status'] == 'failed' for r in runs.values())} "
      f"third={runs.get('fine_after', {}).get('status')}")

timeout_s = 10
done, runs, seconds = run("hang", "--filter", "spins_forever|fine_after", "--state-timeout",
                          str(timeout_s))
print(done.stderr)
forever = runs.get("spins_forever", {})
expect(forever.get("error_kind") == "timed_out", f"spins_forever: {forever.get('error_kind')}")
expect(f"timed_out after {timeout_s} s" in forever.get("message", ""), forever.get("message", ""))
after = runs.get("fine_after", {})
expect(after.get("status") == "ok", f"fine_after after the kill: {after.get('message')}")
if after.get("status") == "ok":
    latency_us = after["result"]["latency_ns"] / 1e3
    expect(19 < latency_us < 25, f"fine_after reads {latency_us:.2f} us for a 20 us spin")
print(f"RESULT hang_suite spins_forever={forever.get('error_kind')} "
      f"fine_after={after.get('status')} wall_s={seconds:.2f} timeout_s={timeout_s} "
      f"fine_after_wall_s={after.get('wall_seconds', 0):.2f}")

print("PASS" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
