"""How one point's load is split across workers so the aggregate is the requested load."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class WorkerShare:
    """One worker's part of a point: global request indices with their arrival offsets
    (seconds after the point's start, the same schedule a single process would follow)
    and the worker's own in-flight limit (None: unlimited)."""

    worker: int
    indices: tuple[int, ...]
    offsets: tuple[float, ...]
    max_concurrency: int | None


def split_concurrency(max_concurrency: int | None, workers: int) -> list[int | None]:
    """A concurrency cap C split over N workers as evenly as integers allow: C // N each and
    one more for the first C % N, so the limits add up to exactly C. With C < N only C
    workers get a slot (the others get 0 and no requests)."""
    if workers < 1:
        raise ValueError(f"need at least one worker, got {workers}")
    if max_concurrency is None:
        return [None] * workers
    base, extra = divmod(max_concurrency, workers)
    return [base + (1 if w < extra else 0) for w in range(workers)]


def split_load(
    offsets: Sequence[float], max_concurrency: int | None, workers: int
) -> list[WorkerShare]:
    """Deal the requests out in arrival order, round-robin over the workers that have a slot.

    Every request keeps its own arrival time, so the union of the shares is exactly the
    requested arrival process (Poisson or gamma at rate r, or all at once): each request is
    assigned once, and a worker simply sends its requests at their scheduled times. The
    concurrency cap is split (see split_concurrency), not shared: workers in other processes
    or on other machines cannot share one semaphore without a round trip per request. The
    cost, measured by benchmarks/workers_scaleout.py: near the end of a point one worker
    can run out of requests while another still queues, so the aggregate in-flight count
    dips below the cap earlier than with one process.
    """
    caps = split_concurrency(max_concurrency, workers)
    active = [w for w, cap in enumerate(caps) if cap is None or cap > 0]
    order = sorted(range(len(offsets)), key=lambda i: (offsets[i], i))
    dealt: dict[int, list[int]] = {w: [] for w in active}
    for position, index in enumerate(order):
        dealt[active[position % len(active)]].append(index)
    return [
        WorkerShare(
            worker=w,
            indices=tuple(dealt[w]),
            offsets=tuple(float(offsets[i]) for i in dealt[w]),
            max_concurrency=caps[w],
        )
        for w in active
        if dealt[w]
    ]
