"""The GPU check of `kerntime compare` (run by scripts/gpu_check.sh on the H200):

- A/A: N runs of the bundled suite in N processes on unchanged code; every pair of consecutive
  runs compared (span, the default, and busy). Every `slower` verdict is a false alarm.
- Detection: spin kernels of known duration, base 20 and 200 us against new 21, 202, 203, 204
  and 206 us (one run per side), compared as if they were the same state.

Prints `RESULT compare_aa ...` and `RESULT compare_spin ...` lines; keeps the JSON in OUTDIR.
Usage: python3 compare_check.py KERNTIME_BINARY OUTDIR [RUNS]
"""

import json
import os
import subprocess
import sys


def run(kerntime, out, args):
    subprocess.run([kerntime, "run", "--quiet", "--json", out, *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def compare(kerntime, base, new, *args):
    """The comparison's JSON and the exit code."""
    verdicts = new + ".verdicts.json"
    done = subprocess.run([kerntime, "compare", base, new, "--quiet", "--json", verdicts, *args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"compare exited {done.returncode}: {done.stderr.strip()}")
    with open(verdicts) as f:
        return json.load(f), done.returncode


def renamed(path, old, new, out):
    """A copy of a result set whose state `old` is called `new` (and nothing else is kept)."""
    with open(path) as f:
        document = json.load(f)
    document["runs"] = [r for r in document["runs"] if r["state_name"] == old]
    for r in document["runs"]:
        r["state_name"] = new
        r["axes"] = [{"name": "duration_us", "value": new.split("=")[1]}]
    with open(out, "w") as f:
        json.dump(document, f)
    return out


def aa(kerntime, folder, runs):
    files = [run(kerntime, os.path.join(folder, f"aa{i}.json"), []) for i in range(runs)]
    for metric in ("span", "busy"):
        states = slower = inconclusive = exits = 0
        alarms = []
        for base, new in zip(files, files[1:]):
            result, code = compare(kerntime, base, new, "--metric", metric)
            exits += code
            for s in result["states"]:
                states += 1
                inconclusive += s["verdict"] == "inconclusive"
                if s["verdict"] == "slower":
                    slower += 1
                    alarms.append(f"{s['state_name']}:{100 * (s['ratio'] - 1):+.2f}%")
        print(f"RESULT compare_aa metric={metric} runs={runs} pairs={runs - 1} states={states} "
              f"slower={slower} inconclusive={inconclusive} gate_failures={exits} "
              f"false_alarm_pct={100 * slower / max(states, 1):.3g} alarms={','.join(alarms) or '-'}")


def detection(kerntime, folder):
    base = run(kerntime, os.path.join(folder, "spin_base.json"), ["--filter", "spin",
                                                                  "-a", "duration_us=[20,200]"])
    new = run(kerntime, os.path.join(folder, "spin_new.json"),
              ["--filter", "spin", "-a", "duration_us=[21,202,203,204,206]"])
    for base_us, new_us in ((20, 21), (200, 202), (200, 203), (200, 204), (200, 206)):
        state = f"spin/duration_us={base_us}"
        b = renamed(base, state, state, os.path.join(folder, f"b{base_us}.json"))
        n = renamed(new, f"spin/duration_us={new_us}", state,
                    os.path.join(folder, f"n{base_us}_{new_us}.json"))
        result, code = compare(kerntime, b, n)
        s = result["states"][0]
        print(f"RESULT compare_spin base_us={base_us} new_us={new_us} verdict={s['verdict']} "
              f"ratio={s['ratio']:.4f} low={s['ratio_low']:.4f} high={s['ratio_high']:.4f} "
              f"exit={code}")


def main():
    kerntime, folder = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    os.makedirs(folder, exist_ok=True)
    aa(kerntime, folder, runs)
    detection(kerntime, folder)


if __name__ == "__main__":
    main()
