"""Load workers: the split keeps the requested load, the merge equals a single-process
summary, and real worker processes against the simulator give every request once."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
from collections.abc import Sequence

import pytest

from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.load.arrivals import LoadState, arrival_offsets, run_load
from app.bench.load.workers.driver import BARRIER_LEAD_S, run_workers
from app.bench.load.workers.local import LocalPool
from app.bench.load.workers.merge import WORKER_LOST, shift_record
from app.bench.load.workers.messages import (
    WorkerFinished,
    WorkerJob,
    WorkerMessage,
    WorkerReady,
    WorkerRecord,
)
from app.bench.load.workers.plan import split_concurrency, split_load
from app.bench.load.workers.pool import ClockOffset
from app.bench.metrics.point import compute_point_metrics
from app.sim.embedded import RunningSim

MODEL = "qwen2.5-7b"


def _specs(n: int, max_tokens: int = 16) -> list[RequestSpec]:
    return [
        RequestSpec(f"request {i} " * 10, 30, max_tokens, model=MODEL, request_id=f"r{i}")
        for i in range(n)
    ]


def _jobs(sim: RunningSim, specs: Sequence[RequestSpec], offsets, cap, workers):
    resolved = resolve_endpoint(sim.base_url, api="chat", model=MODEL)
    return [
        WorkerJob(share=s, specs=[specs[i] for i in s.indices], resolved=resolved)
        for s in split_load(offsets, cap, workers)
    ]


def test_a_cap_is_split_to_add_up_exactly() -> None:
    assert split_concurrency(32, 3) == [11, 11, 10]
    assert split_concurrency(2, 4) == [1, 1, 0, 0]
    assert split_concurrency(None, 2) == [None, None]


def test_the_split_keeps_every_arrival_once_at_its_own_time() -> None:
    offsets = arrival_offsets(10, 4.0, seed=3)
    shares = split_load(offsets, 5, 3)
    assert [s.max_concurrency for s in shares] == [2, 2, 1]
    assert sorted(i for s in shares for i in s.indices) == list(range(10))
    for share in shares:
        assert list(share.offsets) == [offsets[i] for i in share.indices]
        assert list(share.offsets) == sorted(share.offsets)
    # round-robin in arrival order: worker 0 sends the 1st, 4th, 7th and 10th arrival
    assert shares[0].indices == (0, 3, 6, 9)


def test_workers_without_a_slot_get_no_requests() -> None:
    shares = split_load([0.0] * 6, 1, 3)
    assert len(shares) == 1
    assert shares[0].indices == tuple(range(6))
    assert shares[0].max_concurrency == 1


class _ReplayPool:
    """Stands in for workers on other machines: each replays real records on its own clock
    (shifted by a large, different offset), which the driver learns from clock_offsets."""

    def __init__(self, parts: dict[int, list[tuple[int, RequestRecord]]], origin: int) -> None:
        self.messages: asyncio.Queue[WorkerMessage] = asyncio.Queue()
        self.parts = parts
        self.origin = origin
        self.skew = {w: (w + 1) * 7_919_000_000_123 for w in parts}

    async def start(self, jobs: Sequence[WorkerJob]) -> None:
        for job in jobs:
            self.messages.put_nowait(WorkerReady(job.worker))

    async def clock_offsets(self) -> dict[int, ClockOffset]:
        return {w: ClockOffset(-skew, 1000) for w, skew in self.skew.items()}

    async def go(self, start_ns: int) -> None:
        for w, records in self.parts.items():
            skew = self.skew[w]
            for index, record in records:
                self.messages.put_nowait(WorkerRecord(w, index, shift_record(record, skew)))
            self.messages.put_nowait(WorkerFinished(w, False, 0, 0, 0.0))

    async def cancel(self) -> None: ...
    async def close(self) -> None: ...


def test_merging_workers_gives_the_single_process_summary(sim: RunningSim) -> None:
    specs = _specs(12)
    offsets = arrival_offsets(12, 50.0, seed=1)
    resolved = resolve_endpoint(sim.base_url, api="chat", model=MODEL)

    async def single() -> tuple[list[RequestRecord], int, float]:
        import httpx

        from app.bench.http.stream import send_request

        async with httpx.AsyncClient() as http:

            async def send(spec: RequestSpec) -> RequestRecord:
                return await send_request(http, resolved, spec)

            out = await run_load(send, specs, offsets=offsets, max_concurrency=4)
        return out.records, out.origin_ns, out.duration_s

    records, origin, duration = asyncio.run(single())
    assert all(r.ok for r in records)
    expected = compute_point_metrics(records, duration, origin_ns=origin)

    shares = split_load(offsets, 4, 3)
    parts = {s.worker: [(i, records[i]) for i in s.indices] for s in shares}
    jobs = [
        WorkerJob(share=s, specs=[specs[i] for i in s.indices], resolved=resolved) for s in shares
    ]
    pool = _ReplayPool(parts, origin)

    async def merged():
        # The driver's clock reads the single run's origin at the barrier it sets.
        lead = int(BARRIER_LEAD_S * 1e9)
        return await run_workers(
            pool, jobs, cancel=asyncio.Event(), state=LoadState(), clock=lambda: origin - lead
        )

    out = asyncio.run(merged()).load
    assert out.duration_s == duration
    got = compute_point_metrics(out.records, out.duration_s, origin_ns=out.origin_ns)
    assert dataclasses.asdict(got) == dataclasses.asdict(expected)


def test_two_worker_processes_send_every_request_once(sim: RunningSim) -> None:
    specs = _specs(10)
    jobs = _jobs(sim, specs, arrival_offsets(10, 40.0, seed=0), 4, 2)
    state = LoadState()
    seen: list[int] = []
    chunk_times: list[int] = []

    async def main():
        return await run_workers(
            LocalPool(),
            jobs,
            cancel=asyncio.Event(),
            state=state,
            on_record=lambda i, r: seen.append(i),
            on_chunks=lambda t, itl: chunk_times.extend(t),
        )

    out = asyncio.run(main())
    assert sorted(seen) == list(range(10))
    assert [r.request_id for r in out.load.records] == [f"r{i}" for i in range(10)]
    assert all(r.ok and r.output_tokens == 16 for r in out.load.records)
    assert (state.completed, state.failed, state.output_tokens) == (10, 0, 160)
    assert set(out.cpu_s) == {0, 1} and out.lost == {}
    # one shared clock: every chunk the workers saw lies inside the merged point's span
    assert chunk_times and all(
        out.load.first_send_ns <= t <= out.load.last_end_ns for t in chunk_times
    )


def test_a_lost_worker_is_counted_never_dropped(sim: RunningSim) -> None:
    specs = _specs(8, max_tokens=40)
    jobs = _jobs(sim, specs, [0.0] * 8, 2, 2)
    pool = LocalPool()
    killed: list[int] = []

    def on_record(index: int, record: RequestRecord) -> None:
        if not killed and record.ok:
            owner = next(j.worker for j in jobs if index in j.share.indices)
            victim = pool._procs[1 - owner]  # the other worker, with requests still to send
            killed.append(victim.pid)
            os.kill(victim.pid, signal.SIGKILL)

    async def main():
        return await run_workers(
            pool, jobs, cancel=asyncio.Event(), state=LoadState(), on_record=on_record
        )

    out = asyncio.run(main())
    assert killed
    records = out.load.records
    assert len(records) == 8
    lost = [r for r in records if r.error_kind == WORKER_LOST]
    assert lost and all(not r.ok for r in lost)
    assert len(out.lost) == 1


def test_cancel_stops_every_worker(sim: RunningSim) -> None:
    specs = _specs(40, max_tokens=100)
    jobs = _jobs(sim, specs, [i * 0.05 for i in range(40)], 4, 2)
    for job in jobs:
        job.grace_s = 0.5
    cancel = asyncio.Event()

    def on_record(index: int, record: RequestRecord) -> None:
        cancel.set()

    async def main():
        return await run_workers(
            LocalPool(), jobs, cancel=cancel, state=LoadState(), on_record=on_record
        )

    out = asyncio.run(main()).load
    assert out.cancelled
    assert out.not_sent > 0
    assert len(out.records) + out.aborted + out.not_sent == 40


@pytest.mark.parametrize("workers", [1, 3])
def test_worker_counts_add_up(workers: int) -> None:
    shares = split_load(arrival_offsets(7, float("inf")), None, workers)
    assert sum(len(s.indices) for s in shares) == 7
