"""What a sweep, probe or capacity search reports, as it happens: one typed event per call.

The terminal's progress lines, the JSON-lines writer, a point's early stop and the search's
console are observers; the window gets the same objects back from the worker's stream.
"""

from __future__ import annotations

from typing import ClassVar

from app.bench.sweep.contract import (
    Event,
    PointFinished,
    PointStarted,
    Progress,
    RequestDone,
    RunError,
    RunFinished,
    RunStarted,
    SearchFinished,
    SearchValue,
    ServerMetrics,
    Tokens,
)


class SweepObserver:
    """Subclass and override the events you use; each method not overridden hands its event
    to `on_event`, which does nothing (the stream writer overrides `on_event` and takes them
    all). There is one method per event class, named after its `kind`.

    Threads (what every caller keeps and every observer may rely on):
      - `server_metrics` is called on the /metrics scraper's own thread (named "metrics",
        app.bench.sweep.live.ScraperThread), at any moment while a point runs: an override
        must be thread-safe, quick, and must not touch the measuring loop's objects (use
        `loop.call_soon_threadsafe` to hand something over).
      - every other method is called on the thread that runs the measuring event loop, one
        call at a time and in the order the events happen; an override that blocks delays
        the measurement.
      - `on_event` runs on the thread of the method that hands the event to it, so an
        observer that keeps the default methods and overrides only `on_event` gets calls
        from both threads.
    tests/bench/sweep/test_observer_threads.py checks this on real sweeps and searches.

    `wants_tokens = False` tells the runner nobody here needs per-chunk arrivals, so a point
    run only for such observers does not collect them."""

    # The methods called on the scraper's thread; all others on the measuring loop's.
    SCRAPER_THREAD_METHODS: ClassVar[frozenset[str]] = frozenset({"server_metrics"})

    wants_tokens: bool = True

    def on_event(self, event: Event) -> None:
        """Any event without a method of its own here."""

    def run_started(self, event: RunStarted) -> None:
        self.on_event(event)

    def point_started(self, event: PointStarted) -> None:
        self.on_event(event)

    def tokens(self, event: Tokens) -> None:
        self.on_event(event)

    def progress(self, event: Progress) -> None:
        self.on_event(event)

    def request(self, event: RequestDone) -> None:
        self.on_event(event)

    def point_finished(self, event: PointFinished) -> None:
        self.on_event(event)

    def server_metrics(self, event: ServerMetrics) -> None:
        """Called on the scraper's thread, not the measuring loop's (see the class)."""
        self.on_event(event)

    def run_finished(self, event: RunFinished) -> None:
        self.on_event(event)

    def error(self, event: RunError) -> None:
        self.on_event(event)

    def search_value(self, event: SearchValue) -> None:
        self.on_event(event)

    def search_finished(self, event: SearchFinished) -> None:
        self.on_event(event)
