"""Speed of light, energy and calibrate on a GPU, through the kerntime command: the suite's bf16
GEMM 4096 and 256 MiB copy show their SOL %, the GEMM's energy per iteration agrees with NVML's
power reading (within 10 %), and calibrate finishes in under a minute and is read back by run
--calibration. Prints RESULT lines (for docs/speed-of-light.md). Exit 77 where there is no GPU.
Usage: check_speed_of_light.py KERNTIME [OUT_FOLDER]"""

import json
import pathlib
import subprocess
import sys
import tempfile
import time

kerntime = sys.argv[1]
folder = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp())
folder.mkdir(parents=True, exist_ok=True)
problems = []

GEMM = "gemm_bf16/size=4096"
COPY = "copy/bytes=268435456/l2=cold"


def expect(condition, message):
    if not condition:
        problems.append(message)
        print("FAIL:", message)


def run(name, *args, timeout=240):
    start = time.monotonic()
    done = subprocess.run([kerntime, *args], capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - start
    (folder / f"{name}.out").write_text(done.stdout)
    (folder / f"{name}.log").write_text(done.stderr)
    if done.returncode == 3:
        print("SKIPPED: no CUDA device:", done.stderr.strip())
        sys.exit(77)
    return done, seconds


# calibrate: under a minute, a file run --calibration reads.
calibration = folder / "calibration.json"
done, seconds = run("calibrate", "calibrate", "--output", str(calibration), timeout=120)
expect(done.returncode == 0, f"calibrate exited {done.returncode}: {done.stderr.strip()}")
expect(seconds < 60, f"calibrate took {seconds:.1f} s, more than a minute")
print(done.stdout)
print(f"RESULT calibrate wall {seconds:.1f} s")
cal = json.loads(calibration.read_text()) if calibration.exists() else {}
if cal:
    print(f"RESULT calibrate copy {cal['copy']['bytes_per_s'] / 1e9:.1f} GB/s")
    for precision, rate in cal["gemm"]["flops_per_s"].items():
        print(f"RESULT calibrate gemm {precision} {rate / 1e12:.1f} TFLOP/s")
    expect("bf16_tensor" in cal["gemm"]["flops_per_s"], "calibrate measured no bf16 GEMM")

# The suite's GEMM and copy with their SOL, the theoretical and the achievable one.
results = folder / "sol.json"
done, _ = run("sol", "run", "--filter", f"^({GEMM}|{COPY})$", "--json", str(results),
              "--calibration", str(calibration))
print(done.stdout)
expect(done.returncode == 0, f"run exited {done.returncode}: {done.stderr.strip()}")
runs = {r["state_name"]: r for r in json.loads(results.read_text())["runs"]}
gemm = runs.get(GEMM, {}).get("speed_of_light")
copy = runs.get(COPY, {}).get("speed_of_light")
expect(gemm is not None, "the GEMM has no speed_of_light")
expect(copy is not None, "the copy has no speed_of_light")
if gemm:
    expect(gemm["bound"] == "compute" and gemm["precision"] == "bf16_tensor",
           f"GEMM: {gemm['bound']} {gemm['precision']}")
    expect(30 < gemm["compute_pct"] < 100, f"GEMM compute {gemm['compute_pct']:.1f} %")
    print(f"RESULT gemm_bf16 4096 latency {runs[GEMM]['result']['latency_ns'] / 1e3:.3f} us "
          f"compute {gemm['compute_pct']:.1f} % of {gemm['peak_flops_per_s'] / 1e12:.1f} TFLOP/s, "
          f"memory {gemm['memory_pct']:.1f} %, roofline {gemm['roofline_ns'] / 1e3:.3f} us, "
          f"achievable compute {(gemm['achievable'] or {}).get('compute_pct') or 0:.1f} %")
if copy:
    expect(copy["bound"] == "memory", f"copy: {copy['bound']}")
    expect(40 < copy["memory_pct"] < 100, f"copy memory {copy['memory_pct']:.1f} %")
    print(f"RESULT copy 256 MiB latency {runs[COPY]['result']['latency_ns'] / 1e3:.3f} us "
          f"memory {copy['memory_pct']:.1f} % of {copy['peak_bytes_per_s'] / 1e9:.1f} GB/s, "
          f"roofline {copy['roofline_ns'] / 1e3:.3f} us, "
          f"achievable memory {(copy['achievable'] or {}).get('memory_pct') or 0:.1f} %")

# Energy: NVML's counter is read before the first trial and after the last; it moves in steps of
# ~0.1 s on the H200, so the window must be long: three trials of ~2 s each (a step at each end is
# then within 4 %). The counter covers the whole window: the GPU is busy for the spans and the
# flushes and idles in the gaps between trials. It is checked against NVML's power reading as each
# trial ends (a one-second average on this GPU, so inside the trial) × busy time + idle power ×
# idle time, within 10 %.
IDLE_W = 90.0  # `kerntime info` on the idle H200: 78-86 W
energy_json = folder / "energy.json"
done, _ = run("energy", "run", "--filter", f"^{GEMM}$", "--json", str(energy_json), "-q",
              "--trials", "3", "--repeat", "8000", "--preparations", "1")
expect(done.returncode == 0, f"energy run exited {done.returncode}: {done.stderr.strip()}")
result = json.loads(energy_json.read_text())["runs"][0]["result"]
energy = result["energy"]
expect(energy["available"], f"energy unavailable: {energy['unavailable_reason']}")
if energy["available"]:
    window = energy["window_s"]
    iterations = energy["window_iterations"]
    joules = energy["joules_per_iteration"] * iterations
    spans = [s for trial in result["trials"] for s in trial["span_ns"]]
    expect(iterations == len(spans), f"window iterations {iterations} vs {len(spans)} measured")
    busy = (sum(spans) + len(spans) * result["flush_median_ns"]) / 1e9
    powers = [(trial["telemetry"]["after"] or {}).get("power_w") for trial in result["trials"]]
    powers = [p for p in powers if p]
    print(f"RESULT energy gemm_bf16 4096: {energy['joules_per_iteration'] * 1e3:.3f} mJ per "
          f"iteration, {energy['average_watts']:.1f} W average over {window:.3f} s "
          f"({iterations} iterations), GPU busy {busy:.3f} s, NVML power at trial ends "
          f"{', '.join(f'{p:.0f}' for p in powers)} W")
    expect(bool(powers), "no NVML power reading at the trials' ends")
    if powers:
        power = sum(powers) / len(powers)
        expected = power * busy + IDLE_W * max(window - busy, 0)
        expect(abs(joules / expected - 1) < 0.10,
               f"counter {joules:.1f} J vs power × busy + idle {expected:.1f} J")
        print(f"RESULT energy window: counter {joules:.1f} J, model {expected:.1f} J "
              f"({joules / expected - 1:+.1%})")

print("OK" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
