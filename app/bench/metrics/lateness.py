"""How late a point's sends were against its arrival plan (`schedule_lateness_ns`).

A send is late when the client's loop woke after the request's due time, when a concurrency
cap held it (its slot wait), or when building and writing the request took a while. A
replay is only a replay of its trace while every send stays close to its schedule.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from app.bench.http.record import RequestRecord

LATE_MS = 10.0  # a send this far behind its schedule is counted as late


def lateness_summary(records: Iterable[RequestRecord]) -> dict[str, Any] | None:
    """Mean, median, p90, p99 and max lateness (ms), the count over LATE_MS, and how many
    sends were measured; None when no record was sent on a schedule."""
    values = [r.schedule_lateness_ns for r in records if r.schedule_lateness_ns is not None]
    if not values:
        return None
    ms = np.asarray(values, dtype=float) / 1e6
    return {
        "count": len(values),
        "mean_ms": round(float(ms.mean()), 4),
        "median_ms": round(float(np.percentile(ms, 50)), 4),
        "p90_ms": round(float(np.percentile(ms, 90)), 4),
        "p99_ms": round(float(np.percentile(ms, 99)), 4),
        "max_ms": round(float(ms.max()), 4),
        "late_over_ms": LATE_MS,
        "late": int((ms > LATE_MS).sum()),
    }
