"""Scraping /metrics live during a point, and the block a result file stores from it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import httpx

from app.bench.http.body import MAX_METRICS_BODY_BYTES, get_small
from app.bench.http.client import make_client
from app.bench.http.endpoint import ResolvedEndpoint
from app.bench.http.failures import classify_exception
from app.bench.schema.point_blocks import ClientServerGap, ServerMetricsBlock
from app.bench.serverstats.parse import MetricsParseError, gauges_only, parse_metrics
from app.bench.serverstats.snapshot import MetricsSample, MetricsSnapshot, series_to_dict
from app.bench.serverstats.summary import summarize


class MetricsScraper:
    """Scrapes /metrics about once a second on its own connection until stopped (every
    `fast_interval_s` for the first `fast_for_s` seconds, when given: a short point still
    gets enough samples to show its shape).

    Times are seconds since `origin_ns` on `clock` (pass the sweep's clock and start so the
    series shares the latency charts' time axis). A failed scrape is skipped, not fatal.
    """

    def __init__(
        self,
        metrics_url: str,
        *,
        interval_s: float = 1.0,
        headers: dict[str, str] | None = None,
        verify_tls: bool = True,
        timeout_s: float = 2.0,
        request_timeout_s: float | None = 5.0,
        on_sample: Callable[[MetricsSample], None] | None = None,
        clock: Callable[[], int] = time.perf_counter_ns,
        origin_ns: int | None = None,
        max_samples: int = 86_400,
        max_scrapes: int = 3_600,
        gauges_after_first: bool = False,
        fast_interval_s: float | None = None,
        fast_for_s: float = 0.0,
    ) -> None:
        self.metrics_url = metrics_url
        self.interval_s = interval_s
        self.fast_interval_s = fast_interval_s
        self.fast_for_s = fast_for_s
        self._headers = dict(headers or {})
        self._verify_tls = verify_tls
        self._timeout_s = timeout_s
        # A scrape as a whole never takes longer than this (a dripping /metrics is skipped).
        self._deadline_s = min(x for x in (request_timeout_s, 5.0) if x is not None)
        self._on_sample = on_sample
        self._clock = clock
        self._origin_ns = origin_ns
        # Parsed pages carry histograms (a few kB each), so fewer are kept than light samples;
        # the first one is kept apart so whole-run deltas stay right on long runs.
        self._scrapes: deque[tuple[float, MetricsSnapshot]] = deque(maxlen=max_scrapes)
        self._first: tuple[float, MetricsSnapshot] | None = None
        self._samples: deque[MetricsSample] = deque(maxlen=max_samples)
        self._client: httpx.AsyncClient | None = None
        self._task: asyncio.Task[None] | None = None
        self._base_preemptions: float | None = None
        self._lock = asyncio.Lock()
        self.failures = 0
        self.last_error: str | None = None
        # A live view needs the gauges only: after the first full page (server kind, KV pool,
        # histogram baseline) the others are cut to those lines before parsing.
        self._gauges_after_first = gauges_after_first

    def __repr__(self) -> str:  # headers may carry a key: never show them
        return f"MetricsScraper({self.metrics_url!r}, samples={len(self._samples)})"

    @property
    def samples(self) -> list[MetricsSample]:
        return list(self._samples)

    @property
    def latest(self) -> MetricsSnapshot | None:
        return self._scrapes[-1][1] if self._scrapes else None

    @property
    def running(self) -> bool:
        """Scraping: on its own timer, or started without one (timer=False)."""
        if self._task is not None:
            return not self._task.done()
        return self._client is not None

    def now_s(self) -> float:
        return (self._clock() - (self._origin_ns or 0)) / 1e9

    def set_origin(self, origin_ns: int) -> None:
        """Re-base t_s on another instant of the same clock (e.g. the load's exact start)."""
        shift = ((origin_ns - self._origin_ns) / 1e9) if self._origin_ns is not None else 0.0
        self._origin_ns = origin_ns
        if shift:
            self._scrapes = deque(
                ((t - shift, snap) for t, snap in self._scrapes), self._scrapes.maxlen
            )
            self._samples = deque(
                (replace(s, t_s=s.t_s - shift) for s in self._samples), self._samples.maxlen
            )
            if self._first is not None:
                self._first = (self._first[0] - shift, self._first[1])

    @classmethod
    def for_endpoint(
        cls,
        resolved: ResolvedEndpoint,
        *,
        api_key: str | None = None,
        extra_headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> MetricsScraper:
        """A scraper for a ResolvedEndpoint's /metrics, sending the same auth headers."""
        from app.bench.http.auth import auth_headers

        headers = auth_headers(api_key, extra_headers)
        return cls(resolved.metrics_url, headers=dict(headers), **kwargs)

    @property
    def available(self) -> bool:
        """At least one scrape succeeded (False for a gateway without /metrics)."""
        return bool(self._scrapes)

    async def start(self, *, timer: bool = True) -> None:
        """Take the baseline scrape (histogram deltas count from it), then scrape on a timer
        (`timer=False`: the caller decides when, with scrape_now(); the window changes pace)."""
        if self._client is not None:
            return
        if self._origin_ns is None:
            self._origin_ns = self._clock()
        # The benchmark's own client (httpx's API on TPOT Bench's transport): fetching a
        # 13.7 kB page from the simulator costs 0.6-1.1 ms of thread CPU on it against
        # 1.8-1.9 ms on httpx's transport (200 scrapes, two runs each, load ~6.5), which the
        # window's dock pays beside a running benchmark.
        self._client = make_client(
            1,
            self._verify_tls,
            self._timeout_s,
            connect_timeout_s=self._timeout_s,
            request_timeout_s=self._deadline_s,
        )
        self._client.headers.update(self._headers)
        try:
            await self.scrape_now()
        except BaseException:
            await self.stop()
            raise
        if timer:
            self._task = asyncio.create_task(self._loop(), name="metrics-scraper")

    async def finish(self) -> None:
        """Close the window: the timer stops first, then one whole page is scraped, so the
        window's last scrape carries the histograms and counters (a gauges-only tick landing
        after it would cut the deltas off), then the connection closes."""
        await self._stop_timer()
        try:
            if self._client is not None:
                await self.scrape_now(full=True)
        finally:
            await self.stop()

    async def _stop_timer(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def stop(self) -> None:
        await self._stop_timer()
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def __aenter__(self) -> MetricsScraper:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _interval(self, elapsed_s: float) -> float:
        if self.fast_interval_s is not None and elapsed_s < self.fast_for_s:
            return self.fast_interval_s
        return self.interval_s

    async def _loop(self) -> None:
        begun = next_at = time.monotonic()
        while True:
            # Fixed cadence, not "sleep 1 s after each scrape", so a slow page does not drift.
            next_at += self._interval(next_at - begun)
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            await self.scrape_now()

    async def scrape_now(self, *, full: bool = False) -> MetricsSnapshot | None:
        """Scrape once (also between ticks, e.g. at a point boundary); None if it failed.
        `full` parses the whole page even when the ticks read the gauges only (the scrape
        that closes a point's window: its histograms and counters give the deltas)."""
        if self._client is None:
            raise RuntimeError("MetricsScraper.start() must be awaited first")
        async with self._lock:
            try:
                reply = await get_small(
                    self._client,
                    self.metrics_url,
                    max_bytes=MAX_METRICS_BODY_BYTES,
                    deadline_s=self._deadline_s,
                    what="the /metrics page",
                )
                if reply.status != 200:
                    raise MetricsParseError(f"HTTP {reply.status} from {self.metrics_url}")
                text = reply.body.decode("utf-8", "replace")
                if self._gauges_after_first and self._first is not None and not full:
                    text = gauges_only(text)
                snap = parse_metrics(text)
            except Exception as exc:  # a scrape that fails is skipped, whatever the reason
                self.failures += 1
                # the transport's own exception names mislead (a refused connection arrives
                # as a ConnectTimeout): for those the message says what happened instead
                if isinstance(exc, MetricsParseError):
                    message = f"{type(exc).__name__}: {exc}".splitlines()[0]
                else:
                    message = classify_exception(exc, after_headers=False)[1]
                self.last_error = message[:200]
                return None
            t_s = self.now_s()
            if self._base_preemptions is None:
                self._base_preemptions = snap.preemptions_total
            preempted = (
                snap.preemptions_total - self._base_preemptions
                if snap.preemptions_total is not None and self._base_preemptions is not None
                else None
            )
            sample = MetricsSample(t_s, snap.kv_cache_usage, snap.running, snap.waiting, preempted)
            self._scrapes.append((t_s, snap))
            if self._first is None:
                self._first = (t_s, snap)
            self._samples.append(sample)
        if self._on_sample is not None:
            self._on_sample(sample)
        return snap

    def series(
        self, t0_s: float | None = None, t1_s: float | None = None
    ) -> dict[str, list[float | None]]:
        return series_to_dict(s for s in self._samples if _inside(s.t_s, t0_s, t1_s))

    def summary(
        self, t0_s: float | None = None, t1_s: float | None = None, context_len: int | None = None
    ) -> ServerMetricsBlock:
        """Summary of [t0_s, t1_s]; histogram deltas run from the last scrape at or before t0_s."""
        scrapes = list(self._scrapes)
        if self._first is not None and (not scrapes or scrapes[0][1] is not self._first[1]):
            scrapes.insert(0, self._first)
        start = 0
        if t0_s is not None:
            before = [i for i, (t, _) in enumerate(scrapes) if t <= t0_s]
            start = before[-1] if before else 0
        window = [sc for sc in scrapes[start:] if t1_s is None or sc[0] <= t1_s]
        samples = [s for s in self._samples if _inside(s.t_s, t0_s, t1_s)]
        return summarize(window, samples, context_len)


def result_block(
    scraper: MetricsScraper,
    context_len: int | None = None,
    client: Mapping[str, float | None] | None = None,
) -> ServerMetricsBlock:
    """What a point's result file stores under tpotbench.server_metrics (schema 1).

    `client` is the point's vLLM-style summary: with it, server TTFT/ITL means are set beside
    the client's, and the gap (network + client overhead + queueing outside the engine) is given.
    """
    if not scraper.available:
        return scrape_error(scraper.metrics_url, scraper.last_error or "no successful scrape")
    block = scraper.summary(context_len=context_len)
    gaps: dict[str, ClientServerGap] | None = None
    if client:
        gaps = {}
        for key in ("ttft", "itl", "e2el"):
            phase = block.phase(key)
            server = phase.mean if phase is not None else None
            mine = client.get(f"mean_{key}_ms")
            if isinstance(server, int | float) and isinstance(mine, int | float):
                gaps[f"{key}_ms"] = ClientServerGap(mine, server, mine - server)
    return replace(
        block,
        schema=1,
        metrics_url=scraper.metrics_url,
        series=scraper.series(),
        vs_client=gaps,
    )


def scrape_error(metrics_url: str, error: str) -> ServerMetricsBlock:
    """The block of a point whose /metrics gave no summary: the URL and what went wrong."""
    return ServerMetricsBlock(schema=1, metrics_url=metrics_url, error=error)


def _inside(t: float, t0: float | None, t1: float | None) -> bool:
    return (t0 is None or t >= t0) and (t1 is None or t <= t1)
