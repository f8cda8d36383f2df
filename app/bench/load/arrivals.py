"""Load generation: vLLM's arrival process, a concurrency limit, warmups and cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.bench.http.record import RequestRecord

Clock = Callable[[], int]
SendFn = Callable[[Any], Awaitable[RequestRecord]]
DEFAULT_GRACE_S = 5.0


def arrival_offsets(
    num_requests: int, request_rate: float, burstiness: float = 1.0, seed: int = 0
) -> list[float]:
    """Seconds after the point starts at which each request is released, as `vllm bench serve`.

    Gaps are gamma-distributed with shape `burstiness` and mean 1/rate (burstiness 1 is a
    Poisson process; below 1 burstier, above 1 more even, inf perfectly even), drawn from
    numpy's legacy generator seeded with `seed` (vLLM calls np.random.seed(seed) once), then
    cumulated and rescaled so the last arrival is at exactly num_requests / rate. A rate of inf
    releases everything at 0.
    """
    if num_requests <= 0:
        return []
    if not request_rate > 0:
        raise ValueError(f"request rate must be positive, got {request_rate}")
    if not burstiness > 0:
        raise ValueError(f"burstiness must be positive, got {burstiness}")
    if math.isinf(request_rate):
        return [0.0] * num_requests
    if math.isinf(burstiness):
        gaps = [1.0 / request_rate] * num_requests
    else:
        rng = np.random.RandomState(seed)
        theta = 1.0 / (request_rate * burstiness)
        gaps = [float(rng.gamma(shape=burstiness, scale=theta)) for _ in range(num_requests)]
    offsets = list(itertools.accumulate(gaps))
    if offsets[-1] != 0:
        factor = (num_requests / request_rate) / offsets[-1]
        offsets = [t * factor for t in offsets]
    return offsets


@dataclass
class LoadState:
    """Live counters of a running point, read by progress reporters (never written by them)."""

    total: int = 0
    sent: int = 0
    in_flight: int = 0
    completed: int = 0
    failed: int = 0
    output_tokens: int = 0
    origin_ns: int = 0


@dataclass
class LoadOutcome:
    """What a point produced: finished records in request order (aborted ones are absent)."""

    records: list[RequestRecord]
    origin_ns: int
    first_send_ns: int | None
    last_end_ns: int | None
    cancelled: bool
    aborted: int = 0
    not_sent: int = 0
    indices: list[int] = field(default_factory=list)

    @property
    def duration_s(self) -> float:
        """First send to last completion, in seconds (0 when nothing was sent)."""
        if self.first_send_ns is None or self.last_end_ns is None:
            return 0.0
        return max(0, self.last_end_ns - self.first_send_ns) / 1e9


def cut_short(cancel_set: bool, aborted: int, not_sent: int) -> bool:
    """Whether a cancel cost the point requests: a cancel that came after every request had
    finished (Esc while the point was being written) leaves a complete point, not a partial one."""
    return cancel_set and (aborted > 0 or not_sent > 0)


def _crashed_record(spec: Any, arrival_ns: int, now_ns: int, exc: BaseException) -> RequestRecord:
    # send_request is documented never to raise; if it does, count it instead of losing the run.
    return RequestRecord(
        prompt_len=int(getattr(spec, "prompt_len", 0)),
        output_len_requested=int(getattr(spec, "max_tokens", 0)),
        send_ns=arrival_ns,
        end_ns=now_ns,
        ok=False,
        error_kind="client_error",
        error=f"{type(exc).__name__}: {exc}"[:300],
    )


async def sleep_or_cancel(cancel: asyncio.Event, seconds: float) -> None:
    """Sleep `seconds`, or less when `cancel` is set meanwhile."""
    if seconds <= 0:
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(cancel.wait(), seconds)


class Slots:
    """One point's requests once they are ready to go: the concurrency limit, the live
    counters, the records kept by index, and the end (cancel, grace period, abort).

    The open-loop schedule (`run_load`) and conversations (`sessions.run_sessions`) differ
    only in when a request becomes ready and what it is; everything after that is here.
    """

    def __init__(
        self,
        send: SendFn,
        max_concurrency: int | None,
        cancel: asyncio.Event,
        state: LoadState,
        clock: Clock,
        on_record: Callable[[int, RequestRecord], None] | None,
    ) -> None:
        self._send = send
        self._semaphore = asyncio.Semaphore(max_concurrency) if max_concurrency else None
        self.cancel = cancel
        self.state = state
        self._clock = clock
        self._on_record = on_record
        self.results: dict[int, RequestRecord] = {}

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """A slot, held until the record is kept (waits while all are busy)."""
        if self._semaphore is None:
            yield
            return
        async with self._semaphore:
            yield

    async def send(self, spec: Any, ready_ns: int) -> RequestRecord:
        """Send `spec` in a held slot; its slot wait runs from `ready_ns` to its send."""
        state = self.state
        state.sent += 1
        state.in_flight += 1
        try:
            record = await self._send(spec)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            record = _crashed_record(spec, ready_ns, self._clock(), exc)
        finally:
            state.in_flight -= 1
        record.slot_wait_ns = max(0, record.send_ns - ready_ns)
        return record

    def keep(self, index: int, record: RequestRecord) -> None:
        """Count a finished request and hand it to `on_record`."""
        self.results[index] = record
        if record.ok:
            self.state.completed += 1
            self.state.output_tokens += record.output_tokens
        else:
            self.state.failed += 1
        if self._on_record is not None:
            self._on_record(index, record)

    async def finish(self, tasks: Sequence[asyncio.Task[Any]], grace_s: float) -> None:
        """Wait for `tasks`; once cancelled, give those in flight `grace_s`, then abort them."""
        cancel = self.cancel
        remaining = set(tasks)
        cancel_wait = asyncio.ensure_future(cancel.wait())
        try:
            while remaining and not cancel.is_set():
                done, _ = await asyncio.wait(
                    remaining | {cancel_wait}, return_when=asyncio.FIRST_COMPLETED
                )
                remaining -= done
            if remaining:
                _, still = await asyncio.wait(remaining, timeout=grace_s)
                for task in still:
                    task.cancel()
                await asyncio.gather(*still, return_exceptions=True)
        finally:
            cancel_wait.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await cancel_wait
        for task in tasks:
            if task.done() and not task.cancelled() and (error := task.exception()) is not None:
                raise error  # a bug in on_record, not the server

    def outcome(self, origin_ns: int, total: int) -> LoadOutcome:
        """The kept records in index order, and what was aborted or never sent of `total`."""
        order = sorted(self.results)
        records = [self.results[i] for i in order]
        aborted = self.state.sent - len(records)  # sent, then cut off after the grace period
        not_sent = total - self.state.sent
        return LoadOutcome(
            records=records,
            origin_ns=origin_ns,
            first_send_ns=min((r.send_ns for r in records), default=None),
            last_end_ns=max((r.end_ns for r in records), default=None),
            cancelled=cut_short(self.cancel.is_set(), aborted, not_sent),
            aborted=aborted,
            not_sent=not_sent,
            indices=order,
        )


async def run_load(
    send: SendFn,
    specs: Sequence[Any],
    *,
    request_rate: float = math.inf,
    burstiness: float = 1.0,
    seed: int = 0,
    max_concurrency: int | None = None,
    cancel: asyncio.Event | None = None,
    grace_s: float = DEFAULT_GRACE_S,
    on_record: Callable[[int, RequestRecord], None] | None = None,
    state: LoadState | None = None,
    clock: Clock = time.perf_counter_ns,
    offsets: Sequence[float] | None = None,
    start_ns: int | None = None,
) -> LoadOutcome:
    """Release `specs` on vLLM's arrival schedule, at most `max_concurrency` in flight.

    A request released while all slots are busy waits; that wait is stored in the record's
    `slot_wait_ns` (vLLM's client_queue_time) and is not part of its TTFT. How far its send
    fell behind its place in the schedule, slot wait included, is `schedule_lateness_ns`.
    When `cancel` is set: nothing new is sent, in-flight requests get `grace_s` to finish,
    then are aborted.
    A load worker passes its share of a point's schedule as `offsets` (seconds after the
    point's start) and the agreed start on this clock as `start_ns` (a barrier).
    """
    cancel = cancel or asyncio.Event()
    if offsets is None:
        offsets = arrival_offsets(len(specs), request_rate, burstiness, seed)
    elif len(offsets) != len(specs):
        raise ValueError(f"{len(offsets)} arrival offsets for {len(specs)} requests")
    slots = Slots(send, max_concurrency, cancel, state or LoadState(), clock, on_record)
    slots.state.total = len(specs)
    if start_ns is not None:
        await sleep_or_cancel(cancel, (start_ns - clock()) / 1e9)
    origin = slots.state.origin_ns = clock() if start_ns is None else start_ns
    due_ns = [origin + round(t * 1e9) for t in offsets]

    async def one(index: int, spec: Any, arrival_ns: int) -> None:
        async with slots.held():
            if cancel.is_set():
                return
            record = await slots.send(spec, arrival_ns)
            # Against the schedule, not the release: a late wakeup counts here too.
            record.schedule_lateness_ns = record.send_ns - due_ns[index]
            slots.keep(index, record)

    tasks: list[asyncio.Task[None]] = []
    for index, spec in enumerate(specs):
        await sleep_or_cancel(cancel, (due_ns[index] - clock()) / 1e9)
        if cancel.is_set():
            break
        tasks.append(asyncio.create_task(one(index, spec, clock())))
    await slots.finish(tasks, grace_s)
    return slots.outcome(origin, len(specs))


async def run_warmups(
    send: SendFn, spec: Any, count: int, max_concurrency: int | None
) -> list[RequestRecord]:
    """vLLM's warmup: `count` copies of the first request, all at once under the same
    concurrency limit; the records are returned for inspection but never counted."""
    if count <= 0:
        return []
    semaphore = asyncio.Semaphore(max_concurrency) if max_concurrency else None

    async def one() -> RequestRecord:
        if semaphore is None:
            return await send(spec)
        async with semaphore:
            return await send(spec)

    return list(await asyncio.gather(*(one() for _ in range(count))))
