"""A sweep: the grid of request rates x concurrencies, run point by point, each saved at once."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.bench.capacity.slo import SLOSet, slo_block
from app.bench.datasets.prompts import SampleRequest
from app.bench.http import client as client_mod
from app.bench.http.endpoint import ResolvedEndpoint
from app.bench.http.models import ModelsError, fetch_models
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.http.stream import send_request
from app.bench.http.tokens import TokenCounter
from app.bench.load.arrivals import DEFAULT_GRACE_S, LoadState, run_load, run_warmups
from app.bench.load.schedule import ArrivalPlan
from app.bench.load.workers.point import run_point_on_workers
from app.bench.metrics.lateness import lateness_summary
from app.bench.metrics.options import DEFAULT_PERCENTILES
from app.bench.metrics.point import compute_point_metrics
from app.bench.metrics.request import prompt_tokens_of, request_tpot, vllm_timings
from app.bench.results.naming import point_filename
from app.bench.results.point_result import PointResult
from app.bench.results.read import point_from_dict
from app.bench.results.sweep_csv import write_sweep_csv
from app.bench.results.write import (
    PointInfo,
    build_result,
    ensure_writable_dir,
    roofline_block,
    write_point_json,
)
from app.bench.serverstats.scrape import MetricsScraper, result_block
from app.bench.serverstats.snapshot import MetricsSample
from app.bench.sweep.contract import (
    EndpointInfo,
    PointFinished,
    PointStarted,
    Progress,
    RequestDone,
    RunError,
    RunFinished,
    RunStarted,
    ServerMetrics,
    Tokens,
)
from app.bench.sweep.conversation_point import ConversationLoad
from app.bench.sweep.early_stop import EarlyStop
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.plan import PointSpec, plan_points
from app.bench.sweep.prefix_cache import (
    PrefixCacheReset,
    expected_share,
    hit_rate,
    is_loopback,
    stale_cache_warning,
)
from app.roofline.scenario import Scenario

TICK_S = 0.1
CSV_NAME = "sweep.csv"
ROOFLINE_KEYS = ("gpu_id", "model_id", "fmt", "kv_dtype", "context")


class UnreachableError(RuntimeError):
    """The endpoint did not answer at all before the sweep started (exit code 1)."""


class ResultWriteError(OSError):
    """A point's file could not be written; the message names it (the sweep goes on)."""


class ResultExistsError(FileExistsError):
    """A named result file is already there and --overwrite was not given (exit code 2)."""


def new_run_id(now: datetime | None = None) -> str:
    """Local date-time of the run (like vLLM's default file names) and 4 random hex digits."""
    stamp = (now or datetime.now(UTC)).astimezone().strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:4]}"


@dataclass
class SweepConfig:
    resolved: ResolvedEndpoint
    model: str
    backend: str
    samples: list[SampleRequest]
    rates: list[float]
    concurrencies: list[int | None]
    result_dir: Path
    label: str | None = None
    result_filename: str | None = None
    burstiness: float = 1.0
    seed: int = 0
    num_warmups: int = 0
    ignore_eos: bool = False
    goodput: dict[str, float] | None = None
    percentile_metrics: tuple[str, ...] = ("ttft", "tpot", "itl", "e2el")
    percentiles: tuple[float, ...] = DEFAULT_PERCENTILES
    save_detailed: bool = False
    extra_body: dict[str, Any] | None = None
    extra_headers: dict[str, str] | None = None
    api_key: str | None = field(default=None, repr=False)
    tokenizer: TokenCounter | None = None
    tokenizer_id: str | None = None
    dataset_name: str = "sharegpt"
    dataset_path: str | None = None
    profile: str | None = None
    grace_s: float = DEFAULT_GRACE_S
    verify_tls: bool = True
    transport: client_mod.Transport = "aiohttp"
    write_csv: bool = True
    # GPU/model/format/KV dtype/context (the roofline panel's keys, see check_roofline): each
    # point's file gets it with the floor at the point's batch and the MBU of its TPOT p50.
    roofline: dict[str, Any] | None = None
    server_metrics: bool = False  # scrape /metrics during each point (on its own thread)
    run_id: str = field(default_factory=new_run_id)
    overwrite: bool = False  # replace result files of the same name from an earlier run
    # Load workers (app/bench/load/workers): processes on this machine, or Ray actors when a Ray
    # address is set; 1 without Ray runs the point in this process.
    workers: int = 1
    ray_address: str | None = None
    # Without --label: "{backend}-{date-time}", made unique in the folder by plan_targets.
    default_label: str | None = None
    timeout_s: float | None = client_mod.DEFAULT_READ_TIMEOUT_S  # longest silence
    request_timeout_s: float | None = client_mod.DEFAULT_REQUEST_TIMEOUT_S  # whole request
    slos: SLOSet | None = None  # judged per point (tpotbench.slo); goodput counted with them
    # POST /reset_prefix_cache before each point; None = only for a server on this machine.
    reset_prefix_cache: bool | None = None
    # --multi-turn: every point runs these sessions instead of `samples`.
    conversations: ConversationLoad | None = None
    # A trace replay: every point sends on the trace's own clock (its offsets, in sample
    # order) instead of vLLM's arrival process, and records `trace` in its tpotbench block.
    arrival_plan: ArrivalPlan | None = None
    trace: dict[str, Any] | None = None
    _resetter: PrefixCacheReset | None = field(default=None, init=False, repr=False)

    @property
    def endpoint_info(self) -> EndpointInfo:
        """The endpoint as run_started reports it."""
        return EndpointInfo(self.resolved.url, self.model, self.resolved.api)

    @property
    def points(self) -> list[PointSpec]:
        return plan_points(self.rates, self.concurrencies)

    @property
    def num_requests(self) -> int:
        """Requests per point: the prompts, or every turn of every conversation."""
        if self.conversations is not None:
            return self.conversations.num_requests
        return len(self.samples)

    @property
    def resets_prefix_cache(self) -> bool:
        if self.reset_prefix_cache is None:
            return is_loopback(self.resolved.url)
        return self.reset_prefix_cache

    @property
    def effective_goodput(self) -> dict[str, float] | None:
        """vLLM's --goodput limits, else per-request limits taken from the SLOs."""
        if self.goodput:
            return self.goodput
        return (self.slos.goodput_limits() or None) if self.slos else None

    async def reset_cache(self) -> str | None:
        """Reset the server's prefix cache if this run does; the outcome, None if not asked."""
        if not self.resets_prefix_cache:
            return None
        if self._resetter is None:
            self._resetter = PrefixCacheReset(
                self.resolved,
                api_key=self.api_key,
                extra_headers=self.extra_headers,
                verify_tls=self.verify_tls,
            )
        return await self._resetter.reset()

    def path_for(self, point: PointSpec) -> Path:
        if self.result_filename:
            return self.result_dir / self.result_filename
        label = self.label or self.default_label or f"{self.backend}-{self.run_id[:15]}"
        return self.result_dir / point_filename(label, point.request_rate, point.max_concurrency)

    def targets(self) -> list[Path]:
        """Each point's file, in plan order; the same (rate, concurrency) twice keeps both."""
        paths: list[Path] = []
        for point in self.points:
            target = self.path_for(point)
            if target in paths:
                target = target.with_name(f"{target.stem}_{point.index}{target.suffix}")
            paths.append(target)
        return paths

    def plan_targets(self) -> list[Path]:
        """The files this run will write. A default (date-time) name never replaces an earlier
        run's file: it gets a -2, -3 ... suffix. A name the user chose (--label,
        --result-filename) that exists raises ResultExistsError unless `overwrite` is set."""
        if self.overwrite:
            return self.targets()
        if self.label or self.result_filename:
            taken = [p for p in self.targets() if p.exists() or _partial(p).exists()]
            if taken:
                raise ResultExistsError(
                    f"{taken[0]} exists (an earlier run); pass --overwrite to replace it, or "
                    "choose another --label or --result-dir"
                )
            return self.targets()
        base = f"{self.backend}-{self.run_id[:15]}"
        for n in range(1, 1000):
            self.default_label = base if n == 1 else f"{base}-{n}"
            paths = self.targets()
            if not any(p.exists() or _partial(p).exists() for p in paths):
                return paths
        raise ResultExistsError(f"{self.result_dir}: no free file name for {base}")


def _partial(path: Path) -> Path:
    return path.with_name(path.stem + ".partial.json")


@dataclass
class SweepOutcome:
    paths: list[Path]
    csv: Path | None
    cancelled: bool
    results: list[dict[str, Any]]
    write_errors: list[str] = field(default_factory=list)

    @property
    def empty_points(self) -> list[dict[str, Any]]:
        """Saved points in which no request succeeded (their latency figures are null)."""
        return [r for r in self.results if not r.get("completed")]


def key_refused_message(status: int, url: str, api_key: str | None) -> str:
    """A 401/403 said as the key problem it is, before anything about paths or models."""
    if not (api_key or "").strip():
        return (
            f"HTTP {status} from {url}: the server wants an API key and none was sent; "
            "export OPENAI_API_KEY=... (or name your variable with --api-key-env)"
        )
    return (
        f"HTTP {status} from {url}: the server rejected the API key (a key for another "
        "endpoint, mistyped, or expired); check the key, or run 'tpotbench doctor'"
    )


async def fetch_first_model(
    resolved: ResolvedEndpoint,
    api_key: str | None,
    extra_headers: dict[str, str] | None,
    verify_tls: bool = True,
    *,
    timeout_s: float | None = 10.0,
    request_timeout_s: float | None = 60.0,
) -> str | None:
    """Check the server answers at all and return the first model id of /v1/models (as
    vLLM does without --model), or None if that list is not available there.
    Raises UnreachableError if nothing answers (or the answer is oversized or never ends):
    ``timeout_s`` is the longest silence, ``request_timeout_s`` the whole request."""
    url = resolved.models_url
    try:
        listing = await fetch_models(
            url,
            api_key=api_key,
            headers=extra_headers,
            verify_tls=verify_tls,
            timeout_s=timeout_s,
            request_timeout_s=request_timeout_s,
        )
    except ModelsError as exc:
        raise UnreachableError(str(exc)) from None
    if listing.status in (401, 403):
        raise UnreachableError(key_refused_message(listing.status, url, api_key))
    return listing.first() if listing.status == 200 else None


def check_roofline(context: dict[str, Any]) -> dict[str, Any]:
    """A roofline context with every key, as the roofline panel stores it; CatalogError
    (a ValueError naming the unknown id) when an id is not in the catalogue."""
    missing = [k for k in ROOFLINE_KEYS[:4] if not context.get(k)]
    if missing:
        raise ValueError(f"roofline context lacks {', '.join(missing)}")
    try:
        tokens = int(context.get("context") or 512)
    except (TypeError, ValueError):
        raise ValueError(
            f"roofline context length {context.get('context')!r} is not a number"
        ) from None
    if tokens < 0:
        raise ValueError(f"roofline context length must not be negative, got {tokens}")
    ids = {k: str(context[k]) for k in ROOFLINE_KEYS[:4]}
    Scenario.from_ids(**ids, context=tokens)
    return {**ids, "context": tokens}


def roofline_batch(
    point: PointSpec, outcome: Any, num_prompts: int, server: dict[str, Any] | None
) -> tuple[float, str] | None:
    """The decode batch a point ran at, and where that figure comes from: the server's mean
    running-requests gauge when scraped; else the concurrency limit of an unlimited-rate point
    (the slots stay full); else the time-averaged number of requests in flight (Little's law:
    summed request time / duration). None when nothing finished."""
    running = ((server or {}).get("running") or {}).get("mean")
    if isinstance(running, int | float) and not isinstance(running, bool) and running > 0:
        return float(running), "server_running"
    if point.max_concurrency is not None and math.isinf(point.request_rate):
        return float(min(point.max_concurrency, num_prompts)), "concurrency"
    busy_ns = sum(r.end_ns - r.send_ns for r in outcome.records if r.end_ns > r.send_ns)
    duration_s = outcome.duration_s
    if busy_ns <= 0 or duration_s <= 0:
        return None
    return busy_ns / 1e9 / duration_s, "mean_in_flight"


def _longest_context(metrics: Any) -> int | None:
    """The longest prompt + reply that succeeded: how many such requests the KV pool holds."""
    lengths = [
        i + o
        for i, o, kind in zip(
            metrics.input_lens, metrics.output_lens, metrics.error_kinds, strict=True
        )
        if kind is None and i + o > 0
    ]
    return max(lengths, default=None)


def _csv_sort_key(point: PointResult) -> tuple[str, float, float]:
    conc = point.max_concurrency if point.max_concurrency is not None else math.inf
    return (point.label or "", conc, point.request_rate)


class _TokenBatch:
    """Chunk arrivals collected between ticks, for the `tokens` event."""

    def __init__(self) -> None:
        self.t_s: list[float] = []
        self.itl_ms: list[float] = []
        self.origin_ns = 0

    def on_chunk(self, record: RequestRecord, t_ns: int) -> None:
        ns = record.chunk_ns
        if len(ns) >= 2:
            self.t_s.append((t_ns - self.origin_ns) / 1e9)
            self.itl_ms.append((ns[-1] - ns[-2]) / 1e6)

    def on_chunks(self, t_ns: Sequence[int], itl_ms: Sequence[float]) -> None:
        """Chunk arrivals a load worker saw, already on this process's clock."""
        self.t_s.extend((t - self.origin_ns) / 1e9 for t in t_ns)
        self.itl_ms.extend(itl_ms)

    def take(self) -> tuple[list[float], list[float]]:
        t_s, itl_ms = self.t_s, self.itl_ms
        self.t_s, self.itl_ms = [], []
        return t_s, itl_ms


def request_done(point: int, record: RequestRecord) -> RequestDone:
    """A finished request's event (vLLM's definitions; a failure's e2el is when it failed)."""
    prompt_tokens = prompt_tokens_of(record)
    if not record.ok:
        e2el = (record.end_ns - record.send_ns) / 1e9 if record.end_ns else None
        return RequestDone(
            point,
            False,
            None,
            None,
            None if e2el is None else e2el * 1000,
            record.output_tokens,
            record.error_kind,
            prompt_tokens,
        )
    ttft, _, e2el, _ = vllm_timings(record)
    n = record.output_tokens
    tpot = request_tpot(ttft, e2el, n)
    return RequestDone(
        point,
        True,
        ttft * 1000,
        None if tpot is None else tpot * 1000,
        e2el * 1000,
        n,
        None,
        prompt_tokens,
    )


class _ScraperThread:
    """A MetricsScraper on its own thread and event loop: parsing a large /metrics page then
    never holds up the measuring loop (it can still take the GIL for a few ms at a time)."""

    def __init__(self, config: SweepConfig, observers: Sequence[SweepObserver]) -> None:
        sinks = list(observers)

        def on_sample(sample: MetricsSample) -> None:  # runs on the scraper's thread
            event = ServerMetrics(
                sample.t_s,
                sample.kv_cache_usage,
                sample.running,
                sample.waiting,
                sample.preemptions,
            )
            for obs in sinks:
                obs.server_metrics(event)

        self.scraper = MetricsScraper.for_endpoint(
            config.resolved,
            api_key=config.api_key,
            extra_headers=config.extra_headers,
            verify_tls=config.verify_tls,
            on_sample=on_sample,
            timeout_s=min(2.0, config.timeout_s or 2.0),
            request_timeout_s=config.request_timeout_s,
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="metrics", daemon=True)

    async def _call(self, coro: Any) -> Any:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    async def start(self) -> None:
        self._thread.start()
        await self._call(self.scraper.start())  # the baseline scrape, before the load starts

    def set_origin(self, origin_ns: int) -> None:
        self._loop.call_soon_threadsafe(self.scraper.set_origin, origin_ns)

    async def stop(self) -> None:
        try:
            await self._call(self.scraper.scrape_now())  # close the window at the point's end
            await self._call(self.scraper.stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            await asyncio.to_thread(self._thread.join, 10)
            self._loop.close()


def _lag_summary(lags_ms: list[float]) -> dict[str, float] | None:
    if not lags_ms:
        return None
    ordered = sorted(lags_ms)
    return {
        "median": round(ordered[len(ordered) // 2], 3),
        "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
        "max": round(ordered[-1], 3),
    }


async def _unless_cancelled(work: Any, cancel: asyncio.Event) -> None:
    """Await `work` unless `cancel` is set first, in which case it is cancelled."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait([task, stop], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, stop):
            pending.cancel()
        await asyncio.gather(task, stop, return_exceptions=True)


async def _in_process(load: Any) -> tuple[Any, dict[str, Any] | None]:
    # The same shape as run_point_on_workers' result: an in-process point has no workers block.
    return await load, None


async def run_point(
    config: SweepConfig,
    point: PointSpec,
    observers: Sequence[SweepObserver],
    cancel: asyncio.Event,
    path: Path | None = None,
    early_stop: EarlyStop | None = None,
    samples: Sequence[SampleRequest] | None = None,
) -> tuple[Path | None, dict[str, Any]]:
    """Run one point (warmups first, not counted), save its JSON (to `path`, default from the
    config's naming) and return (path, result); the path is None for a point cancelled before
    any request finished, which is not saved.

    `early_stop` ends the point once it has provably failed an SLO (in-flight requests are
    dropped: the verdict is already known); the file then says so. `samples` runs the first
    requests of the dataset only (a search sizes its points), default all of them."""
    started = PointStarted.of(point)
    for obs in observers:
        obs.point_started(started)
    samples = list(config.samples if samples is None else samples)
    cache_reset: str | None = None
    if not cancel.is_set():

        async def reset() -> None:
            nonlocal cache_reset
            cache_reset = await config.reset_cache()

        await _unless_cancelled(reset(), cancel)
    load_cancel = cancel
    linked: asyncio.Future[Any] | None = None
    if early_stop is not None:
        observers = [*observers, early_stop]
        load_cancel = early_stop.event
        linked = asyncio.ensure_future(cancel.wait())
        linked.add_done_callback(lambda _: early_stop.event.set())
    conc = point.max_concurrency
    pool = min(conc or len(samples), len(samples)) or 1
    conversations = config.conversations
    if conversations is not None:
        pool = conversations.pool_size(conc)
    num_requests = len(samples) if conversations is None else conversations.num_requests
    prefix = f"tpotbench-{uuid.uuid4().hex[:8]}-"
    specs = [
        RequestSpec(
            s.prompt,
            s.prompt_len,
            s.expected_output_len,
            ignore_eos=config.ignore_eos,
            model=config.model,
            extra_body=config.extra_body,
            request_id=prefix + s.request_id,
        )
        for s in samples
    ]
    offsets = config.arrival_plan.offsets[: len(specs)] if config.arrival_plan else None
    batch = _TokenBatch()
    wants_tokens = any(obs.wants_tokens for obs in observers)
    state = LoadState(total=num_requests)
    started_at = datetime.now(UTC)
    cpu_ns, wall_ns = time.process_time_ns(), time.perf_counter_ns()
    async with client_mod.make_client(
        pool,
        verify_tls=config.verify_tls,
        timeout_s=config.timeout_s,
        transport=config.transport,
        request_timeout_s=config.request_timeout_s,
    ) as http:
        send = functools.partial(
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
        scraper = _ScraperThread(config, observers) if config.server_metrics else None
        if scraper is not None:
            await scraper.start()
        measured = functools.partial(send, on_chunk=batch.on_chunk) if wants_tokens else send

        def on_record(index: int, record: RequestRecord) -> None:
            event = request_done(point.index, record)
            for obs in observers:
                obs.request(event)

        def tick() -> None:
            elapsed = max(0.0, (time.perf_counter_ns() - state.origin_ns) / 1e9)
            t_s, itl_ms = batch.take()
            tokens = Tokens(point.index, t_s, itl_ms) if t_s else None
            progress = Progress(
                point.index,
                state.completed,
                state.failed,
                state.total,
                state.in_flight,
                elapsed,
                state.output_tokens / elapsed if elapsed > 0 else 0.0,
            )
            for obs in observers:
                if tokens is not None:
                    obs.tokens(tokens)
                obs.progress(progress)

        lags_ms: list[float] = []

        async def ticker() -> None:
            while True:
                due = time.perf_counter_ns() + int(TICK_S * 1e9)
                await asyncio.sleep(TICK_S)
                # How late the loop woke: a busy client stamps every token this late too.
                lags_ms.append(max(0.0, (time.perf_counter_ns() - due) / 1e6))
                tick()

        def on_start(origin_ns: int) -> None:
            batch.origin_ns = origin_ns
            if scraper is not None:
                scraper.set_origin(origin_ns)

        if conversations is not None:

            def turn_spec(messages: Any, prompt_len: int, max_tokens: int, rid: str) -> Any:
                return RequestSpec(
                    messages,
                    prompt_len,
                    max_tokens,
                    ignore_eos=config.ignore_eos,
                    model=config.model,
                    extra_body=config.extra_body,
                    request_id=prefix + rid,
                )

            load = asyncio.ensure_future(
                _in_process(
                    conversations.run(
                        measured,
                        request_rate=point.request_rate,
                        burstiness=config.burstiness,
                        seed=config.seed,
                        max_concurrency=conc,
                        make_spec=turn_spec,
                        cancel=load_cancel,
                        grace_s=config.grace_s if early_stop is None else 0.0,
                        on_record=on_record,
                        state=state,
                    )
                )
            )
            await asyncio.sleep(0)
            on_start(state.origin_ns or time.perf_counter_ns())
        elif config.workers > 1 or config.ray_address:
            load = asyncio.ensure_future(
                run_point_on_workers(
                    config,
                    point.request_rate,
                    conc,
                    specs,
                    cancel=load_cancel,
                    state=state,
                    on_record=on_record,
                    on_chunks=batch.on_chunks if wants_tokens else None,
                    on_start=on_start,
                    offsets=offsets,
                )
            )
        else:
            load = asyncio.ensure_future(
                _in_process(
                    run_load(
                        measured,
                        specs,
                        request_rate=point.request_rate,
                        burstiness=config.burstiness,
                        seed=config.seed,
                        max_concurrency=conc,
                        cancel=load_cancel,
                        grace_s=config.grace_s if early_stop is None else 0.0,
                        on_record=on_record,
                        state=state,
                        offsets=offsets,
                    )
                )
            )
            await asyncio.sleep(0)  # let run_load stamp its origin before the first tick
            on_start(state.origin_ns or time.perf_counter_ns())
        ticking = asyncio.ensure_future(ticker())
        try:
            outcome, workers_block = await load
        finally:
            ticking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticking
            if scraper is not None:
                await scraper.stop()
            if linked is not None:
                linked.cancel()
        tick()
    # The client's own CPU over the point (every thread of this process): near one core, its
    # timestamps and send times are at risk and the bottleneck may be the client itself.
    cpu_share = (time.process_time_ns() - cpu_ns) / max(1, time.perf_counter_ns() - wall_ns)
    stopped_early = early_stop is not None and early_stop.reason is not None
    stopped_early = stopped_early and not cancel.is_set()
    goodput = config.effective_goodput
    metrics = compute_point_metrics(
        outcome.records,
        outcome.duration_s,
        percentiles=config.percentiles,
        goodput=goodput,
        origin_ns=outcome.origin_ns,
        count_queue_in_e2el=conc is not None and not math.isinf(point.request_rate),
    )
    info = PointInfo(
        backend=config.backend,
        model_id=config.model,
        endpoint_url=config.resolved.url,
        api=config.resolved.api,
        num_prompts=num_requests,
        request_rate=point.request_rate,
        max_concurrency=conc,
        burstiness=config.burstiness,
        label=config.label,
        tokenizer_id=config.tokenizer_id,
        point_index=point.index,
        percentile_metrics=config.percentile_metrics,
        percentiles=config.percentiles,
        goodput=goodput,
        num_warmups=config.num_warmups,
        seed=config.seed,
        dataset_name=config.dataset_name,
        dataset_path=config.dataset_path,
        profile=config.profile,
        run_id=config.run_id,
    )
    server_block = None
    if scraper is not None:
        # Whatever the server's /metrics held, the point is saved: a summary that fails is
        # recorded as an error in its block.
        try:
            server_block = result_block(
                scraper.scraper,
                context_len=_longest_context(metrics),
                client=(
                    {f"mean_{k}_ms": metrics.stats[k].mean for k in ("ttft", "itl", "e2el")}
                    if metrics.completed
                    else None
                ),
            )
        except Exception as exc:
            server_block = {
                "schema": 1,
                "metrics_url": scraper.scraper.metrics_url,
                "error": f"summary failed: {type(exc).__name__}: {exc}"[:300],
            }
    roofline = None
    if config.roofline:
        found = roofline_batch(point, outcome, num_requests, server_block)
        tpot = metrics.stats.get("tpot")
        p50 = tpot.median if tpot is not None and metrics.completed else None
        roofline = dict(config.roofline)
        if found is not None:
            # A context check_roofline did not vet is still recorded, just without a floor.
            with contextlib.suppress(KeyError, ValueError, ArithmeticError):
                roofline = roofline_block(config.roofline, *found, p50)
    result = build_result(
        info,
        metrics,
        save_detailed=config.save_detailed,
        cancelled=outcome.cancelled and not stopped_early,
        aborted=outcome.aborted,
        not_sent=outcome.not_sent,
        started_at=started_at,
        roofline=roofline,
        server_metrics=server_block,
    )
    if workers_block is not None:
        result["tpotbench"]["workers"] = workers_block
    block = result["tpotbench"]
    block["client"] = {"cpu_share": round(cpu_share, 4), "loop_lag_ms": _lag_summary(lags_ms)}
    warning = stale_cache_warning(server_block, cache_reset, expected_share(samples, config.trace))
    if conversations is not None:
        # A later turn resends its history: hits up to that share are the workload's own.
        history = conversations.annotate(result, outcome, metrics)["history_share"] or 0.0
        if (hit_rate(server_block) or 0.0) <= history + 0.05:
            warning = None
    block["prefix_cache"] = {
        "reset": cache_reset,
        "hit_rate": hit_rate(server_block),
        "warning": warning,
    }
    block["schedule_lateness_ms"] = lateness_summary(outcome.records)
    if config.trace:
        block["trace"] = config.trace
    if stopped_early:
        block["early_stop"] = {"reason": early_stop.reason} if early_stop else None
    if config.slos:
        stats = {
            k: {
                "mean": v.mean,
                "median": v.median,
                **{f"p{w}": x for w, x in v.percentiles.items()},
            }
            for k, v in metrics.stats.items()
        }
        block["slo"] = slo_block(
            config.slos,
            stats,
            completed=metrics.completed,
            failed=metrics.failed,
            goodput=metrics.request_goodput,
            duration_s=metrics.duration_s,
        )
        if stopped_early:  # an early stop is a proven failure even if the finished part passed
            block["slo"]["passed"] = False
    path = path or config.path_for(point)
    if outcome.cancelled and not stopped_early:
        if not outcome.records:  # cancelled before anything finished: nothing worth a file
            return None, result
        # A partial point never replaces a complete file of the same name from an earlier run.
        path = _partial(path)
    try:
        return write_point_json(path, result), result
    except OSError as exc:
        raise ResultWriteError(f"cannot write {path}: {exc.strerror or exc}") from None


async def run_sweep(
    config: SweepConfig,
    observers: Sequence[SweepObserver],
    cancel: asyncio.Event | None = None,
) -> SweepOutcome:
    """Run every point in order; a point's JSON (and sweep.csv) is on disk before the next
    point starts. After a cancel, the interrupted point is saved (marked cancelled) and the
    remaining points are skipped."""
    cancel = cancel or asyncio.Event()
    points = config.points
    targets = config.plan_targets()
    ensure_writable_dir(config.result_dir)
    started = RunStarted(tuple(points), config.num_requests, config.endpoint_info)
    for obs in observers:
        obs.run_started(started)
    paths: list[Path] = []
    results: list[dict[str, Any]] = []
    rows: list[PointResult] = []  # this run's points only: sweep.csv never mixes two runs
    csv_path: Path | None = None
    write_errors: list[str] = []
    for point, target in zip(points, targets, strict=True):
        if cancel.is_set():
            break
        try:
            path, result = await run_point(config, point, observers, cancel, target)
        except ResultWriteError as exc:  # a full disk, say: this point is lost, not the others
            message = str(exc)
            write_errors.append(message)
            for obs in observers:
                obs.error(RunError(message))
            continue
        if path is None:
            break
        paths.append(path)
        results.append(result)
        if config.write_csv:
            rows.append(point_from_dict(result, path))
            try:
                csv_path = write_sweep_csv(
                    config.result_dir / CSV_NAME, sorted(rows, key=_csv_sort_key)
                )
            except OSError as exc:
                message = f"cannot write {config.result_dir / CSV_NAME}: {exc.strerror or exc}"
                write_errors.append(message)
                for obs in observers:
                    obs.error(RunError(message))
        finished = PointFinished(point.index, str(path), result)
        for obs in observers:
            obs.point_finished(finished)
    cancelled = cancel.is_set()
    ended = RunFinished(cancelled, tuple(map(str, paths)), str(csv_path) if csv_path else None)
    for obs in observers:
        obs.run_finished(ended)
    return SweepOutcome(paths, csv_path, cancelled, results, write_errors)
