"""How the results history scales (issue 29, docs/history.md), on the machine it runs on (no GPU
needed): a store of STATES states x RUNS nightly runs, each run a result file synthesised from
the H200 suite run (tests/report/data/h200-suite.json, its states replicated under new names and
written by kerntime's own writer), each run's medians moved by 0.3 % noise and one state made 2 %
slower from run RUNS - 10 on. Times `kerntime history add` of one run (the first, the last),
`history show` of one state, `history changes` over every state (and checks that it finds that
state), and `history baseline --last 5` of every state.

Usage: history_scale.py KERNTIME [--states 2600] [--runs 365] [--work FOLDER] [--store URL]
(--store: a PostgreSQL database, postgresql://…, instead of a SQLite file in the work folder; it
must hold no kerntime store yet)"""

import argparse
import datetime
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests/report/data/h200-suite.json"


def template(kerntime: str, states: int, work: pathlib.Path) -> dict:
    """The source's states replicated to `states`, as kerntime writes them today (the trace of
    the first 10 iterations, its kernels named once)."""
    source = json.loads(SOURCE.read_text())
    runs = []
    for i in range(states):
        run = json.loads(json.dumps(source["runs"][i % len(source["runs"])]))
        run["state_name"] += f"/copy={i // len(source['runs'])}"
        run["axes"].append({"name": "copy", "value": str(i // len(source["runs"]))})
        run["plan_index"] = i
        runs.append(run)
    raw, written = work / "template_raw.json", work / "template.json"
    raw.write_text(json.dumps(dict(source, runs=runs)))
    subprocess.run([kerntime, "report", str(raw), "--json", str(written), "-q"], check=True)
    return json.loads(written.read_text())


def write_lines(document: dict, path: pathlib.Path) -> None:
    """kerntime's layout: a state per line (the reader's fast path)."""
    compact = dict(separators=(",", ":"))
    path.write_text(f'{{"json_schema_version": {document["json_schema_version"]},\n'
                    f'"context": {json.dumps(document["context"], **compact)},\n"runs": [\n'
                    + ",\n".join(json.dumps(r, **compact) for r in document["runs"]) + "\n]}\n")


def timed(command):
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    return time.monotonic() - start, done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kerntime")
    parser.add_argument("--states", type=int, default=2600)
    parser.add_argument("--runs", type=int, default=365)
    parser.add_argument("--work", default=None)
    parser.add_argument("--store", default=None)
    args = parser.parse_args()
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="kerntime_history_scale_"))
    work.mkdir(parents=True, exist_ok=True)
    store = args.store or work / "history.sqlite"
    if not args.store:
        store.unlink(missing_ok=True)
    document = template(args.kerntime, args.states, work)
    slower = document["runs"][args.states // 2]["state_name"]
    random.seed(1)
    add_seconds = []
    for night in range(args.runs):
        runs = []
        for run in document["runs"]:
            result = run.get("result")
            if result:
                factor = random.gauss(1.0, 0.003)
                if run["state_name"] == slower and night >= args.runs - 10:
                    factor *= 1.02
                result = dict(result, latency_ns=result["latency_ns"] * factor)
            runs.append(dict(run, result=result))
        day = datetime.date(2026, 1, 1) + datetime.timedelta(days=night)
        context = dict(document["context"], date=f"{day.isoformat()}T02:00:00Z")
        path = work / "night.json"
        write_lines(dict(document, context=context, runs=runs), path)
        seconds, done = timed([args.kerntime, "history", "add", str(path), "--store", str(store),
                               "--commit", f"c{night:04d}", "--branch", "main"])
        if done.returncode != 0:
            raise SystemExit(f"history add: {done.stderr}")
        add_seconds.append(seconds)
    show_seconds, shown = timed([args.kerntime, "history", "show", "--store", str(store),
                                 "--filter", "^" + slower.replace("=", "=") + "$", "--json", "-"])
    changes_seconds, changes = timed([args.kerntime, "history", "changes", "--store", str(store),
                                      "--json", "-"])
    found = json.loads(changes.stdout)["changes"] if changes.returncode in (0, 1) else []
    baseline_seconds, baseline = timed([args.kerntime, "history", "baseline", "--store",
                                        str(store), "--last", "5", "--json",
                                        str(work / "baseline.json.gz")])
    if baseline.returncode != 0:
        raise SystemExit(f"history baseline: {baseline.stderr}")
    size = f"{os.path.getsize(store) / 1e6:.0f} MB" if not args.store else "(server)"
    print("| states | runs | store | `history add` (one run: first, last) | `history show` "
          "(one state) | `history changes` (every state) | `history baseline --last 5` "
          "| changes found |")
    print("|---:|---:|---:|---|---|---|---|---|")
    print(f"| {args.states} | {args.runs} | {size} | {add_seconds[0]:.2f} s, "
          f"{add_seconds[-1]:.2f} s | {show_seconds:.2f} s | {changes_seconds:.2f} s (exit "
          f"{changes.returncode}) | {baseline_seconds:.2f} s | {len(found)}: "
          + ", ".join(f"{c['state']} at {c['first_changed']['commit']}" for c in found[:5]) + " |")
    print(f"(the state made 2 % slower: {slower}, from c{args.runs - 10:04d})", file=sys.stderr)


if __name__ == "__main__":
    main()
