"""Runs the accuracy study's measurements on a GPU machine and collects their raw output.

    python3 study.py BUILD_FOLDER WORK_FOLDER [--budget SECONDS]

Every step is a subprocess with a time limit, cut further so the whole study ends within the
budget; a step that fails or times out is recorded (exit status, seconds, log) and the study goes
on. WORK_FOLDER/manifest.json lists what ran and where its output is; report.py reads it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

NCU_REPEATS = 20  # measured calls per state under Nsight Compute (one warm-up call before them)
REPEAT_RUNS = 5
REPEAT_FILTER = "^(spin/duration_us=20|gemm_bf16/size=4096)$"
REPEAT_AXES = ["-a", "duration_us=20", "-a", "size=4096"]

# The bundled suite's states, grouped into one `kerntime run` each (axis overrides apply to every
# benchmark with the axis, so each group has its own).
CLI_GROUPS = [
    ("spin", "^spin/", ["-a", "duration_us=[1,5,20,100]"]),
    ("copy", "^copy/", []),
    ("gemm", "^gemm_bf16/", ["-a", "size=[1024,4096,8192]"]),
    ("cub", "^(reduce_sum/T=float|radix_sort)/", ["-a", "elements[pow2]=[20:26:6]"]),
]

# States timed by Nsight Compute, one process each (the copies are memcpys: ncu sees no kernel).
NCU_STATES = (
    [(f"spin/duration_us={d}", ["-a", f"duration_us={d}"]) for d in (1, 5, 20, 100)]
    + [(f"gemm_bf16/size={n}", ["-a", f"size={n}"]) for n in (1024, 4096, 8192)]
    + [(f"reduce_sum/T=float/elements={n}", ["-a", "T=float", "-a", f"elements={n}"])
       for n in (1 << 20, 1 << 26)]
    + [(f"radix_sort/elements={n}", ["-a", f"elements={n}"]) for n in (1 << 20, 1 << 26)]
)

NCU_FLAGS = ["--clock-control", "none", "--cache-control", "all", "--metrics",
             "gpu__time_duration.sum", "--csv", "--print-units", "base",
             "--print-kernel-base", "mangled"]


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


class Steps:
    def __init__(self, work: str, budget_s: float) -> None:
        self.work = work
        self.started = time.monotonic()
        self.deadline = self.started + budget_s
        self.records: List[dict] = []
        os.makedirs(os.path.join(work, "logs"), exist_ok=True)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def run(self, name: str, command: List[str], limit_s: float, env: Optional[dict] = None,
            cwd: Optional[str] = None, reserve_s: float = 0.0) -> dict:
        """Run one step; its stdout and stderr go to logs/<name>.log."""
        log = os.path.join(self.work, "logs", slug(name) + ".log")
        limit = min(limit_s, self.left() - reserve_s)
        record = {"name": name, "command": command, "log": log, "limit_s": round(limit, 1)}
        self.records.append(record)
        elapsed = time.monotonic() - self.started
        if limit < 3:
            record.update(rc=None, seconds=0.0, skipped="out of time budget")
            print(f"== {name}: skipped, out of time budget ({elapsed:.0f} s)", flush=True)
            return record
        print(f"== {name} ({elapsed:.0f} s)", flush=True)
        began = time.monotonic()
        with open(log, "w", encoding="utf-8", errors="replace") as out:
            try:
                process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                           env=env, cwd=cwd, start_new_session=True)
            except OSError as e:
                record.update(rc=None, seconds=0.0, error=f"could not start: {e}")
                return record
            try:
                record["rc"] = process.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                record["timed_out"] = True
                for sig in (signal.SIGTERM, signal.SIGKILL):
                    try:
                        os.killpg(process.pid, sig)  # the group this step started
                    except ProcessLookupError:
                        break
                    try:
                        process.wait(timeout=5)
                        break
                    except subprocess.TimeoutExpired:
                        continue
                record["rc"] = process.returncode
        record["seconds"] = round(time.monotonic() - began, 2)
        if record.get("rc") not in (0,):
            print(f"   {name}: exit {record.get('rc')}"
                  f"{' (timed out)' if record.get('timed_out') else ''}; log {log}", flush=True)
        return record


def find_ncu() -> Optional[str]:
    override = os.environ.get("KT_ACCURACY_NCU")
    if override:
        return override
    found = shutil.which("ncu")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/ncu",):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def python_path_for_kerntime(python: str, build: str) -> Optional[str]:
    """A PYTHONPATH entry under which `import kerntime` works ('' when it works as installed)."""
    for entry in ("", os.path.join(build, "python"), os.path.join(REPO, "build-python", "python")):
        env = dict(os.environ)
        if entry:
            env["PYTHONPATH"] = entry + os.pathsep + env.get("PYTHONPATH", "")
        try:
            done = subprocess.run([python, "-c", "import kerntime"], env=env, timeout=60,
                                  capture_output=True)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return entry
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("work")
    parser.add_argument("--budget", type=float, default=380.0,
                        help="seconds for every measurement step together")
    options = parser.parse_args()
    build = os.path.abspath(options.build)
    work = os.path.abspath(options.work)
    os.makedirs(work, exist_ok=True)
    steps = Steps(work, options.budget)
    kerntime = os.path.join(build, "kerntime")
    python = os.environ.get("KT_ACCURACY_PYTHON", sys.executable or "python3")
    manifest: Dict[str, object] = {
        "build": build, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": os.uname().nodename, "ncu_repeats": NCU_REPEATS, "steps": steps.records,
        "cli": {}, "ncu": {}, "repeat_runs": [],
    }

    def save() -> None:
        with open(os.path.join(work, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1)

    device = steps.run("device", ["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,"
                                  "clocks.max.sm,clocks.mem,temperature.gpu,power.draw,"
                                  "clocks_event_reasons.active", "--format=csv"], 20)
    manifest["device_log"] = device["log"]
    steps.run("kerntime info", [kerntime, "info"], 30)
    manifest["info_log"] = steps.records[-1]["log"]
    save()

    # kerntime as a user runs it: the default protocol (CUPTI), then the event fallback forced.
    for backend in ("cupti", "events"):
        for group, pattern, axes in CLI_GROUPS:
            out = os.path.join(work, f"cli_{group}_{backend}.json")
            command = [kerntime, "run", "--filter", pattern, *axes, "--json", out, "--quiet"]
            if backend == "events":
                command += ["--backend", "events"]
            record = steps.run(f"kerntime {group} ({backend})", command, 90, reserve_s=60)
            manifest["cli"].setdefault(group, {})[backend] = {"json": out, "step": record["name"]}
            save()

    # Nsight Compute on the same work. ncu holds CUPTI, so kerntime times with events under it
    # (--backend events); one warm-up call, then a trial of NCU_REPEATS calls opened by
    # kerntime's blocking kernel, after which every kernel is the work's.
    ncu = find_ncu()
    manifest["ncu_binary"] = ncu
    if ncu:
        for state, axes in NCU_STATES:
            csv_path = os.path.join(work, f"ncu_{slug(state)}.csv")
            command = [ncu, *NCU_FLAGS, "--log-file", csv_path, kerntime, "run", "--filter",
                       "^" + re.escape(state) + "$", *axes, "--backend", "events", "--warmup",
                       "1", "--trials", "1", "--repeat", str(NCU_REPEATS), "--no-telemetry",
                       "--quiet"]
            record = steps.run(f"ncu {state}", command, 60, reserve_s=30)
            manifest["ncu"][state] = {"csv": csv_path, "step": record["name"]}
            save()
    save()

    # Repeatability: the same two states, five whole runs of the command.
    for i in range(REPEAT_RUNS):
        out = os.path.join(work, f"repeat_{i + 1}.json")
        steps.run(f"repeat run {i + 1}", [kerntime, "run", "--filter", REPEAT_FILTER,
                                          *REPEAT_AXES, "--json", out, "--quiet"], 40,
                  reserve_s=60)
        manifest["repeat_runs"].append(out)
    save()

    # PyTorch ops: kerntime.bench, its event fallback, a CUDA-event loop, do_bench.
    entry = python_path_for_kerntime(python, build)
    manifest["kerntime_python_path"] = entry
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (HERE, entry, env.get("PYTHONPATH")) if p)
    torch_out = os.path.join(work, "torch_cases.json")
    steps.run("python cases", [python, os.path.join(HERE, "torch_cases.py"), torch_out], 180,
              env=env, reserve_s=40)
    manifest["torch_cases"] = torch_out
    save()

    # Nsight Compute on the PyTorch ops (see torch_for_ncu.py).
    if ncu:
        csv_path = os.path.join(work, "ncu_torch.csv")
        record = steps.run("ncu python ops",
                           [ncu, "--profile-from-start", "off", *NCU_FLAGS, "--log-file",
                            csv_path, python, os.path.join(HERE, "torch_for_ncu.py"),
                            str(NCU_REPEATS)], 150, env=env, reserve_s=15)
        manifest["ncu_torch"] = {"csv": csv_path, "log": record["log"], "step": record["name"]}
    save()

    # Perturbation of kernel durations with kerntime attached (the engine's own benchmark).
    perturbation = os.path.join(build, "bench", "bench_perturbation")
    if os.access(perturbation, os.X_OK):
        record = steps.run("bench_perturbation", [perturbation], 60, reserve_s=5)
        manifest["perturbation_log"] = record["log"]
    manifest["seconds"] = round(time.monotonic() - steps.started, 1)
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
