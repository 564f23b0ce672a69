"""kerntime.load(): the results of a kerntime JSON file as bench() returns them.

A file written by ``kerntime run --json``, ``kerntime merge --json`` or the pytest plugin's
``--kerntime-json`` is read by the C++ reader every command uses (files of schema version 1 from earlier kerntime versions included)
and each measured state becomes a Result, with the work it declared, so ``latency_ms``,
``kernels``, ``samples``, ``tflops`` and ``speed_of_light`` read as after a bench() call.
"""

from __future__ import annotations

import os
from typing import Dict, Union

from . import _kerntime
from .errors import InvalidArgument
from .result import Result


def load(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Result]:
    """The measured states of the kerntime JSON at ``path``, by state name in the file's order
    (``"gemm_bf16/size=4096"``: Result). States that failed or were skipped have no result and
    are left out (``kerntime report FILE`` shows them with their reasons). Raises
    InvalidArgument naming the file and the problem when it is not a kerntime result set."""
    if not hasattr(_kerntime, "read_result_set"):
        why = getattr(_kerntime, "results_unreadable", None) or _kerntime.compare_unavailable
        raise InvalidArgument(f"kerntime.load: {why}")
    result_set = _kerntime.read_result_set(os.fspath(path))
    return {run.state_name: Result(run.result, flops=run.flops, bytes=run.bytes,
                                   precision=run.flops_precision)
            for run in result_set.runs if run.result is not None}
