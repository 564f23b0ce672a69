"""Turns the study's raw output (study.py's WORK folder) into accuracy.json and accuracy.md and
prints the summary table of the targets last.

    python3 report.py WORK OUT

Every number written comes from a file of WORK; a missing or failed input shows as such.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any, Dict, List, Optional

import kernel_names
import kerntime_json
import ncu_csv
import sample_stats

TARGETS = [
    ("ncu_1pct", "single-kernel cases ≥ 20 µs within 1 % of Nsight Compute"),
    ("spin", "spin kernels ≥ requested and within 0.5 µs of it"),
    ("kernel_lists", "multi-kernel cases list the same kernels as Nsight Compute"),
    ("trial_cv", "trial-to-trial CV ≤ 0.5 % for cases ≥ 20 µs"),
    ("wall", "wall time ≤ 1.5 × GPU time of (flush + op) × iterations + 50 ms"),
]


def read_text(path: Optional[str]) -> Optional[str]:
    if not path or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def load_json(path: Optional[str]) -> Optional[Any]:
    text = read_text(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def step_status(manifest: dict, name: Optional[str]) -> str:
    for step in manifest.get("steps", []):
        if step["name"] == name:
            if step.get("skipped"):
                return step["skipped"]
            if step.get("timed_out"):
                return f"timed out after {step.get('limit_s')} s"
            if step.get("error"):
                return step["error"]
            return f"exit {step.get('rc')}"
    return "did not run"


# ---------------------------------------------------------------- Nsight Compute


def ncu_for_state(entry: Optional[dict], manifest: dict, kerntime_summary: Optional[dict]) -> dict:
    """Nsight Compute's per-iteration kernel time of one `kerntime run` of a state."""
    if not entry:
        return {"error": "not profiled"}
    text = read_text(entry.get("csv"))
    if text is None:
        return {"error": "no ncu output (" + step_status(manifest, entry.get("step")) + ")"}
    try:
        launches = ncu_csv.read_launches(text)
        block = ncu_csv.after_last(launches, lambda l: kernel_names.is_blocking_kernel(l.name))
        kerntime_has_memset_kernel = any(
            kernel_names.looks_like_memset(k["name"])
            for k in (kerntime_summary or {}).get("kernels", []) if k["kind"] == "kernel")
        def drop(l):
            return kernel_names.is_flush_kernel(l.name) or (
                not kerntime_has_memset_kernel
                and kernel_names.looks_like_memset(kernel_names.full_name(l.name)))
        split = ncu_csv.split_iterations(block, manifest.get("ncu_repeats", 20), drop=drop)
    except (ncu_csv.NcuFormatError, ValueError) as e:
        return {"error": f"{e} ({step_status(manifest, entry.get('step'))})"}
    return ncu_summary(split)


def ncu_summary(split: ncu_csv.Split) -> dict:
    out: Dict[str, Any] = {"note": split.note, "iterations": len(split.iterations),
                           "kernels_per_iteration": split.kernels_per_iteration,
                           "calls_per_iteration": split.calls_per_iteration()}
    sums = split.sums_ns()
    if sums:
        out.update(sample_stats.summary(sums))
        out["per_iteration_us"] = [s / 1e3 for s in sums]
    return out


def ncu_for_torch(manifest: dict) -> Dict[str, dict]:
    entry = manifest.get("ncu_torch")
    if not entry:
        return {}
    text = read_text(entry.get("csv"))
    log = read_text(entry.get("log")) or ""
    match = re.search(r"^OPS (\{.*\})\s*$", log, re.MULTILINE)
    if text is None or not match:
        reason = "no ncu output" if text is None else "the script did not finish"
        return {"*": {"error": f"{reason} ({step_status(manifest, entry.get('step'))})"}}
    ops = json.loads(match.group(1))
    try:
        blocks = ncu_csv.between_markers(ncu_csv.read_launches(text))
    except ncu_csv.NcuFormatError as e:
        return {"*": {"error": str(e)}}
    if len(blocks) != len(ops["ops"]):
        return {"*": {"error": f"{len(blocks)} marked blocks for {len(ops['ops'])} ops"}}
    out = {}
    for op_id, block in zip(ops["ops"], blocks):
        try:
            out[op_id] = ncu_summary(ncu_csv.split_iterations(block, ops["calls"]))
        except ncu_csv.NcuFormatError as e:
            out[op_id] = {"error": str(e)}
    return out


# ---------------------------------------------------------------- cases


def load_cli(manifest: dict) -> Dict[str, Dict[str, dict]]:
    """state -> {"cupti": summary, "events": summary} for every CLI group."""
    states: Dict[str, Dict[str, dict]] = {}
    for group, files in manifest.get("cli", {}).items():
        for backend, entry in files.items():
            path = entry.get("json")
            if not path or not os.path.exists(path):
                states.setdefault(f"{group}/*", {})[backend] = {
                    "error": "no JSON (" + step_status(manifest, entry.get("step")) + ")"}
                continue
            try:
                runs = kerntime_json.load_runs(path)
            except (ValueError, KeyError, json.JSONDecodeError) as e:
                states.setdefault(f"{group}/*", {})[backend] = {"error": str(e)}
                continue
            for state, run in runs.items():
                summary = kerntime_json.summarise_run(run)
                summary["group"] = group
                states.setdefault(state, {})[backend] = summary
    return states


def method_view(summary: Optional[dict]) -> Optional[dict]:
    """The columns every method shares."""
    if not summary:
        return None
    if summary.get("error") or summary.get("status") not in (None, "ok"):
        return {"error": summary.get("error") or f"{summary.get('status')}: "
                                                  f"{summary.get('message')}"}
    keys = ("median_us", "p10_us", "p90_us", "min_us", "max_us", "stdev_us", "cv", "count")
    return {k: summary.get(k) for k in keys if k in summary}


def compare_kernels(kt: Optional[dict], ncu: Optional[dict]) -> Optional[dict]:
    if not kt or "kernels" not in kt or not ncu or "calls_per_iteration" not in ncu:
        return None
    if ncu.get("iterations", 0) == 0:
        return None
    same, level, rows = kernel_names.compare_kernel_lists(kerntime_json.kernel_calls(kt),
                                                          ncu["calls_per_iteration"])
    return {"same": same, "level": level, "rows": rows,
            "not_visible_to_ncu": kerntime_json.other_records(kt)}


def build_case(case_id: str, source: str, kt: Optional[dict], events: Optional[dict],
               ncu: Optional[dict], extra: Dict[str, Optional[dict]], description: str = "",
               requested_us: Optional[float] = None) -> dict:
    case: Dict[str, Any] = {"id": case_id, "source": source, "description": description,
                            "kerntime": kt, "methods": {}}
    case["methods"]["kerntime"] = method_view(kt)
    case["methods"]["kerntime_events"] = method_view(events)
    case["methods"]["ncu"] = method_view(ncu) if ncu and "median_us" in ncu else (
        {"error": ncu.get("error") or ncu.get("note") or "no kernel"} if ncu else None)
    for name, summary in extra.items():
        case["methods"][name] = method_view(summary)
    case["ncu"] = ncu
    if requested_us is not None:
        case["requested_us"] = requested_us
    kt_ok = kt and "median_us" in kt
    ncu_ok = ncu and "median_us" in ncu
    if kt_ok and ncu_ok:
        case["rel_diff_vs_ncu"] = sample_stats.relative_difference(kt["median_us"],
                                                                   ncu["median_us"])
        case["busy_rel_diff_vs_ncu"] = sample_stats.relative_difference(kt["busy_median_us"],
                                                                        ncu["median_us"])
    if kt_ok and events and "median_us" in events:
        case["events_rel_diff_vs_kerntime"] = sample_stats.relative_difference(
            events["median_us"], kt["median_us"])
    case["kernel_match"] = compare_kernels(kt, ncu)
    return case


def flush_gpu_us(torch_report: Optional[dict], flush_bytes: Optional[int]) -> Optional[float]:
    probe = (torch_report or {}).get("probes", {}).get("flush")
    if not probe or "median_us" not in probe or not flush_bytes:
        return None
    return probe["median_us"] * flush_bytes / probe["bytes"]  # a memset's time scales with bytes


# ---------------------------------------------------------------- checks


def evaluate(cases: List[dict], torch_report: Optional[dict]) -> List[dict]:
    checks: List[dict] = []

    def add(target: str, case: dict, value: Optional[float], passed: Optional[bool],
            text: str) -> None:
        checks.append({"target": target, "case": case["id"], "value": value, "pass": passed,
                       "text": text})

    for case in cases:
        kt, ncu = case.get("kerntime") or {}, case.get("ncu") or {}
        if "median_us" not in kt:
            continue
        kernels = [k for k in kt.get("kernels", [])]
        single = (len(kernels) == 1 and kernels[0]["kind"] == "kernel"
                  and abs(kernels[0]["calls_per_iteration"] - 1) < 1e-9)
        if ("median_us" in ncu and single and ncu.get("kernels_per_iteration") == 1
                and ncu["median_us"] >= 20):
            rel = case["rel_diff_vs_ncu"]
            add("ncu_1pct", case, rel, abs(rel) <= 0.01,
                f"kerntime {kt['median_us']:.3f} µs vs ncu {ncu['median_us']:.3f} µs: "
                f"{100 * rel:+.2f} %")
        if case.get("requested_us") is not None:
            req = case["requested_us"]
            over = kt["median_us"] - req
            add("spin", case, over, kt["min_us"] >= req and over <= 0.5,
                f"median {kt['median_us']:.3f} µs, min {kt['min_us']:.3f} µs for {req:g} µs "
                f"requested: {over:+.3f} µs")
        match = case.get("kernel_match")
        multi = len(kernels) > 1 or (ncu.get("kernels_per_iteration") or 0) > 1
        if match and multi:
            add("kernel_lists", case, None, match["same"],
                f"{'same' if match['same'] else 'different'} ({match['level']}); "
                f"{len(match['rows'])} kernel name(s)")
        if kt["median_us"] >= 20:
            cv = kt["cv_of_means"]
            add("trial_cv", case, cv, cv <= 0.005, f"{100 * cv:.3f} % over "
                f"{len(kt['trial_means_us'])} trials at {kt['median_us']:.1f} µs")
        if kt.get("wall_seconds") is not None:
            # kerntime's own record of its flush (memset + read-back) when it has one; else
            # a memset of the same size timed by the probe.
            flush = (kt["flush_median_ns"] / 1e3 if kt.get("flush_median_ns")
                     else flush_gpu_us(torch_report, kt.get("flush_bytes")))
            flush_used = flush if flush is not None else 0.0
            gpu_s = kt["iterations_total"] * (flush_used + kt["median_us"]) / 1e6
            limit = 1.5 * gpu_s + 0.050
            note = "" if flush is not None or not kt.get("flush_bytes") else \
                " (flush not measured: counted as 0, a stricter bound)"
            case["wall"] = {"wall_s": kt["wall_seconds"], "gpu_s": gpu_s, "limit_s": limit,
                            "flush_us": flush, "iterations": kt["iterations_total"]}
            add("wall", case, kt["wall_seconds"] / limit, kt["wall_seconds"] <= limit,
                f"{1e3 * kt['wall_seconds']:.1f} ms wall vs {1e3 * gpu_s:.1f} ms GPU "
                f"(limit {1e3 * limit:.1f} ms){note}")
    return checks


# ---------------------------------------------------------------- other sections


def repeatability(manifest: dict) -> List[dict]:
    medians: Dict[str, List[Optional[float]]] = {}
    for path in manifest.get("repeat_runs", []):
        try:
            runs = kerntime_json.load_runs(path) if os.path.exists(path) else {}
        except (ValueError, json.JSONDecodeError):
            runs = {}
        seen = set()
        for state, run in runs.items():
            s = kerntime_json.summarise_run(run)
            medians.setdefault(state, []).append(s.get("median_us"))
            seen.add(state)
        for state in medians:
            if state not in seen:
                medians[state].append(None)
    out = []
    for state, values in medians.items():
        present = [v for v in values if v is not None]
        row: Dict[str, Any] = {"state": state, "medians_us": values, "runs": len(present)}
        if len(present) >= 2:
            s = sample_stats.summary([v * 1e3 for v in present])
            row.update(spread=(max(present) - min(present)) / s["median_us"], cv=s["cv"],
                       median_us=s["median_us"])
        out.append(row)
    return out


def python_vs_cpp(cli: Dict[str, Dict[str, dict]], torch_report: Optional[dict]) -> List[dict]:
    rows = []
    if not torch_report:
        return rows
    probe = torch_report.get("probes", {}).get("memset_256MiB", {})
    if "cpp" in probe:
        rows.append({"what": "256 MiB memset, same op: C++ work function vs Python callable",
                     "cpp_us": probe["cpp"]["median_us"], "python_us": probe["python"]["median_us"],
                     "cpp_wall_s": probe["cpp"]["wall_seconds"],
                     "python_wall_s": probe["python"]["wall_seconds"]})
    elif probe:
        rows.append({"what": "256 MiB memset probe", "error": probe.get("error")})
    for op in torch_report.get("ops", []):
        state = op.get("cpp_counterpart")
        kt = op["methods"].get("kerntime") or {}
        cpp = (cli.get(state) or {}).get("cupti") or {}
        if state and "median_us" in kt and "median_us" in cpp:
            rows.append({"what": f"{op['description']} (kerntime.bench) vs `{state}` (C++ suite)",
                         "cpp_us": cpp["median_us"], "python_us": kt["median_us"],
                         "cpp_wall_s": cpp.get("wall_seconds"),
                         "python_wall_s": kt.get("wall_seconds")})
    for row in rows:
        if "cpp_us" in row:
            row["rel_diff"] = sample_stats.relative_difference(row["python_us"], row["cpp_us"])
    return rows


def perturbation(manifest: dict) -> List[dict]:
    text = read_text(manifest.get("perturbation_log")) or ""
    rows = []
    for line in text.splitlines():
        if line.startswith("RESULT perturbation "):
            fields = dict(re.findall(r"(\w+)=(\S+)", line))
            rows.append(fields)
    return rows


# ---------------------------------------------------------------- markdown


def us(value: Optional[float]) -> str:
    if value is None:
        return "–"
    return f"{value / 1e3:.3f} ms" if value >= 1000 else f"{value:.3f} µs"


def pct(value: Optional[float], digits: int = 2) -> str:
    return "–" if value is None else f"{100 * value:+.{digits}f} %"


def plain_pct(value: Optional[float]) -> str:
    return "–" if value is None else f"{100 * value:.3f} %"


def cell(method: Optional[dict]) -> str:
    if not method:
        return "–"
    if method.get("error"):
        return "error¹"
    text = us(method.get("median_us"))
    if method.get("p10_us") is not None and method.get("p90_us") is not None:
        text += f" [{method['p10_us']:.2f}–{method['p90_us']:.2f}]"
    return text


def esc(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


METHOD_COLUMNS = [("kerntime", "kerntime (CUPTI)"), ("kerntime_events", "kerntime events"),
                  ("ncu", "Nsight Compute Σ kernels"), ("torch_events", "CUDA-event loop"),
                  ("do_bench", "do_bench")]


def markdown(data: dict) -> str:
    out: List[str] = []
    w = out.append
    w("# kerntime accuracy study: results\n")
    w(f"Run {data['date']} on `{esc(data['host'])}`; build `{esc(data['build'])}`; "
      f"{data['seconds_measuring']} s of measurement. Every number below comes from this run "
      "(raw files in raw.tar.gz).\n")
    if data.get("device_text"):
        w("```\n" + data["device_text"].strip() + "\n```\n")
    if data.get("versions"):
        w("Python side: " + ", ".join(f"{k} {v}" for k, v in data["versions"].items()) + "\n")

    w("## Targets\n")
    w("| target | evaluated | pass | fail | worst case |")
    w("|---|---|---|---|---|")
    for row in data["target_summary"]:
        w(f"| {row['text']} | {row['evaluated']} | {row['passed']} | {row['failed']} | "
          f"{esc(row['worst'] or '–')} |")
    w("")

    w("## Per case: medians [p10–p90 µs]\n")
    w("kerntime: default protocol (10 warm-up, 5 × 50, cold L2, 3 input sets), headline = median "
      "span. Nsight Compute: the sum of the iteration's kernels, each replayed alone on flushed "
      "caches (`--cache-control all --clock-control none`), median over 20 calls. "
      "¹ see the errors section.\n")
    w("| case | " + " | ".join(title for _, title in METHOD_COLUMNS)
      + " | kerntime vs ncu | busy vs ncu | events vs kerntime | kernels vs ncu | trial CV |")
    w("|---|" + "---|" * (len(METHOD_COLUMNS) + 5))
    for case in data["cases"]:
        kt = case.get("kerntime") or {}
        match = case.get("kernel_match")
        match_text = "–" if not match else ("same" if match["same"] else "**differ**")
        if match and match["same"] and match["level"] != "full name":
            match_text += " (by base name)"
        cv = kt.get("cv_of_means")
        w(f"| `{esc(case['id'])}` | "
          + " | ".join(cell(case["methods"].get(key)) for key, _ in METHOD_COLUMNS)
          + f" | {pct(case.get('rel_diff_vs_ncu'))} | {pct(case.get('busy_rel_diff_vs_ncu'))}"
          f" | {pct(case.get('events_rel_diff_vs_kerntime'))} | {match_text}"
          f" | {plain_pct(cv)} |")
    w("")

    w("## Kernel lists (calls per iteration)\n")
    for case in data["cases"]:
        match = case.get("kernel_match")
        kt = case.get("kerntime") or {}
        if not match and not kt.get("kernels"):
            continue
        w(f"**`{esc(case['id'])}`**" + (f": {match['level']}" if match else
                                         ": no Nsight Compute list"))
        w("")
        w("| kernel | kerntime | Nsight Compute |")
        w("|---|---|---|")
        rows = match["rows"] if match else [
            {"name": k["name"], "kerntime_calls": k["calls_per_iteration"], "ncu_calls": None}
            for k in kt.get("kernels", []) if k["kind"] == "kernel"]
        for row in rows:
            fmt = lambda v: "–" if v is None else f"{v:g}"  # noqa: E731
            w(f"| `{esc(kernel_names.short_name(row['name'], 90))}` | {fmt(row['kerntime_calls'])}"
              f" | {fmt(row['ncu_calls'])} |")
        others = (match or {}).get("not_visible_to_ncu") or kerntime_json.other_records(kt)
        if others:
            w(f"\nNot kernels (Nsight Compute does not profile them): {esc(', '.join(others))}")
        w("")

    w("## Checks\n")
    w("| target | case | pass | detail |")
    w("|---|---|---|---|")
    for check in data["checks"]:
        w(f"| {check['target']} | `{esc(check['case'])}` | "
          f"{'pass' if check['pass'] else '**FAIL**'} | {esc(check['text'])} |")
    w("")

    w("## Repeatability: 5 whole `kerntime run`s\n")
    w("| state | medians of the runs | spread (max − min) / median | CV of the run medians |")
    w("|---|---|---|---|")
    for row in data["repeatability"]:
        medians = ", ".join("–" if m is None else f"{m:.3f}" for m in row["medians_us"])
        w(f"| `{esc(row['state'])}` | {medians} µs | "
          f"{plain_pct(row.get('spread'))} | {plain_pct(row.get('cv'))} |")
    w("")

    w("## Wall time against GPU time\n")
    w("GPU time = (flush + median) × calls to the work (warm-up + discarded + measured); the "
      "flush time is the 2 × L2 memset timed by kerntime (the Python probe). `wall_seconds` of "
      "the kerntime JSON covers the whole measurement, warm-up included, not the benchmark's "
      "input preparation.\n")
    w("| case | calls | flush | wall | GPU | limit 1.5 × GPU + 50 ms |")
    w("|---|---|---|---|---|---|")
    for case in data["cases"]:
        wall = case.get("wall")
        if wall:
            w(f"| `{esc(case['id'])}` | {wall['iterations']} | {us(wall['flush_us'])} | "
              f"{1e3 * wall['wall_s']:.1f} ms | {1e3 * wall['gpu_s']:.1f} ms | "
              f"{1e3 * wall['limit_s']:.1f} ms |")
    w("")

    w("## Python path against the C++ path\n")
    w("| work | C++ | Python | difference | wall C++ | wall Python |")
    w("|---|---|---|---|---|---|")
    for row in data["python_vs_cpp"]:
        if "error" in row:
            w(f"| {esc(row['what'])} | error: {esc(row['error'])} | | | | |")
            continue
        wall = lambda v: "–" if v is None else f"{1e3 * v:.1f} ms"  # noqa: E731
        w(f"| {esc(row['what'])} | {us(row['cpp_us'])} | {us(row['python_us'])} | "
          f"{pct(row['rel_diff'])} | {wall(row['cpp_wall_s'])} | {wall(row['python_wall_s'])} |")
    w("")

    w("## Perturbation (bench_perturbation)\n")
    if data["perturbation"]:
        keys = list(data["perturbation"][0].keys())
        w("| " + " | ".join(keys) + " |")
        w("|" + "---|" * len(keys))
        for row in data["perturbation"]:
            w("| " + " | ".join(esc(row.get(k, "")) for k in keys) + " |")
    else:
        w("Not measured (bench_perturbation missing or failed).")
    w("")

    w("## Steps, errors and warnings\n")
    w("| step | status | seconds |")
    w("|---|---|---|")
    for step in data["steps"]:
        status = step.get("skipped") or ("timed out" if step.get("timed_out") else
                                         step.get("error") or f"exit {step.get('rc')}")
        w(f"| {esc(step['name'])} | {esc(status)} | {step.get('seconds', 0)} |")
    w("")
    for case in data["cases"]:
        for name, method in case["methods"].items():
            if method and method.get("error"):
                w(f"- `{esc(case['id'])}` {name}: {esc(method['error'])}")
        for warning in (case.get("kerntime") or {}).get("warnings", []):
            w(f"- `{esc(case['id'])}` warning: {esc(warning)}")
        note = (case.get("ncu") or {}).get("note")
        if note:
            w(f"- `{esc(case['id'])}` ncu: {esc(note)}")
    for error in data.get("errors", []):
        w(f"- {esc(error)}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- main


def summarise_targets(checks: List[dict]) -> List[dict]:
    rows = []
    for key, text in TARGETS:
        mine = [c for c in checks if c["target"] == key]
        failed = [c for c in mine if not c["pass"]]
        worst = None
        if failed:
            worst = f"{failed[0]['case']}: {failed[0]['text']}"
        elif mine and key != "kernel_lists":
            top = max(mine, key=lambda c: abs(c["value"]) if c["value"] is not None else 0)
            worst = f"{top['case']}: {top['text']}"
        rows.append({"target": key, "text": text, "evaluated": len(mine),
                     "passed": len(mine) - len(failed), "failed": len(failed), "worst": worst})
    return rows


def build(work: str) -> dict:
    manifest = load_json(os.path.join(work, "manifest.json")) or {}
    cli = load_cli(manifest)
    torch_report = load_json(manifest.get("torch_cases"))
    ncu_torch = ncu_for_torch(manifest)
    cases: List[dict] = []
    errors: List[str] = []
    for state, backends in cli.items():
        if state.endswith("/*"):
            for backend, summary in backends.items():
                errors.append(f"{state} ({backend}): {summary.get('error')}")
            continue
        kt = backends.get("cupti")
        ncu = ncu_for_state(manifest.get("ncu", {}).get(state), manifest, kt) \
            if state in manifest.get("ncu", {}) else None
        requested = None
        m = re.match(r"spin/duration_us=(\d+)$", state)
        if m:
            requested = float(m.group(1))
        cases.append(build_case(state, "kerntime CLI (C++ suite)", kt, backends.get("events"),
                                ncu, {}, requested_us=requested))
    if torch_report:
        errors += [f"python: {e}" for e in torch_report.get("errors", [])]
        for op in torch_report.get("ops", []):
            methods = op["methods"]
            ncu = ncu_torch.get(op["id"]) or ncu_torch.get("*")
            cases.append(build_case(op["id"], "Python (kerntime.bench)", methods.get("kerntime"),
                                    methods.get("kerntime_events"), ncu,
                                    {"torch_events": methods.get("torch_events"),
                                     "do_bench": methods.get("do_bench")},
                                    description=op["description"]))
    else:
        errors.append("python cases: no output (" + step_status(manifest, "python cases") + ")")
    checks = evaluate(cases, torch_report)
    device_text = read_text(manifest.get("device_log")) or ""
    return {
        "schema": "kerntime-accuracy/1",
        "date": manifest.get("date"), "host": manifest.get("host"),
        "build": manifest.get("build"), "seconds_measuring": manifest.get("seconds"),
        "device_text": device_text,
        "kerntime_info": read_text(manifest.get("info_log")),
        "versions": (torch_report or {}).get("versions", {}),
        "flush_probe": (torch_report or {}).get("probes", {}).get("flush"),
        "cases": cases, "checks": checks, "target_summary": summarise_targets(checks),
        "repeatability": repeatability(manifest),
        "python_vs_cpp": python_vs_cpp(cli, torch_report),
        "perturbation": perturbation(manifest),
        "steps": manifest.get("steps", []), "errors": errors,
    }


def summary_table(data: dict) -> str:
    lines = ["", "ACCURACY SUMMARY (details: accuracy.md)",
             f"{'target':<58} {'n':>3} {'pass':>4} {'fail':>4}"]
    for row in data["target_summary"]:
        lines.append(f"{row['text'][:58]:<58} {row['evaluated']:>3} {row['passed']:>4} "
                     f"{row['failed']:>4}")
        if row["failed"]:
            lines.append(f"    first failure: {row['worst'][:110]}")
    failed_steps = [s["name"] for s in data["steps"] if s.get("rc") != 0]
    if failed_steps:
        lines.append("steps not ok: " + ", ".join(failed_steps)[:200])
    return "\n".join(lines)


def main() -> int:
    work, out = sys.argv[1], sys.argv[2]
    data = build(work)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "accuracy.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    with open(os.path.join(out, "accuracy.md"), "w", encoding="utf-8") as f:
        f.write(markdown(data))
    print(summary_table(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
