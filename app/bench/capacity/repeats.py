"""Summaries of one figure measured in repeated runs: mean, confidence interval, spread."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

# Two-sided Student t quantiles for 95 % confidence by degrees of freedom (1..30); beyond 30 the
# normal 1.96 is within 4 %. A table keeps scipy out of the dependencies.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(dof: int) -> float:
    if dof < 1:
        return math.inf
    return _T95[dof - 1] if dof <= len(_T95) else 1.96


@dataclass(frozen=True)
class Repeated:
    """n values of one figure: mean, the 95 % t-interval of the mean, and the coefficient of
    variation (sample std / mean). With one value the interval is that value and cv is None."""

    n: int
    mean: float
    low: float
    high: float
    cv: float | None

    @classmethod
    def of(cls, values: Sequence[float]) -> Repeated:
        data = [float(v) for v in values]
        if not data:
            raise ValueError("no values")
        mean = statistics.fmean(data)
        if len(data) == 1:
            return cls(1, mean, mean, mean, None)
        std = statistics.stdev(data)
        half = t95(len(data) - 1) * std / math.sqrt(len(data))
        return cls(len(data), mean, mean - half, mean + half, std / mean if mean else None)
