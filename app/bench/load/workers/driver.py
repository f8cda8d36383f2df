"""The driver side of a multi-worker point: start, barrier, relay, merge."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.bench.http.record import RequestRecord
from app.bench.load.arrivals import Clock, LoadOutcome, LoadState
from app.bench.load.workers.merge import lost_record, merge_outcome, shift_record
from app.bench.load.workers.messages import (
    WorkerFinished,
    WorkerJob,
    WorkerLost,
    WorkerReady,
    WorkerRecord,
    WorkerTick,
)
from app.bench.load.workers.pool import WorkerError, WorkerPool

# Time for every worker to start, open and warm its connections before the barrier.
READY_TIMEOUT_S = 120.0
# The barrier is set this far ahead of "all ready", so the go message reaches every worker
# before the start time it names.
BARRIER_LEAD_S = 0.2

OnRecord = Callable[[int, RequestRecord], None]
OnChunks = Callable[[list[int], list[float]], None]


@dataclass
class _Worker:
    job: WorkerJob
    shift_ns: int = 0  # add to this worker's clock readings to get the driver's clock
    sent: int = 0
    in_flight: int = 0
    records: dict[int, RequestRecord] = field(default_factory=dict)  # by request index
    finished: WorkerFinished | None = None
    lost: str | None = None


@dataclass
class WorkersOutcome:
    """A merged point plus what the workers themselves cost."""

    load: LoadOutcome
    cpu_s: dict[int, float]
    lost: dict[int, str]
    max_rss_kib: dict[int, int] = field(default_factory=dict)


async def _all_ready(pool: WorkerPool, count: int, clock: Clock) -> None:
    """Wait until all `count` workers said ready (WorkerError if one failed or time ran out)."""
    ready: set[int] = set()
    deadline = clock() + int(READY_TIMEOUT_S * 1e9)
    while len(ready) < count:
        remaining = (deadline - clock()) / 1e9
        try:
            message = await asyncio.wait_for(pool.messages.get(), max(0.0, remaining))
        except TimeoutError:
            raise WorkerError(
                f"only {len(ready)} of {count} load workers were ready after "
                f"{READY_TIMEOUT_S:.0f} s; check the workers' machines can reach the endpoint"
            ) from None
        if isinstance(message, WorkerReady):
            ready.add(message.worker)
        elif isinstance(message, WorkerLost):
            raise WorkerError(f"load worker {message.worker} failed to start: {message.reason}")


def _fail_unanswered(
    worker: _Worker, reason: str, state: LoadState, on_record: OnRecord | None, clock: Clock
) -> None:
    """A lost worker's unanswered requests are failures of their own kind, never dropped."""
    for index, spec in zip(worker.job.share.indices, worker.job.specs, strict=True):
        if index not in worker.records:
            worker.records[index] = lost_record(spec, reason, clock())
            state.failed += 1
            if on_record is not None:
                on_record(index, worker.records[index])


# Start, barrier, relay and merge in order over one pool and one table of workers; the
# `finally` that closes the pool spans all of them.
async def run_workers(
    pool: WorkerPool,
    jobs: Sequence[WorkerJob],
    *,
    cancel: asyncio.Event,
    state: LoadState,
    on_record: OnRecord | None = None,
    on_chunks: OnChunks | None = None,
    on_start: Callable[[int], None] | None = None,
    clock: Clock = time.perf_counter_ns,
) -> WorkersOutcome:
    """Run one point on `jobs` (one per worker) and merge it into one LoadOutcome whose
    records, in request order, are on this process's clock.

    Latencies are measured inside each worker on its own monotonic clock, so TTFT, ITL and
    TPOT need no clock sync. Only the point's time axis (start barrier, duration, throughput,
    the charts) joins the workers: on one machine they share the clock; across machines each
    worker's readings are moved by its measured clock offset (pool.clock_offsets), exact to
    within half the best ping's round trip (well under a millisecond on a LAN). `on_start`
    gets the barrier time on this process's clock."""
    workers = {job.worker: _Worker(job) for job in jobs}
    state.total = sum(len(job.specs) for job in jobs)
    state.origin_ns = clock()  # until the barrier: progress counts from here
    await pool.start(jobs)
    try:
        await _all_ready(pool, len(workers), clock)
        offsets = await pool.clock_offsets()
        for number, offset in offsets.items():
            workers[number].shift_ns = offset.offset_ns
        # The go message must reach every worker before the time it names.
        lead_ns = max(
            int(BARRIER_LEAD_S * 1e9), 4 * max((o.rtt_ns for o in offsets.values()), default=0)
        )
        origin = clock() + lead_ns
        await pool.go(origin)
        state.origin_ns = origin
        if on_start is not None:
            on_start(origin)
        await _relay(pool, workers, cancel, state, on_record, on_chunks)
    finally:
        await pool.close()
    for worker in workers.values():
        if worker.lost is not None:
            _fail_unanswered(worker, worker.lost, state, on_record, clock)
    outcome = merge_outcome(
        origin,
        {i: r for w in workers.values() for i, r in w.records.items()},
        [w.finished for w in workers.values() if w.finished is not None],
        cancelled=cancel.is_set(),
    )
    return WorkersOutcome(
        load=outcome,
        cpu_s={w: x.finished.cpu_s for w, x in workers.items() if x.finished is not None},
        lost={w: x.lost for w, x in workers.items() if x.lost is not None},
        max_rss_kib={
            w: x.finished.max_rss_kib for w, x in workers.items() if x.finished is not None
        },
    )


async def _relay(
    pool: WorkerPool,
    workers: dict[int, _Worker],
    cancel: asyncio.Event,
    state: LoadState,
    on_record: OnRecord | None,
    on_chunks: OnChunks | None,
) -> None:
    open_workers = set(workers)
    cancel_wait = asyncio.ensure_future(cancel.wait())
    cancel_sent = False
    try:
        while open_workers:
            if cancel.is_set() and not cancel_sent:
                cancel_sent = True
                await pool.cancel()
            getter = asyncio.ensure_future(pool.messages.get())
            waits = {getter} if cancel_sent else {getter, cancel_wait}
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await getter
                continue
            message = getter.result()
            worker = workers[message.worker]
            if isinstance(message, WorkerRecord):
                record = shift_record(message.record, worker.shift_ns)
                worker.records[message.index] = record
                if record.ok:
                    state.completed += 1
                    state.output_tokens += record.output_tokens
                else:
                    state.failed += 1
                if on_record is not None:
                    on_record(message.index, record)
            elif isinstance(message, WorkerTick):
                worker.sent, worker.in_flight = message.sent, message.in_flight
                state.sent = sum(w.sent for w in workers.values())
                state.in_flight = sum(w.in_flight for w in workers.values())
                if on_chunks is not None and message.chunk_ns:
                    shift = worker.shift_ns
                    on_chunks([t + shift for t in message.chunk_ns], message.itl_ms)
            elif isinstance(message, WorkerFinished):
                worker.finished = message
                worker.in_flight = 0
                open_workers.discard(message.worker)
            elif isinstance(message, WorkerLost):
                worker.lost = message.reason
                worker.in_flight = 0
                open_workers.discard(message.worker)
    finally:
        cancel_wait.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await cancel_wait
