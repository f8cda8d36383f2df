"""vLLM's peak output tokens/s (one-second buckets) and peak concurrency (a sweep line)."""

from __future__ import annotations

import math

import numpy as np


def peak_tokens_per_s(
    starts: list[float],
    ends: list[float],
    token_times: list[list[float]],
    weights: list[list[float]] | None,
) -> float:
    """vLLM's one-second buckets from the earliest send: int(t - origin) truncates, and the
    bucket count is ceil(last end - origin) + 1."""
    origin = min(starts)
    size = math.ceil(max(ends) - origin) + 1
    times = np.fromiter((t for ts in token_times for t in ts), dtype=float)
    index = (times - origin).astype(np.int64)  # truncation toward 0, like int()
    keep = (times - origin > -1) & (index < size)  # int() maps (-1, 0) to bucket 0 too
    if weights is None:
        counts = np.bincount(index[keep], minlength=size)
    else:
        w = np.fromiter((x for ws in weights for x in ws), dtype=float)
        counts = np.bincount(index[keep], weights=w[keep], minlength=size)
    return float(counts.max()) if size > 0 and len(counts) else 0.0


def peak_concurrency(starts: list[float], ends: list[float]) -> int:
    # Half-open intervals [start, end): a departure at t is processed before an arrival at t.
    events = sorted([(s, 1) for s in starts] + [(e, -1) for e in ends])
    current = peak = 0
    for _, delta in events:
        current += delta
        peak = max(peak, current)
    return peak
