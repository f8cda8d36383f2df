"""One sweep point on load workers: the jobs from the point's plan, the pool, the result's
`workers` block. run_point calls this instead of run_load when a sweep has workers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from app.bench.http.request import RequestSpec
from app.bench.load.arrivals import LoadOutcome, LoadState, arrival_offsets
from app.bench.load.workers.driver import OnChunks, OnRecord, run_workers
from app.bench.load.workers.local import LocalPool
from app.bench.load.workers.messages import WorkerJob
from app.bench.load.workers.plan import split_load
from app.bench.load.workers.pool import WorkerPool
from app.bench.schema.point_blocks import WorkersBlock


def make_jobs(
    config: Any,
    request_rate: float,
    max_concurrency: int | None,
    specs: Sequence[RequestSpec],
    offsets: Sequence[float] | None = None,
) -> list[WorkerJob]:
    """The point's arrival schedule (`offsets`, else the one run_load would follow, same
    seed) dealt out over `config.workers` workers, each with what it needs to send its share."""
    if offsets is None:
        offsets = arrival_offsets(len(specs), request_rate, config.burstiness, config.seed)
    tokenizer = getattr(config.tokenizer, "path", None)
    return [
        WorkerJob(
            share=share,
            specs=[specs[i] for i in share.indices],
            resolved=config.resolved,
            api_key=config.api_key,
            extra_headers=config.extra_headers,
            verify_tls=config.verify_tls,
            transport=config.transport,
            tokenizer_path=None if tokenizer is None else str(tokenizer),
            grace_s=config.grace_s,
            timeout_s=config.timeout_s,
            request_timeout_s=config.request_timeout_s,
            # local processes get a core each; a Ray actor's node decides for itself
            cpu=None if config.ray_address else share.worker,
        )
        for share in split_load(offsets, max_concurrency, config.workers)
    ]


def make_pool(config: Any) -> WorkerPool:
    if config.ray_address:
        from app.bench.load.workers.ray_pool import RayPool

        return RayPool(config.ray_address)
    return LocalPool()


async def run_point_on_workers(
    config: Any,
    request_rate: float,
    max_concurrency: int | None,
    specs: Sequence[RequestSpec],
    *,
    cancel: asyncio.Event,
    state: LoadState,
    on_record: OnRecord,
    on_chunks: OnChunks | None,
    on_start: Callable[[int], None],
    offsets: Sequence[float] | None = None,
) -> tuple[LoadOutcome, WorkersBlock]:
    """Run the point on workers (on `offsets`, a trace's say, else vLLM's arrival process);
    return the merged outcome and the result file's `workers` block (how the load was
    split, what each worker cost, any worker lost)."""
    jobs = make_jobs(config, request_rate, max_concurrency, specs, offsets)
    out = await run_workers(
        make_pool(config),
        jobs,
        cancel=cancel,
        state=state,
        on_record=on_record,
        on_chunks=on_chunks,
        on_start=on_start,
    )
    block = WorkersBlock(
        where=f"ray {config.ray_address}" if config.ray_address else "processes",
        requested=config.workers,
        used=len(jobs),
        max_concurrency=tuple(job.share.max_concurrency for job in jobs),
        requests=tuple(len(job.specs) for job in jobs),
        cpu_s=tuple(round(out.cpu_s.get(job.worker, 0.0), 3) for job in jobs),
        peak_rss_mib=tuple(round(out.max_rss_kib.get(job.worker, 0) / 1024, 1) for job in jobs),
        lost={str(w): reason for w, reason in out.lost.items()},
    )
    return out.load, block
