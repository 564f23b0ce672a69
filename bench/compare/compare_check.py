"""The GPU check of `kerntime compare` (run by scripts/gpu_check.sh on the H200):

- A/A: N runs of the bundled suite in N processes on unchanged code; every pair of consecutive
  runs compared (span, the default, and busy). Every `slower` verdict is a false alarm.
- Detection: spin kernels of known duration, base 20 and 200 us against new 21, 201, 202, 203,
  204 and 206 us (one run per side), compared as if they were the same state; under the fixed
  protocol and under --stop-at-ci 0.5, each repeated --detect-repeats times.
- Stopping (--stop-runs M): M suite runs with --stop-at-ci 0.5, their consecutive pairs compared
  (A/A under the stopping rule), and per state the trials it took, the interval it reached and
  its wall time against the fixed protocol's (the A/A runs').

Prints `RESULT compare_aa ...`, `RESULT compare_spin ...` and `RESULT stop_at_ci ...` lines; keeps
the JSON in OUTDIR.
Usage: python3 compare_check.py KERNTIME_BINARY OUTDIR [--aa-runs N] [--detect-repeats K]
                                [--stop-runs M]
"""

import argparse
import json
import statistics
import os
import subprocess


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


STOP_AT_CI = ["--stop-at-ci", "0.5"]


def aa(kerntime, folder, runs, rule="fixed", args=()):
    files = [run(kerntime, os.path.join(folder, f"aa_{rule}{i}.json"), list(args))
             for i in range(runs)]
    for metric in ("span", "busy"):
        states = slower = by_clock = inconclusive = exits = 0
        alarms = []
        for base, new in zip(files, files[1:]):
            result, code = compare(kerntime, base, new, "--metric", metric)
            exits += code
            for s in result["states"]:
                states += 1
                inconclusive += s["verdict"] == "inconclusive"
                if s["verdict"] == "slower":
                    # "slower (clock)": the clocks differed and the cycles do not confirm it;
                    # the gate passes it by default (docs/compare.md).
                    clock = s.get("clock_mismatch", False)
                    slower += not clock
                    by_clock += clock
                    alarms.append(f"{s['state_name']}:{100 * (s['ratio'] - 1):+.2f}%"
                                  f"{'(clock)' if clock else ''}")
        print(f"RESULT compare_aa rule={rule} metric={metric} runs={runs} pairs={runs - 1} "
              f"states={states} "
              f"slower={slower} slower_clock={by_clock} inconclusive={inconclusive} "
              f"gate_failures={exits} "
              f"false_alarm_pct={100 * slower / max(states, 1):.3g} alarms={','.join(alarms) or '-'}")
    return files


PAIRS = ((20, 21), (200, 201), (200, 202), (200, 203), (200, 204), (200, 206))


def detection(kerntime, folder, repeats, thresholds):
    """Each pair compared at the default threshold and at tighter ones: at 2 % the band decides
    what counts as a slowdown; at 0.5 % the noise does, which is where more trials can help."""
    for rule, args in (("fixed", []), ("stop_at_ci_0.5", STOP_AT_CI)):
        verdicts = {(pair, t): [] for pair in PAIRS for t in thresholds}
        for r in range(repeats):
            tag = f"{rule}_{r}"
            base = run(kerntime, os.path.join(folder, f"spin_base_{tag}.json"),
                       ["--filter", "spin", "-a", "duration_us=[20,200]", *args])
            new = run(kerntime, os.path.join(folder, f"spin_new_{tag}.json"),
                      ["--filter", "spin", "-a", "duration_us=[21,201,202,203,204,206]", *args])
            for base_us, new_us in PAIRS:
                state = f"spin/duration_us={base_us}"
                b = renamed(base, state, state, os.path.join(folder, f"b{base_us}_{tag}.json"))
                n = renamed(new, f"spin/duration_us={new_us}", state,
                            os.path.join(folder, f"n{base_us}_{new_us}_{tag}.json"))
                for t in thresholds:
                    result, code = compare(kerntime, b, n, "--threshold", t)
                    s = result["states"][0]
                    verdicts[((base_us, new_us), t)].append(
                        f"{s['verdict']}:{s['ratio']:.4f}[{s['ratio_low']:.4f},"
                        f"{s['ratio_high']:.4f}]")
        for ((base_us, new_us), t), seen in verdicts.items():
            detected = sum(v.startswith("slower") for v in seen)
            print(f"RESULT compare_spin rule={rule} threshold={t} base_us={base_us} "
                  f"new_us={new_us} detected={detected}/{len(seen)} "
                  f"verdict={seen[-1].split(':')[0]} "
                  f"ratio={seen[-1].split(':')[1].split('[')[0]} all={','.join(seen)}")


def states_of(path):
    with open(path) as f:
        return {r["state_name"]: r["result"] for r in json.load(f)["runs"] if r["result"]}


def stopping(kerntime, folder, runs, fixed_files):
    """Per state: trials, interval and wall time under --stop-at-ci 0.5, against the fixed
    protocol's wall time (median over the fixed A/A runs)."""
    files = aa(kerntime, folder, runs, "stop_at_ci_0.5", STOP_AT_CI)
    fixed = [states_of(f) for f in fixed_files]
    adaptive = [states_of(f) for f in files]
    reached = total = 0
    for state in adaptive[0]:
        runs_of = [a[state] for a in adaptive if state in a]
        trials = [r["stopping"]["trials"] for r in runs_of]
        widths = [float("nan") if r["stopping"]["half_width"] is None
                  else 100 * r["stopping"]["half_width"] for r in runs_of]
        reasons = [r["stopping"]["stopped_because"] for r in runs_of]
        reached += reasons.count("interval_reached")
        total += len(reasons)
        stop_wall = statistics.median(r["wall_seconds"] for r in runs_of)
        fixed_walls = [f[state]["wall_seconds"] for f in fixed if state in f]
        fixed_wall = statistics.median(fixed_walls) if fixed_walls else float("nan")
        print(f"RESULT stop_at_ci state={state} trials={'/'.join(map(str, trials))} "
              f"half_width_pct={'/'.join(f'{w:.2f}' for w in widths)} "
              f"reasons={'/'.join(sorted(set(reasons)))} stop_wall_s={stop_wall:.3f} "
              f"fixed_wall_s={fixed_wall:.3f} wall_ratio={stop_wall / fixed_wall:.2f}")
    print(f"RESULT stop_at_ci_summary runs={runs} states={total} reached={reached}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kerntime")
    parser.add_argument("folder")
    parser.add_argument("--aa-runs", type=int, default=8)
    parser.add_argument("--detect-repeats", type=int, default=1)
    parser.add_argument("--stop-runs", type=int, default=0)
    parser.add_argument("--thresholds", default="2%",
                        help="comma-separated thresholds the detection pairs are compared at")
    a = parser.parse_args()
    os.makedirs(a.folder, exist_ok=True)
    fixed_files = aa(a.kerntime, a.folder, a.aa_runs)
    detection(a.kerntime, a.folder, a.detect_repeats, a.thresholds.split(","))
    if a.stop_runs:
        stopping(a.kerntime, a.folder, a.stop_runs, fixed_files)


if __name__ == "__main__":
    main()
