"""The parts of a kerntime JSON report (docs/report-formats.md, schema versions 1 and 2: they
differ only in the trace, which this study does not read) this study uses."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import sample_stats


def load_runs(path: str) -> Dict[str, dict]:
    """state name -> run object of the report."""
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    if report.get("json_schema_version") not in (1, 2):
        raise ValueError(f"{path}: json_schema_version {report.get('json_schema_version')}, "
                         "this study reads versions 1 and 2")
    return {run["state_name"]: run for run in report.get("runs", [])}


def summarise_result(result: Dict[str, Any]) -> Dict[str, Any]:
    """A kerntime `result` object (also what kerntime.Result.to_dict() returns) in µs."""
    statistics = result["statistics"]
    headline = statistics["headline"]
    protocol = result["protocol"]
    trials = result.get("trials", [])
    measured = sum(len(t.get("span_ns", [])) for t in trials)
    discarded = 1 if result.get("timing_backend") == "cupti" else 0
    out = {
        "backend": result.get("timing_backend"),
        "backend_reason": result.get("backend_reason"),
        "median_us": result["latency_ns"] / 1e3,
        "p10_us": headline["p10_ns"] / 1e3,
        "p90_us": headline["p90_ns"] / 1e3,
        "min_us": headline["min_ns"] / 1e3,
        "max_us": headline["max_ns"] / 1e3,
        "stdev_us": headline["stdev_ns"] / 1e3,
        "cv": headline["cv"],
        "count": headline["count"],
        "busy_median_us": statistics["busy"]["median_ns"] / 1e3,
        "span_median_us": statistics["span"]["median_ns"] / 1e3,
        "trial_means_us": [m / 1e3 for m in result["trial_statistics"]["means_ns"]],
        "cv_of_means": result["trial_statistics"]["cv_of_means"],
        "wall_seconds": result.get("wall_seconds"),
        "flush_bytes": result.get("flush_bytes"),
        "flush_median_ns": result.get("flush_median_ns"),
        "protocol": protocol,
        # calls to the work: warmup, CUPTI's discarded first iteration, the measured ones
        "iterations_total": protocol["warmup"] + discarded + measured,
        "kernels": [{"name": k["name"], "kind": k["kind"],
                     "calls_per_iteration": k["calls_per_iteration"],
                     "mean_us": k["mean_ns"] / 1e3} for k in result.get("kernels", [])],
        "warnings": list(result.get("warnings", [])),
    }
    throttled = [t for t in trials if t.get("throttled")]
    out["throttled_trials"] = len(throttled)
    return out


def summarise_run(run: Dict[str, Any]) -> Dict[str, Any]:
    """One state: its status, and its result summary when it was measured."""
    out: Dict[str, Any] = {"status": run.get("status"), "message": run.get("message"),
                           "error_kind": run.get("error_kind")}
    if run.get("status") == "ok" and run.get("result"):
        out.update(summarise_result(run["result"]))
    return out


def kernel_calls(summary: Dict[str, Any], kind: str = "kernel") -> Dict[str, float]:
    """{name: calls per iteration} of one kind of GPU record (Nsight Compute sees kernels only)."""
    return {k["name"]: k["calls_per_iteration"] for k in summary.get("kernels", [])
            if k["kind"] == kind}


def other_records(summary: Dict[str, Any]) -> List[str]:
    return [f"{k['name']} ×{k['calls_per_iteration']:g}" for k in summary.get("kernels", [])
            if k["kind"] != "kernel"]


def median_of(values: List[float]) -> Optional[float]:
    return sample_stats.percentile(values, 0.5) if values else None
