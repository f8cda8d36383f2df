"""One sweep point: the prefix-cache reset, warmups, the measured load (in this process, as
conversations, or on load workers) with its live events, then the point's result file."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.bench.datasets.prompts import SampleRequest
from app.bench.http import client as client_mod
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.http.stream import send_request
from app.bench.load.arrivals import LoadOutcome, LoadState, run_load, run_warmups
from app.bench.load.workers.point import run_point_on_workers
from app.bench.results.write import write_point_doc
from app.bench.schema.point_blocks import EarlyStopBlock, WorkersBlock
from app.bench.schema.point_check import checked
from app.bench.schema.point_doc import PointDoc
from app.bench.sweep.contract import PointStarted, Progress, RunError, Tokens
from app.bench.sweep.drain import drain_after_early_stop
from app.bench.sweep.early_stop import EarlyStop
from app.bench.sweep.live import ScraperThread, TokenBatch, request_done
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.plan import PointSpec
from app.bench.sweep.point_document import Measured, point_document
from app.bench.sweep.run_context import RunContext, partial_path

TICK_S = 0.1
# send_request bound to the point's client and endpoint; on_chunk may be added
Send = Callable[..., Awaitable[RequestRecord]]
# A request of the point: (prompt or messages, prompt tokens, max tokens, request id)
MakeSpec = Callable[[Any, int, int, str], RequestSpec]
Load = asyncio.Future[tuple[LoadOutcome, WorkersBlock | None]]


class ResultWriteError(OSError):
    """A point's file could not be written; the message names it (the sweep goes on)."""


async def run_point(
    config: RunContext,
    point: PointSpec,
    observers: Sequence[SweepObserver],
    cancel: asyncio.Event,
    path: Path | None = None,
    early_stop: EarlyStop | None = None,
    samples: Sequence[SampleRequest] | None = None,
) -> tuple[Path | None, PointDoc]:
    """Run one point (warmups first, not counted), save its JSON (to `path`, default from the
    config's naming) and return (path, document); the path is None for a point cancelled before
    any request finished, which is not saved.

    `early_stop` ends the point once it has provably failed an SLO (in-flight requests are
    dropped: the verdict is already known); the file then says so. `samples` runs the first
    requests of the dataset only (a search sizes its points), default all of them."""
    started = PointStarted.of(point)
    for obs in observers:
        obs.point_started(started)
    samples = list(config.samples if samples is None else samples)
    cache_reset = await _reset_cache(config, cancel)
    load_cancel = cancel
    linked: asyncio.Future[Any] | None = None
    if early_stop is not None:
        observers = [*observers, early_stop]
        load_cancel = early_stop.event
        linked = asyncio.ensure_future(cancel.wait())
        linked.add_done_callback(lambda _: early_stop.event.set())
    try:
        measured = await _measure(
            config, point, observers, cancel, load_cancel, samples, early_stop
        )
    finally:
        if linked is not None:
            linked.cancel()
    stopped_early = early_stop is not None and early_stop.reason is not None
    stopped_early = stopped_early and not cancel.is_set()
    stop_block = None
    if early_stop is not None and stopped_early:
        # The dropped streams may still run on the server: the next point must not meet them.
        drain = await drain_after_early_stop(config, cancel)
        server_drain = drain.block() if drain is not None else None
        stop_block = EarlyStopBlock(early_stop.reason, server_drain)
    doc = point_document(config, point, samples, measured, cache_reset, stop_block)
    path = path or config.path_for(point)
    if measured.outcome.cancelled and not stopped_early:
        if not measured.outcome.records:  # cancelled before anything finished: no file
            return None, doc
        # A partial point never replaces a complete file of the same name from an earlier run.
        path = partial_path(path)
    doc, problem = checked(doc)
    if problem is not None:  # a bug of ours: say so, keep the rest of the measurement
        for obs in observers:
            obs.error(RunError(f"point {point.index}: {problem}"[:300]))
    try:
        return write_point_doc(path, doc), doc
    except OSError as exc:
        raise ResultWriteError(f"cannot write {path}: {exc.strerror or exc}") from None


async def _reset_cache(config: RunContext, cancel: asyncio.Event) -> str | None:
    """The server's prefix cache reset before the point (when the run does); its outcome."""
    outcome: str | None = None
    if not cancel.is_set():

        async def reset() -> None:
            nonlocal outcome
            outcome = await config.reset_cache()

        await _unless_cancelled(reset(), cancel)
    return outcome


def _spec_maker(config: RunContext) -> MakeSpec:
    """The point's requests with the run's settings, each id unique to this point (a server's
    logs tell them apart)."""
    prefix = f"tpotbench-{uuid.uuid4().hex[:8]}-"

    def make(prompt: Any, prompt_len: int, max_tokens: int, request_id: str) -> RequestSpec:
        return RequestSpec(
            prompt,
            prompt_len,
            max_tokens,
            ignore_eos=config.ignore_eos,
            model=config.model,
            extra_body=config.extra_body,
            request_id=prefix + request_id,
        )

    return make


@dataclass
class _Live:
    """A running point's live events: each finished request at once; about ten times a second
    the token arrivals since the last tick and the progress; and how late the loop woke for
    each tick (a busy client stamps every token that late too)."""

    point: int
    observers: Sequence[SweepObserver]
    state: LoadState
    scraper: ScraperThread | None
    batch: TokenBatch = field(default_factory=TokenBatch)
    lags_ms: list[float] = field(default_factory=list)

    @property
    def wants_tokens(self) -> bool:
        return any(obs.wants_tokens for obs in self.observers)

    def on_record(self, index: int, record: RequestRecord) -> None:
        event = request_done(self.point, record)
        for obs in self.observers:
            obs.request(event)

    def on_start(self, origin_ns: int) -> None:
        self.batch.origin_ns = origin_ns
        if self.scraper is not None:
            self.scraper.set_origin(origin_ns)

    def tick(self) -> None:
        state = self.state
        elapsed = max(0.0, (time.perf_counter_ns() - state.origin_ns) / 1e9)
        t_s, itl_ms = self.batch.take()
        tokens = Tokens(self.point, t_s, itl_ms) if t_s else None
        progress = Progress(
            point=self.point,
            completed=state.completed,
            failed=state.failed,
            total=state.total,
            in_flight=state.in_flight,
            elapsed_s=elapsed,
            output_tok_s=state.output_tokens / elapsed if elapsed > 0 else 0.0,
        )
        for obs in self.observers:
            if tokens is not None:
                obs.tokens(tokens)
            obs.progress(progress)

    async def run(self) -> None:
        while True:
            due = time.perf_counter_ns() + int(TICK_S * 1e9)
            await asyncio.sleep(TICK_S)
            self.lags_ms.append(max(0.0, (time.perf_counter_ns() - due) / 1e6))
            self.tick()


# Whole on purpose: the point's client bounds the warmups, the /metrics thread and the load,
# in that order, and the CPU share is taken across all of them.
async def _measure(
    config: RunContext,
    point: PointSpec,
    observers: Sequence[SweepObserver],
    cancel: asyncio.Event,
    load_cancel: asyncio.Event,
    samples: Sequence[SampleRequest],
    early_stop: EarlyStop | None,
) -> Measured:
    """Warm up, then run the load with its live events; what the point's file is made from."""
    conc = point.max_concurrency
    pool = min(conc or len(samples), len(samples)) or 1
    conversations = config.conversations
    if conversations is not None:
        pool = conversations.pool_size(conc)
    make_spec = _spec_maker(config)
    specs = [
        make_spec(s.prompt, s.prompt_len, s.expected_output_len, s.request_id) for s in samples
    ]
    state = LoadState(total=len(samples) if conversations is None else conversations.num_requests)
    started_at = datetime.now(UTC)
    cpu_ns, wall_ns = time.process_time_ns(), time.perf_counter_ns()
    async with client_mod.make_client(
        pool,
        verify_tls=config.verify_tls,
        timeout_s=config.timeout_s,
        transport=config.transport,
        request_timeout_s=config.request_timeout_s,
    ) as http:
        send: Send = functools.partial(
            send_request,
            http,
            config.resolved,
            api_key=config.api_key,
            extra_headers=config.extra_headers,
            tokenizer=config.tokenizer,
        )
        if config.num_warmups > 0 and specs and not cancel.is_set():
            await _unless_cancelled(run_warmups(send, specs[0], config.num_warmups, conc), cancel)
        if config.workers <= 1 and not config.ray_address:  # workers warm their own pools
            await client_mod.warm_pool(http, config.resolved.models_url, pool)
        scraper = ScraperThread(config, observers) if config.server_metrics else None
        if scraper is not None:
            await scraper.start()
        live = _Live(point.index, observers, state, scraper)
        grace_s = config.grace_s if early_stop is None else 0.0
        load = await _start_load(config, point, specs, make_spec, send, load_cancel, grace_s, live)
        ticking = asyncio.ensure_future(live.run())
        try:
            outcome, workers_block = await load
        finally:
            ticking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticking
            if scraper is not None:
                await scraper.stop()
        live.tick()
    # The client's own CPU over the point (every thread of this process): near one core, its
    # timestamps and send times are at risk and the bottleneck may be the client itself.
    cpu_share = (time.process_time_ns() - cpu_ns) / max(1, time.perf_counter_ns() - wall_ns)
    return Measured(
        outcome=outcome,
        workers_block=workers_block,
        started_at=started_at,
        cpu_share=cpu_share,
        lags_ms=live.lags_ms,
        scraper=scraper.scraper if scraper is not None else None,
    )


async def _start_load(
    config: RunContext,
    point: PointSpec,
    specs: list[RequestSpec],
    make_spec: MakeSpec,
    send: Send,
    cancel: asyncio.Event,
    grace_s: float,
    live: _Live,
) -> Load:
    """The point's load, started: conversations or single requests in this process's loop,
    or on load workers; a trace's offsets, when replaying one, set the send times."""
    wants_tokens = live.wants_tokens
    offsets = config.arrival_plan.offsets[: len(specs)] if config.arrival_plan else None
    conversations = config.conversations
    if conversations is None and (config.workers > 1 or config.ray_address):
        return asyncio.ensure_future(
            run_point_on_workers(
                config,
                point.request_rate,
                point.max_concurrency,
                specs,
                cancel=cancel,
                state=live.state,
                on_record=live.on_record,
                on_chunks=live.batch.on_chunks if wants_tokens else None,
                on_start=live.on_start,
                offsets=offsets,
            )
        )
    measured = functools.partial(send, on_chunk=live.batch.on_chunk) if wants_tokens else send
    common: dict[str, Any] = dict(
        request_rate=point.request_rate,
        burstiness=config.burstiness,
        seed=config.seed,
        max_concurrency=point.max_concurrency,
        cancel=cancel,
        grace_s=grace_s,
        on_record=live.on_record,
        state=live.state,
    )
    if conversations is not None:
        work = conversations.run(measured, make_spec=make_spec, **common)
    else:
        work = run_load(measured, specs, offsets=offsets, **common)
    load = asyncio.ensure_future(_in_process(work))
    await asyncio.sleep(0)  # let the load stamp its origin before the first tick
    live.on_start(live.state.origin_ns or time.perf_counter_ns())
    return load


async def _unless_cancelled(work: Coroutine[Any, Any, Any], cancel: asyncio.Event) -> None:
    """Await `work` unless `cancel` is set first, in which case it is cancelled."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait([task, stop], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, stop):
            pending.cancel()
        await asyncio.gather(task, stop, return_exceptions=True)


async def _in_process(load: Awaitable[LoadOutcome]) -> tuple[LoadOutcome, WorkersBlock | None]:
    # The same shape as run_point_on_workers' result: an in-process point has no workers block.
    return await load, None
