"""How late a point's sends were against its arrival plan (`schedule_lateness_ns`).

A send is late when the client's loop woke after the request's due time or a concurrency
cap held it (both before the request is handed to the HTTP client: the "submit" part), or
when the HTTP client took a while to get its bytes out: a connection to open (an idle
kept-alive one is dropped after a few seconds, as servers close them), the write itself.
A replay is only a replay of its trace while every send stays close to its schedule.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from app.bench.http.record import RequestRecord
from app.bench.schema.point_blocks import Lateness, ScheduleLateness

LATE_MS = 10.0  # a send this far behind its schedule is counted as late


def _stats(ms: np.ndarray) -> Lateness:
    return Lateness(
        mean_ms=round(float(ms.mean()), 4),
        median_ms=round(float(np.percentile(ms, 50)), 4),
        p90_ms=round(float(np.percentile(ms, 90)), 4),
        p99_ms=round(float(np.percentile(ms, 99)), 4),
        max_ms=round(float(ms.max()), 4),
    )


def lateness_summary(records: Iterable[RequestRecord]) -> ScheduleLateness | None:
    """Send lateness (bytes out less due time): mean, median, p90, p99 and max (ms), the
    count over LATE_MS and how many sends were measured; `submit`, the same for the moment
    the request was handed to the HTTP client. None when nothing was sent on a schedule."""
    timed = [r for r in records if r.schedule_lateness_ns is not None]
    if not timed:
        return None
    send = np.asarray([r.schedule_lateness_ns for r in timed], dtype=float) / 1e6
    http = [max(0, r.send_ns - r.submit_ns) if r.submit_ns else 0 for r in timed]
    submit = send - np.asarray(http, dtype=float) / 1e6
    stats = _stats(send)
    return ScheduleLateness(
        count=len(timed),
        mean_ms=stats.mean_ms,
        median_ms=stats.median_ms,
        p90_ms=stats.p90_ms,
        p99_ms=stats.p99_ms,
        max_ms=stats.max_ms,
        late_over_ms=LATE_MS,
        late=int((send > LATE_MS).sum()),
        submit=_stats(submit),
    )
