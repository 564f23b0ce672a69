"""The return conventions of do_bench-style functions, over kerntime's per-iteration times.

Triton's ``do_bench`` returns one number chosen by ``return_mode`` ("min", "max", "mean",
"median"; "all": the list), or, when ``quantiles`` is given, those quantiles of the iteration
times (linear interpolation between order statistics; one quantile alone as a number). TileLang's
``do_bench`` does the same without "all". Here the same rules, pure functions of a list.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, List, Optional, Sequence, Union

from ..errors import InvalidArgument

RETURN_MODES = ("min", "max", "mean", "median", "all")


def check_return_mode(return_mode: Any, allowed: Sequence[str] = RETURN_MODES) -> None:
    if return_mode not in allowed:
        raise InvalidArgument(f"return_mode must be one of {', '.join(map(repr, allowed))} "
                              f"(got {return_mode!r})")


def check_quantiles(quantiles: Any) -> Optional[List[float]]:
    """`quantiles` as a list of fractions in [0, 1], or None."""
    if quantiles is None:
        return None
    if isinstance(quantiles, (str, bytes)) or not hasattr(quantiles, "__iter__"):
        raise InvalidArgument(f"quantiles takes a list of fractions in [0, 1] (got {quantiles!r}); "
                              "e.g. quantiles=[0.5, 0.2, 0.8]")
    values = list(quantiles)
    for q in values:
        if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q <= 1:
            raise InvalidArgument(f"quantiles must be fractions in [0, 1] (got {q!r} in "
                                  f"{values!r}); e.g. quantiles=[0.5, 0.2, 0.8]")
    if not values:
        raise InvalidArgument("quantiles is empty; pass None for return_mode's value, or e.g. "
                              "quantiles=[0.5, 0.2, 0.8]")
    return [float(q) for q in values]


def quantile(sorted_times: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, linear between the two nearest order statistics."""
    point = q * (len(sorted_times) - 1)
    lower, upper = math.floor(point), math.ceil(point)
    fraction = point - lower
    return (1 - fraction) * sorted_times[lower] + fraction * sorted_times[upper]


def summarise(times_ms: Sequence[float], quantiles: Optional[List[float]],
              return_mode: str) -> Union[float, List[float]]:
    """What do_bench returns for these iteration times (see the module's docstring)."""
    if not times_ms:
        raise InvalidArgument("no iteration was measured; measure at least one")
    if quantiles is not None:
        ordered = sorted(times_ms)
        values = [quantile(ordered, q) for q in quantiles]
        return values[0] if len(values) == 1 else values
    if return_mode == "all":
        return list(times_ms)
    if return_mode == "min":
        return min(times_ms)
    if return_mode == "max":
        return max(times_ms)
    if return_mode == "median":
        return statistics.median(times_ms)
    return statistics.mean(times_ms)
