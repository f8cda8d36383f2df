"""The body of a load worker: run one share of a point and report as it goes."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from app.bench.http import client as client_mod
from app.bench.http.record import RequestRecord
from app.bench.http.stream import send_request
from app.bench.http.tokens import TokenCounter
from app.bench.load.arrivals import LoadOutcome, LoadState, run_load
from app.bench.load.workers.messages import (
    WorkerFinished,
    WorkerJob,
    WorkerMessage,
    WorkerReady,
    WorkerRecord,
    WorkerTick,
)

Emit = Callable[[WorkerMessage], None]


def peak_rss_kib() -> int:
    """This process's peak resident set size in KiB (Linux reports ru_maxrss in KiB)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return 0
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def pin_to_cpu(cpu: int | None) -> None:
    """Keep the worker on one core (Linux): two workers then never fight over one core while
    another sits idle, and the kernel does not migrate a worker mid-stream."""
    if cpu is None or not hasattr(os, "sched_setaffinity"):
        return
    allowed = sorted(os.sched_getaffinity(0))
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, {allowed[cpu % len(allowed)]})


class _ChunkLog:
    def __init__(self) -> None:
        self.chunk_ns: list[int] = []
        self.itl_ms: list[float] = []

    def on_chunk(self, record: RequestRecord, t_ns: int) -> None:
        ns = record.chunk_ns
        if len(ns) >= 2:
            self.chunk_ns.append(t_ns)
            self.itl_ms.append((ns[-1] - ns[-2]) / 1e6)

    def take(self) -> tuple[list[int], list[float]]:
        taken = self.chunk_ns, self.itl_ms
        self.chunk_ns, self.itl_ms = [], []
        return taken


async def _ticking(
    load: Coroutine[Any, Any, LoadOutcome], tick: Callable[[], None], tick_s: float
) -> LoadOutcome:
    """Run `load`, calling `tick` every `tick_s` seconds and once at its end."""
    task = asyncio.ensure_future(load)
    try:
        while not task.done():
            await asyncio.wait([task], timeout=tick_s)
            tick()
        return task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


# Warm, ready, wait for go, send on schedule: the one client (its `async with`) spans them all.
async def run_share(
    job: WorkerJob,
    emit: Emit,
    cancel: asyncio.Event,
    go: Awaitable[int],
) -> None:
    """Open and warm this worker's connections, say ready, wait for `go` (the agreed start on
    this worker's clock), then send the share on its schedule. Every finished request
    is emitted at once; a tick every `job.tick_s` carries chunk timings and counters."""
    share = job.share
    tokenizer = TokenCounter(job.tokenizer_path) if job.tokenizer_path else None
    pool = min(share.max_concurrency or len(job.specs), len(job.specs)) or 1
    cpu_start = time.process_time()
    log = _ChunkLog()
    state = LoadState(total=len(job.specs))
    async with client_mod.make_client(
        pool,
        verify_tls=job.verify_tls,
        timeout_s=job.timeout_s,
        transport=job.transport,
        request_timeout_s=job.request_timeout_s,
    ) as http:
        send = functools.partial(
            send_request,
            http,
            job.resolved,
            api_key=job.api_key,
            extra_headers=job.extra_headers,
            tokenizer=tokenizer,
            on_chunk=log.on_chunk,
        )
        await client_mod.warm_pool(http, job.resolved.models_url, pool)
        emit(WorkerReady(share.worker))
        start_ns = await go

        def on_record(local: int, record: RequestRecord) -> None:
            emit(WorkerRecord(share.worker, share.indices[local], record))

        def tick() -> None:
            chunk_ns, itl_ms = log.take()
            emit(WorkerTick(share.worker, chunk_ns, itl_ms, state.sent, state.in_flight))

        load = run_load(
            send,
            job.specs,
            max_concurrency=share.max_concurrency,
            cancel=cancel,
            grace_s=job.grace_s,
            on_record=on_record,
            state=state,
            offsets=share.offsets,
            start_ns=start_ns,
        )
        outcome = await _ticking(load, tick, job.tick_s)
    emit(
        WorkerFinished(
            share.worker,
            cancelled=outcome.cancelled,
            aborted=outcome.aborted,
            not_sent=outcome.not_sent,
            cpu_s=time.process_time() - cpu_start,
            max_rss_kib=peak_rss_kib(),
        )
    )
