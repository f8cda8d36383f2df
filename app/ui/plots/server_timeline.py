"""The server timeline's parts: the polling pace, sampled gauges as held steps, an m:ss axis."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import numpy as np
import pyqtgraph as pg

from app.bench.serverstats.scrape import MetricsScraper

IDLE_INTERVAL_S = 2.0
RUN_INTERVAL_S = 0.25
# A server without /metrics (a cloud gateway): ask again only every half minute.
BACKOFF_AFTER = 3
BACKOFF_INTERVAL_S = 30.0


def hold_steps(t: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each sample held until the next one: (t0, v0), (t1, v0), (t1, v1), (t2, v1), ..."""
    if len(t) < 2:
        return t.copy(), values.copy()
    x = np.repeat(t, 2)[1:]
    y = np.repeat(values, 2)[:-1]
    return x, y


class ElapsedAxis(pg.AxisItem):
    """Seconds on the axis written as m:ss (or h:mm:ss): the dock runs all day."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        out = []
        for v in values:
            total = round(v * scale)
            sign, total = ("-", -total) if total < 0 else ("", total)
            h, rest = divmod(total, 3600)
            m, sec = divmod(rest, 60)
            out.append(f"{sign}{h}:{m:02d}:{sec:02d}" if h else f"{sign}{m}:{sec:02d}")
        return out


class Poll:
    """What the polling task reads: kept apart from the widget so the task never holds it."""

    def __init__(self, idle_s: float, run_s: float) -> None:
        self.idle_s = idle_s
        self.run_s = run_s
        self.running = False
        self.paused = False
        self.wake = asyncio.Event()

    def interval(self, failures: int) -> float:
        if failures >= BACKOFF_AFTER:
            return BACKOFF_INTERVAL_S
        return self.run_s if self.running else self.idle_s


async def poll_metrics(scraper: MetricsScraper, poll: Poll, after: Callable[[], None]) -> None:
    """Scrape at `poll`'s pace (woken early when it changes) until cancelled; `after` is
    called after each attempt, on this loop's thread."""
    async with contextlib.AsyncExitStack() as stack:
        await scraper.start(timer=False)
        stack.push_async_callback(scraper.stop)
        after()
        while True:
            poll.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(poll.wake.wait(), poll.interval(scraper.failures))
            if not poll.paused:
                before = scraper.failures
                await scraper.scrape_now()
                if scraper.failures == before:
                    scraper.failures = 0  # back: the normal pace again
                after()


class ScrapeThread:
    """Runs the dock's polling coroutine on its own thread and asyncio loop.

    On the window's qasync loop every scrape went through Qt timers callback by callback:
    about 30 ms of the window's CPU per scrape, measured; on a plain loop it is about 4 ms
    (the request and a gauges-only parse), and never on the GUI thread. `finished` is done
    once the loop has closed (the connection with it).
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.finished: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._future: concurrent.futures.Future[None] | None = None
        self._thread = threading.Thread(target=self._run, name="metrics-dock", daemon=True)

    def start(self, coro: Coroutine[Any, Any, None]) -> None:
        self._thread.start()
        self._future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        self._future.add_done_callback(lambda _f: self.call(self.loop.stop))

    def call(self, fn: Callable[[], object]) -> None:
        """Run `fn` on the thread's loop (from any thread); nothing once it has closed."""
        with contextlib.suppress(RuntimeError):  # closed: nothing left to tell
            self.loop.call_soon_threadsafe(fn)

    def stop(self) -> concurrent.futures.Future[None]:
        """Cancel the coroutine on the loop's own thread; once it has ended (its connection
        closed, every task it started finished) the loop stops and closes. Cancelling its
        future from here instead ran a callback after the loop had closed ("Event loop is
        closed"), and stopping the loop at once left tasks it had just started unrun."""
        self.call(self._cancel_tasks)
        return self.finished

    def _cancel_tasks(self) -> None:
        for task in asyncio.all_tasks(self.loop):
            task.cancel()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
            # As asyncio.run() ends: every task left is cancelled and run to its end, so the
            # client closes and no task is destroyed pending.
            pending = asyncio.all_tasks(self.loop)
            for task in pending:
                task.cancel()
            if pending:
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        finally:
            self.loop.close()
            self.finished.set_result(None)
