"""Order statistics of a sample, as docs/statistics.md defines them (NumPy's default percentile)."""

from __future__ import annotations

import math
from typing import Dict, Optional, Sequence


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        raise ValueError("percentile of an empty sample")
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (rank - low) * (ordered[high] - ordered[low])


def summary(values_ns: Sequence[float]) -> Optional[Dict[str, float]]:
    """median, p10, p90, min, max, mean, stdev (sample) and cv, times in µs."""
    values = [float(v) for v in values_ns]
    if not values:
        return None
    n = len(values)
    mean = sum(values) / n
    stdev = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return {
        "count": n,
        "median_us": percentile(values, 0.5) / 1e3,
        "p10_us": percentile(values, 0.1) / 1e3,
        "p90_us": percentile(values, 0.9) / 1e3,
        "min_us": min(values) / 1e3,
        "max_us": max(values) / 1e3,
        "mean_us": mean / 1e3,
        "stdev_us": stdev / 1e3,
        "cv": stdev / mean if mean else 0.0,
    }


def relative_difference(value: Optional[float], reference: Optional[float]) -> Optional[float]:
    """(value - reference) / reference, or None when either is missing or the reference is 0."""
    if value is None or reference is None or reference == 0:
        return None
    return (value - reference) / reference
