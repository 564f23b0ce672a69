"""Nsight Compute's `--csv --print-units base` output for `--metrics gpu__time_duration.sum`,
read into launches and split into iterations.

Nsight Compute profiles kernels only: memsets and memcpys (kerntime's flush, a device copy) never
appear. It serialises every kernel and, with `--cache-control all`, flushes the caches before each
one, so every kernel is measured alone on a cold cache.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

import kernel_names

METRIC = "gpu__time_duration.sum"

# Units Nsight Compute prints for durations, base (`nsecond`) or scaled.
_NS_PER_UNIT = {"": 1.0, "ns": 1.0, "nsecond": 1.0, "nsec": 1.0, "us": 1e3, "usecond": 1e3,
                "usec": 1e3, "ms": 1e6, "msecond": 1e6, "msec": 1e6, "s": 1e9, "second": 1e9}


@dataclass(frozen=True)
class Launch:
    id: int
    name: str  # as printed (mangled with --print-kernel-base mangled)
    duration_ns: float


class NcuFormatError(ValueError):
    pass


def _rows(text: str):
    """The table's rows. Lines Nsight Compute writes around the table (`==PROF==`,
    `==WARNING==`, the application's own output when it shares the file) are skipped; the table
    starts at its `"ID"` header."""
    lines = [line for line in text.splitlines() if not line.startswith("==")]
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    reader = csv.DictReader(io.StringIO("\n".join(lines[start:])))
    needed = {"ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"}
    if not needed.issubset(reader.fieldnames or []):
        raise NcuFormatError(f"ncu CSV lacks columns {sorted(needed - set(reader.fieldnames or []))}")
    return [row for row in reader if row.get("ID") not in (None, "", "ID")]


def _number(row) -> Optional[float]:
    raw = (row.get("Metric Value") or "").replace(",", "").strip()
    try:
        return float(raw)
    except ValueError:
        return None  # "n/a": the kernel could not be profiled


def read_metric(text: str, metric: str) -> List[float]:
    """Every profiled kernel's value of `metric`, as printed (base units), in launch order."""
    values = [(int(row["ID"]), _number(row)) for row in _rows(text)
              if row.get("Metric Name") == metric]
    return [value for _, value in sorted(values) if value is not None]


def read_launches(text: str) -> List[Launch]:
    """Every profiled kernel with its gpu__time_duration.sum, in launch order."""
    launches: List[Launch] = []
    for row in _rows(text):
        if row.get("Metric Name") != METRIC:
            continue
        unit = (row.get("Metric Unit") or "").strip()
        if unit not in _NS_PER_UNIT:
            raise NcuFormatError(f"unknown duration unit {unit!r}")
        value = _number(row)
        if value is None:
            continue  # counted by the caller's split
        launches.append(Launch(int(row["ID"]), row["Kernel Name"], value * _NS_PER_UNIT[unit]))
    launches.sort(key=lambda launch: launch.id)
    return launches


@dataclass
class Split:
    """Per-iteration kernels of one measured block."""

    iterations: List[List[Launch]]
    note: str = ""

    @property
    def kernels_per_iteration(self) -> int:
        return len(self.iterations[0]) if self.iterations else 0

    def sums_ns(self) -> List[float]:
        return [sum(launch.duration_ns for launch in it) for it in self.iterations]

    def calls_per_iteration(self) -> Dict[str, float]:
        counts: Dict[str, float] = {}
        for it in self.iterations:
            for launch in it:
                counts[launch.name] = counts.get(launch.name, 0.0) + 1.0
        n = max(len(self.iterations), 1)
        return {name: calls / n for name, calls in counts.items()}


def split_iterations(block: Sequence[Launch], iterations: int, drop_first: int = 0,
                     drop: Optional[Callable[[Launch], bool]] = None) -> Split:
    """Cut a block of launches holding `iterations` equal iterations into them.

    `drop` removes launches that are not the work's (e.g. a flush memset that a driver ran as a
    kernel); `drop_first` iterations are discarded after the split (a warm-up call)."""
    kept = [launch for launch in block if not (drop and drop(launch))]
    note = ""
    if drop and len(kept) != len(block):
        note = f"dropped {len(block) - len(kept)} launch(es) that are not the work's; "
    if iterations <= 0:
        raise NcuFormatError("no iterations to split into")
    if not kept:
        return Split([], note + "Nsight Compute saw no kernel (memsets and memcpys are not kernels)")
    if len(kept) % iterations:
        raise NcuFormatError(f"{len(kept)} kernels do not split into {iterations} iterations")
    k = len(kept) // iterations
    chunks = [list(kept[i * k:(i + 1) * k]) for i in range(iterations)]
    pattern = [kernel_names.base_name(launch.name) for launch in chunks[0]]
    odd = [i for i, chunk in enumerate(chunks)
           if [kernel_names.base_name(launch.name) for launch in chunk] != pattern]
    if odd:
        note += f"kernel order differs from the first iteration in {len(odd)} iteration(s); "
    return Split(chunks[drop_first:], note.strip("; "))


def after_last(launches: Sequence[Launch], is_marker: Callable[[Launch], bool]) -> List[Launch]:
    """The launches after the last marker (kerntime's blocking kernel opens each trial)."""
    index = max((i for i, launch in enumerate(launches) if is_marker(launch)), default=None)
    if index is None:
        raise NcuFormatError("marker kernel not found")
    return list(launches[index + 1:])


def between_markers(launches: Sequence[Launch]) -> List[List[Launch]]:
    """Blocks separated by a marker kernel, the marker being the first launch's kernel
    (torch_for_ncu.py launches it before the first op and after each op)."""
    if not launches:
        return []
    marker = launches[0].name
    blocks: List[List[Launch]] = []
    current: Optional[List[Launch]] = None
    for launch in launches:
        if launch.name == marker:
            if current is not None:
                blocks.append(current)
            current = []
        elif current is not None:
            current.append(launch)
    return blocks  # what follows the last marker is not a closed block
