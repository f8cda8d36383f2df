"""Arrival plans: when each request of a point is due, however the schedule was made.

vLLM's gamma process at a request rate (arrivals.arrival_offsets) and a trace's own clock
(Mooncake timestamps divided by a speed-up) both end as offsets in seconds after the point's
start; `run_load` sends on them and records each send's lateness against them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from app.bench.load.arrivals import arrival_offsets


@dataclass(frozen=True)
class ArrivalPlan:
    """Offsets (seconds after the point's start, in request order) and where they came
    from: "rate" (vLLM's arrival process) or "trace" (replayed at `speedup`)."""

    offsets: tuple[float, ...]
    source: str = "rate"
    speedup: float | None = None

    @property
    def span_s(self) -> float:
        """First to last arrival, seconds."""
        return self.offsets[-1] - self.offsets[0] if self.offsets else 0.0

    @property
    def mean_rate(self) -> float:
        """Requests per second the plan offers over its span (inf when all are due at once)."""
        span = self.span_s
        return (len(self.offsets) - 1) / span if span > 0 else math.inf


def rate_plan(
    num_requests: int, request_rate: float, burstiness: float = 1.0, seed: int = 0
) -> ArrivalPlan:
    """vLLM's arrival process (see arrival_offsets)."""
    offsets = arrival_offsets(num_requests, request_rate, burstiness, seed)
    return ArrivalPlan(tuple(offsets))


def trace_plan(timestamps_ms: Sequence[float], speedup: float = 1.0) -> ArrivalPlan:
    """A trace replayed on its own clock: each request is due at its timestamp less the
    first one's (the replay starts with the trace's first request), divided by `speedup`."""
    if not (speedup > 0 and math.isfinite(speedup)):
        raise ValueError(f"trace speed-up must be a positive number, got {speedup}")
    if any(b < a for a, b in pairwise(timestamps_ms)):
        raise ValueError("trace timestamps must not go backwards")
    start = timestamps_ms[0] if timestamps_ms else 0.0
    offsets = tuple((t - start) / 1000.0 / speedup for t in timestamps_ms)
    return ArrivalPlan(offsets, "trace", speedup)
