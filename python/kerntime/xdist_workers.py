"""The pytest plugin under pytest-xdist (``pytest -n N``): each worker measures on its own GPU,
and hands its results to the controller, which writes the session's one report.

Worker ``gwK`` measures on device K modulo the visible devices: when it starts, that device is
made PyTorch's current device, which is the one kerntime.bench measures on (kerntime.streams).
Without PyTorch, or with a single device, nothing is chosen and every worker measures on the
current device. At the end of its session a worker renders its results as kerntime JSON into
``config.workeroutput``; the controller reads each worker's back with the C++ reader when the
worker goes down, and orders them as pytest collected the tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from . import _kerntime, session_report
from .session_report import RecordedResult

OUTPUT_KEY = "kerntime"  # the plugin's entry in a worker's config.workeroutput


def reader_unavailable() -> str:
    """Why the controller cannot read the workers' results back, or "" where it can."""
    if hasattr(_kerntime, "parse_result_set"):
        return ""
    return ("gathering the pytest-xdist workers' results reads their kerntime JSON back, and this "
            "build of kerntime has no JSON reader: "
            + (getattr(_kerntime, "results_unreadable", None)
               or getattr(_kerntime, "compare_unavailable", "rebuild kerntime with compare")))


def worker_index(worker_id: str) -> int:
    """K of pytest-xdist's worker id ``gwK``."""
    match = re.fullmatch(r"gw(\d+)", worker_id)
    if match is None:
        raise ValueError(f"not a pytest-xdist worker id: {worker_id!r} (expected gw0, gw1, ...)")
    return int(match.group(1))


def device_for_worker(worker_id: str, device_count: int) -> int:
    """The device worker ``gwK`` measures on: K modulo the visible devices."""
    if device_count < 1:
        raise ValueError(f"no device to choose from (device_count {device_count})")
    return worker_index(worker_id) % device_count


def choose_device(worker_id: str) -> Optional[int]:
    """Makes the worker's device PyTorch's current one and returns it; None, choosing nothing,
    without PyTorch or with fewer than two devices."""
    try:
        import torch  # only here: a worker without PyTorch is left as it is
    except ImportError:
        return None
    count = torch.cuda.device_count()
    if count < 2:
        return None
    device = device_for_worker(worker_id, count)
    torch.cuda.set_device(device)
    return device


def worker_output(recorded: Sequence[RecordedResult], device: Optional[int]) -> Dict[str, Any]:
    """What a worker hands the controller (plain str/int/None, as execnet carries them): its
    results as kerntime JSON, and the device it chose."""
    return {"results": session_report.render_json(recorded, ""), "device": device}


@dataclass
class Gathered:
    """The controller's view of its workers: which started, what each handed back."""

    test_ids: List[str] = field(default_factory=list)  # as the workers collected them
    started: List[str] = field(default_factory=list)  # worker ids, in the order they started
    # The workers that handed back, each with the device it chose (None: it chose none).
    handed_back: Dict[str, Optional[int]] = field(default_factory=dict)
    recorded: List[RecordedResult] = field(default_factory=list)  # in the order handed back

    def collected(self, test_ids: Sequence[str]) -> None:
        # Every worker collects the same tests (pytest-xdist checks it): the first list is kept.
        if not self.test_ids:
            self.test_ids = list(test_ids)

    def start(self, worker_id: str) -> None:
        self.started.append(worker_id)

    def hand_back(self, worker_id: str, workeroutput: Optional[Dict[str, Any]]) -> None:
        """A worker went down; a worker that crashed, or that the session stopped before it
        finished, has no output and stays missing()."""
        output = (workeroutput or {}).get(OUTPUT_KEY)
        if output is None:
            return
        self.handed_back[worker_id] = output["device"]
        self.recorded.extend(session_report.read_json(
            output["results"], f"the results of pytest-xdist worker {worker_id}"))

    def results(self) -> List[RecordedResult]:
        """Every worker's results, tests in the order pytest collected them."""
        return session_report.in_test_order(self.recorded, self.test_ids)

    def missing(self) -> List[str]:
        """The workers that started but handed nothing back: their results are not reported."""
        return [worker for worker in self.started if worker not in self.handed_back]

    def device_line(self) -> str:
        """"gw0 on GPU 0, gw1 on GPU 1" for the workers that chose a device, else ""."""
        chosen = sorted(((worker_index(w), w, d) for w, d in self.handed_back.items()
                         if d is not None))
        return ", ".join(f"{worker} on GPU {device}" for _, worker, device in chosen)
