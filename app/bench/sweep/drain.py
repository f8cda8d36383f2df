"""After a point stopped early: wait until the server has let go of the streams the client
dropped, so the next point does not start against them (a capacity search's next load would
otherwise meet a few extra streams). Bounded, and only where /metrics shows the server's
running-requests gauge."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from app.bench.schema.point_blocks import ServerDrain
from app.bench.serverstats.scrape import MetricsScraper
from app.bench.sweep.run_context import RunContext

DRAIN_LIMIT_S = 5.0
POLL_S = 0.1


@dataclass(frozen=True)
class Drain:
    """How the wait ended: `idle` when the gauge reached 0, else the limit ran out with
    `running` requests still on the server."""

    idle: bool
    waited_s: float
    running: float | None

    def block(self) -> ServerDrain:
        """tpotbench.early_stop.server_drain of the point's file."""
        return ServerDrain(self.idle, round(self.waited_s, 3), self.running, self.warning())

    def warning(self) -> str | None:
        if self.idle:
            return None
        return (
            f"the server still ran {self.running:g} request(s) {self.waited_s:.1f} s after the "
            "early stop; the next point may have started against them"
        )


async def wait_for_idle(
    scraper: MetricsScraper,
    *,
    limit_s: float = DRAIN_LIMIT_S,
    poll_s: float = POLL_S,
    clock: Callable[[], float] = time.monotonic,
) -> Drain | None:
    """Scrape until the running gauge is 0 or `limit_s` has passed; None when /metrics has no
    such gauge (a gateway, a server without /metrics): nothing to wait on."""
    start = clock()
    await scraper.start(timer=False)
    try:
        snap = scraper.latest
        if snap is None or snap.running is None:
            return None
        running: float | None = snap.running
        while True:
            waited = clock() - start
            if running is not None and running <= 0:
                return Drain(True, waited, running)
            if waited >= limit_s:
                return Drain(False, waited, running)
            await asyncio.sleep(poll_s)  # the next scrape; the condition is the gauge itself
            snap = await scraper.scrape_now()
            if snap is not None:
                running = snap.running
    finally:
        await scraper.stop()


async def drain_after_early_stop(config: RunContext, cancel: asyncio.Event) -> Drain | None:
    """wait_for_idle on the sweep's endpoint; None also when the run is cancelled meanwhile."""
    scraper = MetricsScraper.for_endpoint(
        config.resolved,
        api_key=config.api_key,
        extra_headers=config.extra_headers,
        verify_tls=config.verify_tls,
        timeout_s=min(2.0, config.timeout_s or 2.0),
        request_timeout_s=config.request_timeout_s,
    )
    waiting = asyncio.ensure_future(wait_for_idle(scraper))
    stop = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait([waiting, stop], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        if not waiting.done():
            waiting.cancel()
        await asyncio.gather(waiting, stop, return_exceptions=True)
    return None if waiting.cancelled() else waiting.result()
