"""The interval of a change measured over repeated runs: Welch's t interval of the difference
of the runs' means (each run's figure as read from its file)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


def _t_cdf(x: float, dof: float) -> float:
    """Student t CDF for x >= 0 by Simpson's rule on the density (no scipy)."""
    steps = 2000
    h = x / steps
    c = math.exp(math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2)) / math.sqrt(dof * math.pi)

    def pdf(t: float) -> float:
        return float(c * (1 + t * t / dof) ** (-(dof + 1) / 2))

    area = pdf(0) + pdf(x) + sum((4 if k % 2 else 2) * pdf(k * h) for k in range(1, steps))
    return 0.5 + area * h / 3


def t_quantile(p: float, dof: float) -> float:
    """The upper quantile t with P(T <= t) = p, for 0.5 < p < 1, by bisection."""
    low, high = 0.0, 1.0
    while _t_cdf(high, dof) < p and high < 1e6:
        high *= 2
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if _t_cdf(mid, dof) < p else (low, mid)
    return (low + high) / 2


def welch_interval(
    base: Sequence[float], cand: Sequence[float], alpha: float
) -> tuple[float, float, float] | None:
    """(difference of means, low, high) at level 1 - alpha; None with fewer than 2 runs a side."""
    if len(base) < 2 or len(cand) < 2:
        return None
    va, vb = statistics.variance(base) / len(base), statistics.variance(cand) / len(cand)
    delta = statistics.fmean(cand) - statistics.fmean(base)
    if va + vb == 0:
        return delta, delta, delta
    dof = (va + vb) ** 2 / (va**2 / (len(base) - 1) + vb**2 / (len(cand) - 1))
    half = t_quantile(1 - alpha / 2, dof) * math.sqrt(va + vb)
    return delta, delta - half, delta + half
