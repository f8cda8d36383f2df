"""The knee of a latency-vs-load curve: where it leaves its near-flat regime.

Method: Kneedle (Satopää et al., "Finding a 'Kneedle' in a Haystack", 2011) for a convex,
increasing curve. Load is put on a log2 axis (sweeps grow geometrically: 1, 2, 4 ... 128),
both axes are scaled to 0..1, and the knee is the point furthest below the chord from the
first point to the last, i.e. the maximum of x_n - y_n. When that maximum is under
`MIN_DIFFERENCE` the curve has no flat part to leave (a straight or concave curve), and there
is no knee. Tested on curves whose corner is known (tests/bench/capacity/test_knee.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MIN_DIFFERENCE = 0.1


@dataclass(frozen=True)
class Knee:
    index: int  # into the points as given
    load: float
    value: float
    difference: float  # x_n - y_n at the knee, 0..1: how sharp the bend is (search.json's
    # `sharpness`, app.bench.schema.search_doc.SearchKnee)


def find_knee(
    loads: Sequence[float], values: Sequence[float], *, log_load: bool = True
) -> Knee | None:
    """The knee of `values` over `loads` (any order, duplicates averaged away by the caller),
    or None with fewer than three points or no near-flat regime."""
    pairs = [
        (i, float(x), float(y))
        for i, (x, y) in enumerate(zip(loads, values, strict=True))
        if x is not None and y is not None and math.isfinite(x) and math.isfinite(y)
    ]
    if log_load:
        pairs = [p for p in pairs if p[1] > 0]
    pairs.sort(key=lambda p: p[1])
    if len(pairs) < 3:
        return None
    xs = [math.log2(x) if log_load else x for _, x, _ in pairs]
    ys = [y for _, _, y in pairs]
    x_span, y_span = xs[-1] - xs[0], max(ys) - min(ys)
    if x_span <= 0 or y_span <= 0:
        return None
    y_low = min(ys)
    diffs = [(x - xs[0]) / x_span - (y - y_low) / y_span for x, y in zip(xs, ys, strict=True)]
    best = max(range(len(diffs)), key=lambda k: (diffs[k], -k))
    if diffs[best] < MIN_DIFFERENCE:
        return None
    index, load, value = pairs[best]
    return Knee(index, load, value, diffs[best])


def sweep_knees(points: Sequence[Any], over: str = "concurrency") -> dict[str, Knee | None]:
    """Knees of TPOT p99 and TTFT p99 over a sweep's PointResults (concurrency or rate).
    Points not on the curve (early-stopped, cancelled or partial fragments, and points run at
    another load than they name) are left out."""
    loads: list[float] = []
    tpot: list[float] = []
    ttft: list[float] = []
    for point in points:
        if not point.on_the_curve:
            continue
        load = point.max_concurrency if over == "concurrency" else point.request_rate
        if load is None or not math.isfinite(float(load)):
            continue
        t1, t2 = point.metric("tpot", "p99"), point.metric("ttft", "p99")
        if t1 is None or t2 is None:
            continue
        loads.append(float(load))
        tpot.append(t1)
        ttft.append(t2)
    return {"tpot": find_knee(loads, tpot), "ttft": find_knee(loads, ttft)}
