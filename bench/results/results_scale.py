"""How the commands that read results scale with the number of states (issue 28, docs/scale.md),
on the machine it runs on (no GPU needed): result sets synthesised from a real H200 suite run
(tests/report/data/h200-suite.json: its 26 states replicated under new names, an axis `copy`
added), then `kerntime compare A B`, `kerntime report A` (markdown), `kerntime report A --html`
and `kerntime --help` timed, each with its peak memory (ru_maxrss of the child).

Usage: results_scale.py KERNTIME [--states 26,2600] [--work FOLDER]
Prints a markdown table: states, file size per state, then seconds and MiB per command."""

import argparse
import copy
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests/report/data/h200-suite.json"


TRACED_ITERATIONS = 10  # what summarise() keeps of the first trial's trace (src/result)


def synthesise(states: int, path: pathlib.Path, scale: float = 1.0, legacy: bool = False) -> None:
    """A result set of `states` states: the source's runs replicated, `scale` times slower. As
    kerntime writes it now (the trace of the first 10 iterations), or with `legacy` as the
    source was written (the whole first trial's trace, indented)."""
    source = json.loads(SOURCE.read_text())
    runs = []
    for i in range(states):
        run = copy.deepcopy(source["runs"][i % len(source["runs"])])
        replica = i // len(source["runs"])
        run["axes"].append({"name": "copy", "value": str(replica)})
        run["state_name"] += f"/copy={replica}"
        run["plan_index"] = i
        result = run.get("result")
        if result and not legacy:
            result["trace"] = [t for t in result["trace"] if t["iteration"] < TRACED_ITERATIONS]
        if result and scale != 1.0:
            for trial in result["trials"]:
                trial["span_ns"] = [v * scale for v in trial["span_ns"]]
                trial["busy_ns"] = [v * scale for v in trial["busy_ns"]]
        runs.append(run)
    document = dict(source, runs=runs)
    path.write_text(json.dumps(document, indent=2 if legacy else None))


def shard(path: pathlib.Path, count: int, folder: pathlib.Path) -> list:
    """`path` cut into `count` shards as `kerntime run --shard I/COUNT` writes them: the runs
    whose plan index is I mod COUNT, the shard and the plan's size in the context. Written in
    kerntime's layout (a state per line), in a child process like the synthesis."""
    lines = path.read_text().split("\n")
    header = json.loads(lines[0].rstrip(",") + "}")
    context = json.loads(lines[1][len('"context": '):-1])
    runs = [line.rstrip(",") for line in lines[3:] if line.startswith("{")]
    paths = []
    for index in range(count):
        context["shard"] = {"index": index, "count": count}
        context["plan_states"] = len(runs)
        mine = runs[index::count]
        shard_path = folder / f"shard_{index}.json"
        shard_path.write_text(
            f'{{"json_schema_version": {header["json_schema_version"]},\n"context": '
            + json.dumps(context, separators=(",", ":")) + ',\n"runs": [\n'
            + ",\n".join(mine) + "\n]}\n")
        paths.append(str(shard_path))
    return paths


def timed(command):
    """Seconds and peak MiB of one command (its own ru_maxrss, from wait4)."""
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{command}: exit {code}: {child.stderr.read()[-500:]}")
    child.stderr.close()
    return seconds, usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kerntime")
    parser.add_argument("--states", default="26,2600")
    parser.add_argument("--work", default=None)
    parser.add_argument("--legacy", action="store_true",
                        help="files as kerntime wrote them before issue 28: the whole first "
                             "trial's trace, indented")
    parser.add_argument("--synthesise", nargs=4, metavar=("STATES", "PATH", "SCALE", "LEGACY"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--shard", nargs=3, metavar=("PATH", "COUNT", "FOLDER"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.shard:
        shard(pathlib.Path(args.shard[0]), int(args.shard[1]), pathlib.Path(args.shard[2]))
        return
    if args.synthesise:
        synthesise(int(args.synthesise[0]), pathlib.Path(args.synthesise[1]),
                   float(args.synthesise[2]), args.synthesise[3] == "legacy")
        return
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="kerntime_results_scale_"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for states in sorted(int(s) for s in args.states.split(",")):
        a, b = work / f"a_{states}.json", work / f"b_{states}.json"
        # In a child: a forked command inherits this process's peak memory as its own.
        for path, scale in ((a, 1.0), (b, 1.001)):
            subprocess.run([sys.executable, __file__, args.kerntime, "--synthesise", str(states),
                            str(path), str(scale), "legacy" if args.legacy else "current"],
                           check=True)
            if not args.legacy:  # written again by kerntime's own writer, in its layout
                subprocess.run([args.kerntime, "report", str(path), "--json", str(path) + ".w",
                                "-q"], check=True)
                os.replace(str(path) + ".w", path)
        html = work / f"r_{states}.html"
        gz = work / f"a_{states}.json.gz"
        subprocess.run([args.kerntime, "report", str(a), "--json", str(gz), "-q"], check=True)
        shards = work / f"shards_{states}"
        shards.mkdir(exist_ok=True)
        shard_paths = []
        if not args.legacy:  # in a child too, for the same reason
            subprocess.run([sys.executable, __file__, args.kerntime, "--shard", str(a), "16",
                            str(shards)], check=True)
            shard_paths = [str(shards / f"shard_{i}.json") for i in range(16)]
        row = {"states": states, "kb_per_state": os.path.getsize(a) / states / 1000,
               "gz_kb_per_state": os.path.getsize(gz) / states / 1000}
        sides = [arg for path in ([a] * 4) for arg in ("--base", str(path))] + \
                [arg for path in ([b] * 4) for arg in ("--new", str(path))]
        commands = [
            ("help", [args.kerntime, "--help"]),
            ("report", [args.kerntime, "report", str(a)]),
            ("report_gz", [args.kerntime, "report", str(gz)]),
            ("html", [args.kerntime, "report", str(a), "--html", str(html), "-q"]),
            ("compare", [args.kerntime, "compare", str(a), str(b), "-q"]),
            ("compare4", [args.kerntime, "compare", *sides, "-q"])]
        if shard_paths:
            commands += [("merge", [args.kerntime, "merge", *shard_paths]),
                         ("merge_json", [args.kerntime, "merge", *shard_paths, "--json",
                                         str(work / f"merged_{states}.json"), "-q"])]
        for name, command in commands:
            row[name] = timed(command)
        row["html_mb"] = os.path.getsize(html) / 1e6
        rows.append(row)
    print("| states | KB per state (gzip) | `--help` | `report` | `report` of the .gz | "
          "`report --html` (page) | `compare A B` | `compare`, 4 files a side | "
          "`merge` of 16 shards | `merge --json` |")
    print("|---:|---:|---|---|---|---|---|---|---|---|")
    for r in rows:
        cell = lambda k: f"{r[k][0]:.2f} s, {r[k][1]:.0f} MiB" if k in r else "–"  # noqa: E731
        print(f"| {r['states']} | {r['kb_per_state']:.1f} ({r['gz_kb_per_state']:.1f}) | "
              f"{cell('help')} | {cell('report')} | {cell('report_gz')} | "
              f"{cell('html')} ({r['html_mb']:.1f} MB) | {cell('compare')} | "
              f"{cell('compare4')} | {cell('merge')} | {cell('merge_json')} |")


if __name__ == "__main__":
    main()
