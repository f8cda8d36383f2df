"""Load workers as Ray actors spread over a cluster's nodes (`--ray auto|ADDRESS`).

Ray is an optional extra (`pip install "tpotbench[distributed]"`), imported only here."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any

from app.bench.load.workers.messages import WorkerFinished, WorkerJob, WorkerLost, WorkerMessage
from app.bench.load.workers.pool import ClockOffset, WorkerError
from app.bench.load.workers.ray_address import (
    RayAddressError,
    RayHeadError,
    parse_ray_address,
    probe_ray_head,
)

# How long one poll waits for news inside the actor: short enough for live charts (the
# workers tick every 0.1 s), long enough that polling costs nothing measurable.
POLL_WAIT_S = 0.2
SYNC_PINGS = 5


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise WorkerError(
            "--ray needs Ray: pip install 'tpotbench[distributed]' (or pip install ray)"
        ) from None
    return ray


def connect(address: str) -> None:
    """Join the cluster at `address`; `auto` joins the one this machine belongs to, or
    starts a local one (this machine's cores) when there is none."""
    ray = _import_ray()
    if ray.is_initialized():
        return
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    try:
        head = parse_ray_address(address)
        if head is not None:
            # Ray itself retries an absent or foreign head for minutes: ask it first, bounded.
            probe_ray_head(head)
    except (RayAddressError, RayHeadError) as exc:
        raise WorkerError(str(exc)) from None
    try:
        ray.init(address=address, **options)
    except ConnectionError:
        if address != "auto":
            raise WorkerError(
                f"cannot reach a Ray cluster at {address}; check the address "
                "(ray status on the head node shows it) or use --ray auto"
            ) from None
        ray.init(**options)


class _Actor:
    """The actor body: a worker's run_share on the actor's own event loop, its reports
    buffered until the driver polls."""

    def __init__(self) -> None:
        self._outbox: asyncio.Queue[WorkerMessage] = asyncio.Queue()
        self._cancel = asyncio.Event()
        self._go: asyncio.Future[int] | None = None
        self._task: asyncio.Task[None] | None = None

    async def prepare(self, job: WorkerJob) -> None:
        from app.bench.http.auth import redact
        from app.bench.load.workers.core import pin_to_cpu, run_share

        pin_to_cpu(job.cpu)
        self._go = asyncio.get_running_loop().create_future()

        async def body() -> None:
            assert self._go is not None
            try:
                await run_share(job, self._outbox.put_nowait, self._cancel, self._go)
            except Exception as exc:
                reason = redact(f"{type(exc).__name__}: {exc}", job.api_key)[:300]
                self._outbox.put_nowait(WorkerLost(job.worker, reason))

        self._task = asyncio.ensure_future(body())

    async def now(self) -> int:
        return time.perf_counter_ns()

    async def go(self, start_ns: int) -> None:
        if self._go is not None and not self._go.done():
            self._go.set_result(start_ns)

    async def cancel(self) -> None:
        self._cancel.set()

    async def poll(self, wait_s: float) -> list[WorkerMessage]:
        out: list[WorkerMessage] = []
        with contextlib.suppress(TimeoutError):
            out.append(await asyncio.wait_for(self._outbox.get(), wait_s))
        while not self._outbox.empty():
            out.append(self._outbox.get_nowait())
        return out


class RayPool:
    """One actor per job, spread over the cluster's nodes. An actor on another machine reads
    another clock: its offset is measured NTP-style before the point starts."""

    def __init__(self, address: str = "auto") -> None:
        self.address = address
        self.messages: asyncio.Queue[WorkerMessage] = asyncio.Queue()
        self._actors: dict[int, Any] = {}
        self._pollers: list[asyncio.Task[None]] = []
        self._offsets: dict[int, ClockOffset] = {}

    async def start(self, jobs: Sequence[WorkerJob]) -> None:
        ray = _import_ray()
        await asyncio.to_thread(connect, self.address)
        remote = ray.remote(num_cpus=1, max_restarts=0)(_Actor).options(
            scheduling_strategy="SPREAD"
        )
        for job in jobs:
            actor = remote.remote()
            self._actors[job.worker] = actor
            await _await(actor.prepare.remote(job))
            self._pollers.append(asyncio.ensure_future(self._poll(job.worker, actor)))

    async def _poll(self, worker: int, actor: Any) -> None:
        ray = _import_ray()
        while True:
            try:
                batch = await _await(actor.poll.remote(POLL_WAIT_S))
            except ray.exceptions.RayError as exc:
                self.messages.put_nowait(WorkerLost(worker, f"Ray actor lost: {exc}"[:300]))
                return
            for message in batch:
                self.messages.put_nowait(message)
                if isinstance(message, WorkerFinished | WorkerLost):
                    return

    async def _each(self, method: str, *args: Any) -> None:
        for actor in self._actors.values():
            with contextlib.suppress(Exception):
                await _await(getattr(actor, method).remote(*args))

    async def clock_offsets(self) -> dict[int, ClockOffset]:
        """Per actor, the ping with the shortest round trip of SYNC_PINGS: the actor read its
        clock somewhere inside that round trip, so the midpoint is off by at most half of it."""
        for worker, actor in self._actors.items():
            best: ClockOffset | None = None
            for _ in range(SYNC_PINGS):
                t0 = time.perf_counter_ns()
                remote_now = await _await(actor.now.remote())
                t1 = time.perf_counter_ns()
                sample = ClockOffset((t0 + t1) // 2 - remote_now, t1 - t0)
                if best is None or sample.rtt_ns < best.rtt_ns:
                    best = sample
            assert best is not None
            self._offsets[worker] = best
        return dict(self._offsets)

    async def go(self, start_ns: int) -> None:
        # Each actor gets the start on its own clock: one barrier, whatever order the calls
        # arrive in.
        for worker, actor in self._actors.items():
            offset = self._offsets.get(worker, ClockOffset()).offset_ns
            with contextlib.suppress(Exception):
                await _await(actor.go.remote(start_ns - offset))

    async def cancel(self) -> None:
        await self._each("cancel")

    async def close(self) -> None:
        for task in self._pollers:
            task.cancel()
        await asyncio.gather(*self._pollers, return_exceptions=True)
        ray = _import_ray()
        for actor in self._actors.values():
            with contextlib.suppress(Exception):
                ray.kill(actor)
        self._actors.clear()


async def _await(ref: Any) -> Any:
    # ObjectRefs are awaitable on the asyncio loop of the caller (Ray's asyncio support).
    return await ref
