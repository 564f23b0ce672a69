"""What the supervised run costs and how it scales, on the GPU machine (docs/scale.md):
  - the bundled suite supervised (one worker process) against --no-isolation, alternated;
  - with two or more GPUs, a wider suite on one GPU against --devices all, and each state's
    latency on both (within its noise), each GPU's UUID in the results.
Prints RESULT lines. Usage: scale_check.py KERNTIME OUT_FOLDER [--rounds N] [--wide 'ARGS']
(--wide takes the run's extra arguments as one shell-quoted string)."""

import argparse
import json
import pathlib
import re
import shlex
import statistics
import subprocess
import time


def run(kerntime, out, *args):
    start = time.monotonic()
    done = subprocess.run([kerntime, "run", "-q", "--json", str(out), *args],
                          capture_output=True, text=True, timeout=900)
    seconds = time.monotonic() - start
    return done, seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kerntime")
    parser.add_argument("out")
    parser.add_argument("--rounds", type=int, default=3)
    # About 35 s on one H200: 65 states took 16.3 s at --trials 10 (docs/scale.md).
    parser.add_argument("--wide", default="-a 'bytes[pow2]=[20:28:1]' "
                        "-a 'duration_us=[1,10,100,1000,5000]' -a 'elements[pow2]=[16:24:1]' "
                        "--trials 24",
                        help="the multi-GPU suite's extra run arguments, one shell-quoted string")
    a = parser.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)

    walls = {"supervised": [], "in_process": []}
    starts = []
    for r in range(a.rounds):
        for mode, extra in (("supervised", []), ("in_process", ["--no-isolation"])):
            done, seconds = run(a.kerntime, out / f"suite_{mode}_{r}.json", *extra)
            walls[mode].append(seconds)
            m = re.search(r"\(([\d.]+) s to start, ", done.stderr)
            if m:
                starts.append(float(m.group(1)))
            if done.returncode not in (0, 1):
                print(f"RESULT scale_overhead error=exit_{done.returncode}")
                print(done.stderr[-2000:])
                return
    sup, inp = statistics.median(walls["supervised"]), statistics.median(walls["in_process"])
    print(f"RESULT scale_overhead supervised_s={sup:.3f} in_process_s={inp:.3f} "
          f"overhead_s={sup - inp:.3f} overhead_pct={100 * (sup - inp) / inp:.2f} "
          f"worker_start_s={statistics.median(starts) if starts else float('nan'):.3f} "
          f"rounds={a.rounds}")

    count = subprocess.run([a.kerntime, "info"], capture_output=True, text=True).stdout
    gpus = len(re.findall(r"^\s*device \d+|^## device|^GPU \d+", count, re.M))
    listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    gpus = max(gpus, len([l for l in listing.splitlines() if l.startswith("GPU ")]))
    if gpus < 2:
        print(f"RESULT scale_devices skipped=one_gpu gpus={gpus}")
        return
    wide = shlex.split(a.wide)
    one, one_s = run(a.kerntime, out / "wide_one.json", *wide)
    all_, all_s = run(a.kerntime, out / "wide_all.json", "--devices", "all", *wide)
    for name, done in (("one", one), ("all", all_)):
        if done.returncode not in (0, 1):
            print(f"RESULT scale_devices error=wide_{name}_exit_{done.returncode}")
            print(done.stderr[-2000:])
            return
    base = {r["state_name"]: r for r in json.loads((out / "wide_one.json").read_text())["runs"]}
    spread = json.loads((out / "wide_all.json").read_text())["runs"]
    uuids = {r["device"]["uuid"] for r in spread if r.get("device")}
    worst = 0.0
    outside = []  # "state@gpuK:+x.x%": which GPU ran it tells a GPU's own speed from concurrency
    for r in spread:
        b = base.get(r["state_name"])
        if not b or r["status"] != "ok" or b["status"] != "ok":
            continue
        ratio = r["result"]["latency_ns"] / b["result"]["latency_ns"]
        noise = max(b["result"]["statistics"]["headline"]["cv"], 0.005) * 3
        worst = max(worst, abs(ratio - 1))
        if abs(ratio - 1) > max(noise, 0.02):
            gpu = r["device"]["ordinal"] if r.get("device") else "?"
            outside.append(f"{r['state_name']}@gpu{gpu}:{100 * (ratio - 1):+.1f}%")
    print(f"RESULT scale_devices gpus={gpus} one_gpu_s={one_s:.2f} all_gpus_s={all_s:.2f} "
          f"ratio={all_s / one_s:.3f} states={len(spread)} uuids={len(uuids)} "
          f"worst_latency_diff_pct={100 * worst:.2f} states_outside_noise={len(outside)}"
          + (f" outside={','.join(outside)}" if outside else ""))


if __name__ == "__main__":
    main()
