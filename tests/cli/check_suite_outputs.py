"""Runs `kerntime run` over the bundled suite with every output flag and checks each file's
content against the others: the same states everywhere, numbers where states ran, kernels where
CUPTI ran, the JSON valid against its schema (when python3-jsonschema is there), the XML and CSV
readable by strict parsers, the Google Benchmark keys compare.py reads, a well-formed trace.

    python3 check_suite_outputs.py KERNTIME_BINARY SCHEMA [--filter REGEX]
    python3 check_suite_outputs.py --files DIR SCHEMA     (check files a run already wrote)

Exit 0: every check passed; 77: no GPU here (ctest reports it skipped); 1: a check failed.
"""

import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

NAMES = {"json": "suite.json", "gbench": "suite_gbench.json", "junit": "suite.xml",
         "csv": "suite.csv", "trace": "suite_trace.json"}
# What Google Benchmark writes (and compare.py reads) on every row; iteration rows also carry
# repetition_index, aggregate rows aggregate_name.
GBENCH_KEYS = {"name", "run_name", "run_type", "iterations", "real_time", "cpu_time", "time_unit",
               "repetitions", "threads", "family_index", "per_family_instance_index"}

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def run_suite(binary, folder, extra):
    args = [binary, "run", "--quiet", "--json", os.path.join(folder, NAMES["json"]),
            "--gbench-json", os.path.join(folder, NAMES["gbench"]),
            "--junit", os.path.join(folder, NAMES["junit"]),
            "--csv", os.path.join(folder, NAMES["csv"]),
            "--trace", os.path.join(folder, NAMES["trace"]),
            "--store", os.path.join(folder, "history.sqlite"), "--commit", "suite-check"] + extra
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if done.returncode == 3:
        print("skipped: no CUDA device here:", done.stderr.strip())
        sys.exit(77)
    check(done.returncode in (0, 1), f"kerntime run exited {done.returncode}: {done.stderr}")


def check_json(folder, schema_path):
    with open(os.path.join(folder, NAMES["json"]), encoding="utf-8") as f:
        doc = json.load(f)
    try:
        import jsonschema  # python3-jsonschema; optional on machines without it
        with open(schema_path, encoding="utf-8") as f:
            jsonschema.validate(doc, json.load(f))
    except ImportError:
        print("note: jsonschema not installed; the schema check is skipped")
    runs = doc["runs"]
    check(len(runs) > 0, "the JSON holds no run")
    states = []
    for run in runs:
        states.append(run["state_name"])
        if run["status"] != "ok":
            check(run["message"], f"{run['state_name']}: {run['status']} without a message")
            continue
        r = run["result"]
        p = r["protocol"]
        spans = [v for trial in r["trials"] for v in trial["span_ns"]]
        busies = [v for trial in r["trials"] for v in trial["busy_ns"]]
        check(len(spans) == len(busies) == p["trials"] * p["repeats"],
              f"{run['state_name']}: {len(spans)} samples for {p['trials']} x {p['repeats']}")
        check(r["latency_ns"] > 0, f"{run['state_name']}: latency {r['latency_ns']}")
        check(all(v > 0 for v in spans + busies), f"{run['state_name']}: a sample is zero")
        if r["timing_backend"] == "cupti":
            check(r["kernels"], f"{run['state_name']}: CUPTI ran but no kernel is listed")
            share = sum(k["share"] for k in r["kernels"])
            check(abs(share - 1) < 1e-6, f"{run['state_name']}: shares sum to {share}")
            check(r["trace"]["records"], f"{run['state_name']}: CUPTI ran but the trace is empty")
            if p["flush_l2"]:
                check(r["flush_median_ns"] > 0, f"{run['state_name']}: no flush time")
    return runs, states


def check_junit(folder, runs):
    root = ElementTree.parse(os.path.join(folder, NAMES["junit"])).getroot()
    cases = {case.get("name"): case for case in root.iter("testcase")}
    check(set(cases) == {r["state_name"] for r in runs}, "JUnit testcases differ from the JSON states")
    for run in runs:
        case = cases.get(run["state_name"])
        if case is None:
            continue
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        if run["status"] == "ok":
            latency_ms = float(props.get("latency_ms", "nan"))
            check(abs(latency_ms - run["result"]["latency_ns"] / 1e6) < 1e-5,
                  f"{run['state_name']}: JUnit latency_ms {latency_ms}")
            check(props.get("timing_backend") == run["result"]["timing_backend"],
                  f"{run['state_name']}: JUnit backend")
            if run["result"]["kernels"]:
                check(props.get("kernel.1") == run["result"]["kernels"][0]["name"],
                      f"{run['state_name']}: JUnit kernel.1 is not the top kernel's full name")
        elif run["status"] == "failed":
            check(case.find("failure") is not None, f"{run['state_name']}: no JUnit failure")
        else:
            check(case.find("skipped") is not None, f"{run['state_name']}: no JUnit skipped")


def check_csv(folder, runs):
    with open(os.path.join(folder, NAMES["csv"]), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(io.StringIO(f.read()), strict=True))
    check([row["state"] for row in rows] == [r["state_name"] for r in runs],
          "CSV rows differ from the JSON states")
    for row, run in zip(rows, runs):
        if run["status"] == "ok":
            check(abs(float(row["latency_ms"]) - run["result"]["latency_ns"] / 1e6) < 1e-5,
                  f"{run['state_name']}: CSV latency_ms {row['latency_ms']}")


def check_gbench(folder, runs):
    with open(os.path.join(folder, NAMES["gbench"]), encoding="utf-8") as f:
        doc = json.load(f)
    check("context" in doc and "date" in doc["context"], "gbench JSON has no context/date")
    for b in doc["benchmarks"]:
        extra = {"aggregate_name"} if b.get("run_type") == "aggregate" else {"repetition_index"}
        missing = (GBENCH_KEYS | extra) - set(b)
        check(not missing, f"gbench row {b.get('name')} lacks {sorted(missing)}")
    ok = [r for r in runs if r["status"] == "ok"]
    medians = {b["run_name"] for b in doc["benchmarks"] if b.get("aggregate_name") == "median"}
    check({r["state_name"] for r in ok} <= medians, "a state lacks its gbench median aggregate")


def check_trace(folder, runs):
    with open(os.path.join(folder, NAMES["trace"]), encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    complete = [e for e in events if e.get("ph") == "X"]
    check(complete, "the trace holds no complete event")
    check(all(e["dur"] >= 0 and "ts" in e for e in complete), "a trace event has no time")
    traced = {e["pid"] for e in complete}
    cupti = sum(1 for r in runs if r["status"] == "ok" and r["result"]["trace"]["records"])
    check(len(traced) >= cupti, f"{len(traced)} states traced, {cupti} have trace records")


def check_history(binary, folder, runs):
    """run --store kept every measured state, with its median, under the commit given."""
    shown = subprocess.run([binary, "history", "show", "--store",
                            os.path.join(folder, "history.sqlite"), "--json", "-"],
                           capture_output=True, text=True, timeout=60)
    check(shown.returncode == 0, f"history show exited {shown.returncode}: {shown.stderr}")
    if shown.returncode != 0:
        return
    series = {s["state"]: s["points"] for s in json.loads(shown.stdout)["series"]}
    for run in runs:
        if run["status"] != "ok":
            continue
        points = series.get(run["state_name"], [])
        check(len(points) == 1 and points[0]["commit"] == "suite-check" and
              points[0]["median_ns"] == run["result"]["latency_ns"],
              f"{run['state_name']}: the history holds {points}")


def main():
    args = sys.argv[1:]
    if args[0] == "--files":
        folder, schema = args[1], args[2]
    else:
        binary, schema = args[0], args[1]
        folder = tempfile.mkdtemp(prefix="kerntime-outputs-")
        run_suite(binary, folder, args[2:])
    runs, states = check_json(folder, schema)
    check_junit(folder, runs)
    check_csv(folder, runs)
    check_gbench(folder, runs)
    check_trace(folder, runs)
    if args[0] != "--files":
        check_history(binary, folder, runs)
    ok = sum(1 for r in runs if r["status"] == "ok")
    print(f"{len(states)} states ({ok} ok) checked across JSON, JUnit, CSV, gbench JSON, trace")
    for message in failures[:20]:
        print("FAIL:", message)
    if len(failures) > 20:
        print(f"... and {len(failures) - 20} more failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
