"""What a running point reports as it goes: token arrivals batched between ticks, one event
per finished request, and /metrics samples scraped on a thread of their own."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from app.bench.http.record import RequestRecord
from app.bench.metrics.request import prompt_tokens_of, request_tpot, vllm_timings
from app.bench.serverstats.scrape import MetricsScraper
from app.bench.serverstats.snapshot import MetricsSample
from app.bench.sweep.contract import RequestDone, ServerMetrics
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.run_context import RunContext


class TokenBatch:
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
            point=point,
            ok=False,
            ttft_ms=None,
            tpot_ms=None,
            e2el_ms=None if e2el is None else e2el * 1000,
            output_tokens=record.output_tokens,
            error_kind=record.error_kind,
            prompt_tokens=prompt_tokens,
        )
    ttft, _, e2el, _ = vllm_timings(record)
    n = record.output_tokens
    tpot = request_tpot(ttft, e2el, n)
    return RequestDone(
        point=point,
        ok=True,
        ttft_ms=ttft * 1000,
        tpot_ms=None if tpot is None else tpot * 1000,
        e2el_ms=e2el * 1000,
        output_tokens=n,
        error_kind=None,
        prompt_tokens=prompt_tokens,
    )


class ScraperThread:
    """A MetricsScraper on its own thread and event loop: parsing a large /metrics page then
    never holds up the measuring loop (it can still take the GIL for a few ms at a time)."""

    def __init__(self, config: RunContext, observers: Sequence[SweepObserver]) -> None:
        sinks = list(observers)

        def on_sample(sample: MetricsSample) -> None:  # runs on the scraper's thread
            event = ServerMetrics(
                t_s=sample.t_s,
                kv_cache_usage=sample.kv_cache_usage,
                running=sample.running,
                waiting=sample.waiting,
                preemptions=sample.preemptions,
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
            # The gauges 10 times a second for the first half minute (a search's short
            # points get ~10 samples a second of evidence), then twice a second; the ticks
            # parse the gauges only, the scrapes that open and close the point the whole
            # page (their histogram and counter deltas cover the point exactly).
            interval_s=0.5,
            fast_interval_s=0.1,
            fast_for_s=30.0,
            gauges_after_first=True,
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
            # close the window at the point's end, with the whole page (histograms, counters)
            await self._call(self.scraper.finish())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            await asyncio.to_thread(self._thread.join, 10)
            self._loop.close()
