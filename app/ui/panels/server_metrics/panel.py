"""The Server metrics dock: the server's own gauges against time, read from its /metrics.

The dock scrapes the selected endpoint's /metrics itself, whenever it has one: every 2 s while
idle, 4 times a second while a probe runs, never while paused. While a sweep runs against the
endpoint it watches, the sweep's worker is the one reader of that /metrics (its samples go into
each point's file) and the dock shows the worker's samples (`follow_run`, `add_run_sample`)
instead of asking the server too. Its samples share one clock from the moment it started
watching the endpoint, so a sweep is one continuous timeline with its point boundaries marked.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from PySide6.QtCore import Property, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.bench.serverstats.scrape import MetricsScraper
from app.bench.serverstats.snapshot import MetricsSample
from app.bench.sweep.contract import ServerMetrics
from app.ui.panels.server_metrics.charts import COLUMNS, TimelineCharts
from app.ui.panels.server_metrics.readout import describe, server_label
from app.ui.plots.server_timeline import (
    IDLE_INTERVAL_S,
    RUN_INTERVAL_S,
    Poll,
    ScrapeThread,
    poll_metrics,
)
from app.ui.retranslate import TextSource, is_language_change
from app.ui.theme import apply_plot_theme


def endpoint_key(target: Any) -> tuple[object, ...]:
    """What makes two targets the same /metrics to read: its URL, API, model, whether a key
    goes with it and TLS checking (a Target, or anything with those attributes)."""
    return (
        getattr(target, "base_url", ""),
        getattr(target, "api", ""),
        getattr(target, "model", ""),
        bool(getattr(target, "api_key", "")),
        getattr(target, "verify_tls", True),
    )


def _number(value: Any) -> float:
    try:
        return float(value) if value is not None else math.nan
    except (TypeError, ValueError):
        return math.nan


class ServerMetricsPanel(QWidget):
    """Charts of the server's own gauges against time, fed by add_sample() or its own scraper.

    Signals:
        statusTextChanged(str): the one-line readout for the status bar changed.
        sampled(dict): a sample was added (t_s, kv_cache_usage in %, running, waiting, ...).
    """

    statusTextChanged = Signal(str)
    sampled = Signal(dict)
    _sampleIn = Signal(dict, str, object, object)
    _polled = Signal()

    def __init__(
        self, parent: QWidget | None = None, capacity: int = 20_000, repaint_ms: int = 1000
    ) -> None:
        super().__init__(parent)
        self._dirty = False
        self._status = ""
        self._server = ""
        self._kv_capacity: int | None = None
        self._scraper: MetricsScraper | None = None
        self._thread: ScrapeThread | None = None
        self._poll = Poll(IDLE_INTERVAL_S, RUN_INTERVAL_S)
        self._user_paused = False
        self._watched: tuple[object, ...] | None = None  # the endpoint the own scraper reads
        self._run_key: tuple[object, ...] | None = None  # the endpoint a sweep runs against
        # A run's sample times are on its point's clock: the offset onto this dock's clock,
        # the dock's time when the point started (its point_started event, `mark`); None
        # before any point of the followed run started.
        self._run_offset_s: float | None = None
        # Stop scraping when the widget goes away; the closure must not hold self.
        threads: list[ScrapeThread] = []
        self._threads = threads
        self.destroyed.connect(lambda *_: [t.stop() for t in list(threads)])
        # Samples come from the scraping thread; Qt queues them to this (the GUI) thread.
        self._sampleIn.connect(self._take_sample)
        self._polled.connect(self._on_polled)

        self.charts = TimelineCharts(capacity=capacity)
        self._buffer = self.charts.buffer
        charts = self.charts
        self.kv_plot, self.queue_plot, self.preempt_plot = charts.plots()
        self.kv_curve, self.running_curve = charts.kv_curve, charts.running_curve
        self.waiting_curve, self.preempt_curve = charts.waiting_curve, charts.preempt_curve

        apply_plot_theme(self)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.pause_button = QToolButton()
        self.pause_button.setCheckable(True)
        self.pause_button.toggled.connect(self.set_paused)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.message, 1)
        top.addWidget(self.pause_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.charts, 1)

        # Samples arrive up to 4 times a second; they are drawn (with the readout) at most
        # once a second, only here, never on arrival: the window's CPU is the worker's too.
        self._timer = QTimer(self)
        self._timer.setInterval(repaint_ms)
        self._timer.timeout.connect(self._repaint)
        self._timer.start()
        self.retranslate()

    # -- data in -------------------------------------------------------------------------------

    def add_sample(self, sample: Mapping[str, Any]) -> None:
        """Take one `server_metrics` event (t_s, kv_cache_usage 0..1, running, waiting, ...)."""
        row = [_number(sample.get(key)) for key in COLUMNS]
        if math.isnan(row[0]):
            return
        if not math.isnan(row[1]):
            row[1] *= 100.0
        if not self.charts.add_row(row):
            return  # one clock, one timeline: a sample from the past is someone else's
        if "server" in sample:
            self._server = str(sample["server"])
        if sample.get("kv_capacity_tokens"):
            self._kv_capacity = int(sample["kv_capacity_tokens"])
        self._dirty = True
        self.sampled.emit(dict(zip(COLUMNS, row, strict=True)))

    def set_server(self, server: str, kv_capacity_tokens: int | None = None) -> None:
        """Name the server kind (a serverstats.SERVER_LABELS key) and its KV pool."""
        self._server = server
        self._kv_capacity = kv_capacity_tokens
        self._set_status(self._status)

    def clear(self) -> None:
        self.charts.clear()
        self._dirty = True
        self._set_status("")
        self._show_message()

    def _plots(self) -> tuple[Any, ...]:
        return self.charts.plots()

    def now_s(self) -> float:
        """The timeline's clock: seconds since the dock started watching this endpoint."""
        return (
            self._scraper.now_s()
            if self._scraper is not None
            else (float(self._buffer.tail(1)[0, 0]) if len(self._buffer) else 0.0)
        )

    def mark(self, label: TextSource, *, run_start: bool = False) -> None:
        """A boundary on the timeline now (a sweep point or a run starts)."""
        t = self.now_s()
        # A new point: its samples count from its own start, which is now. (Taken from its
        # first sample instead, a sample that came late moved the whole point's series.)
        self._run_offset_s = t
        if run_start:
            self.charts.run_start_s = t
        self.charts.mark(t, label)
        self._dirty = True

    def marks(self) -> list[tuple[float, str]]:
        return self.charts.marks()

    def set_running(self, running: bool) -> None:
        """A probe or sweep started or ended: scrape 4 times a second while it runs."""
        if running and not self._poll.running:
            self.charts.run_start_s = self.now_s()
        self._poll.running = running
        self._wake()

    # -- a sweep's own samples ---------------------------------------------------------------

    def follow_run(self, target: Any | None) -> None:
        """A sweep started against `target`, or ended (None). While it runs against the
        endpoint this dock watches, the dock shows the sweep's samples (add_run_sample) and
        does not read that /metrics itself; against another endpoint it reads as before."""
        self._run_key = endpoint_key(target) if target is not None else None
        self._run_offset_s = None
        self._update_poll()

    @property
    def fed_by_run(self) -> bool:
        """Whether the samples come from a running sweep now (the own scraper waits)."""
        return self._run_key is not None and self._run_key == self._watched

    def add_run_sample(self, event: ServerMetrics) -> None:
        """One `server_metrics` event of the followed sweep's worker, put on this dock's
        clock: its time counts from the point's start, so it is drawn that long after the
        point's mark, however late it arrives; the samples keep their spacing as measured.
        (Before any point's mark, the first sample fixes the offset.) Never ahead of the
        dock's clock: the dock's own samples after the run must still come later."""
        if not self.fed_by_run or self._user_paused:
            return
        now = self.now_s()
        if self._run_offset_s is None:
            self._run_offset_s = now - event.t_s
        self.add_sample(
            {
                "t_s": min(self._run_offset_s + event.t_s, now),
                "kv_cache_usage": event.kv_cache_usage,
                "running": event.running,
                "waiting": event.waiting,
                "preemptions": event.preemptions,
            }
        )

    def _update_poll(self) -> None:
        self._poll.paused = self._user_paused or self.fed_by_run
        self._wake()

    def _wake(self) -> None:
        if self._thread is not None:
            self._thread.call(self._poll.wake.set)

    def set_paused(self, paused: bool) -> None:
        self._user_paused = paused
        if self.pause_button.isChecked() != paused:
            self.pause_button.setChecked(paused)
        self._update_poll()
        self._show_message()

    @property
    def paused(self) -> bool:
        return self._user_paused

    def _show_message(self) -> None:
        if self._user_paused:
            text = self.tr("Paused: /metrics is not being read.")
        elif len(self._buffer):
            text = self._status
        elif self._scraper is not None and self._scraper.failures:
            text = self.tr("No /metrics at this endpoint ({0}).").format(
                self._scraper.last_error or "?"
            )
        elif self._scraper is not None:
            text = self.tr("Reading the server's /metrics…")
        else:
            text = self.tr("No server metrics yet.")
        if text == self.message.text():
            return
        self.message.setText(text)
        # The readout only ever grows: a line fewer as the numbers change ("KV 100%" then
        # "KV 99%") resized the three charts below it, each then drawn whole, axes and all.
        need = self.message.heightForWidth(self.message.width())
        if self.message.isVisible() and need > self.message.minimumHeight():
            self.message.setMinimumHeight(need)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.message.setMinimumHeight(0)  # a new width: the readout may need fewer lines
        super().resizeEvent(event)

    def sample_count(self) -> int:
        return len(self._buffer)

    def data(self) -> np.ndarray:
        """The buffered rows (t_s, KV %, running, waiting, preemptions), oldest first."""
        return self._buffer.view()

    # -- status text -------------------------------------------------------------------------

    def _get_status_text(self) -> str:
        return self._status

    statusText = Property(str, _get_status_text, notify=statusTextChanged)

    @property
    def status_text(self) -> str:
        return self._status

    def _set_status(self, text: str) -> None:
        if text and self._server:
            text = f"{text} ({server_label(self._server, self._kv_capacity)})"
        if text != self._status:
            self._status = text
            self.statusTextChanged.emit(text)

    # -- drawing -----------------------------------------------------------------------------

    def _repaint(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        last = self.charts.last_row()
        if last is not None:  # the readout (and the status bar) follow the drawing, not each sample
            self._set_status(describe(last))
        self.charts.draw()
        self._show_message()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Titles, axis words, legend names and the readout in the UI language."""
        self.charts.retranslate()
        self.pause_button.setText(self.tr("Pause"))
        self.pause_button.setToolTip(
            self.tr(
                "Stop asking the server for /metrics (every 2 s idle, 4 times a second during "
                "a run); the charts stay as they are."
            )
        )
        last = self.charts.last_row()
        if last is not None:
            self._set_status(describe(last))
        self._show_message()

    def repaint_now(self) -> None:
        """Draw pending samples at once (tests, screenshots)."""
        self._repaint()

    # -- own scraper -------------------------------------------------------------------------

    @property
    def scraping(self) -> bool:
        return self._scraper is not None and self._scraper.running

    def start(self, target: Any, interval_s: float | None = None) -> None:
        """Watch `target`'s /metrics (on a thread of its own) until stop(): every 2 s idle,
        every 0.25 s while set_running(True); `interval_s` fixes both (tests)."""
        from app.bench.http.endpoint import resolve_endpoint

        if self._scraper is not None:
            self.stop()
        self.clear()
        self._watched = None
        if not getattr(target, "base_url", ""):
            self._update_poll()
            return
        self._watched = endpoint_key(target)
        self._update_poll()  # a sweep against this endpoint feeds the dock from now on
        resolved = resolve_endpoint(target.base_url, api=target.api, model=target.model)
        if interval_s is not None:
            self._poll.idle_s = self._poll.run_s = interval_s
        else:
            self._poll.idle_s, self._poll.run_s = IDLE_INTERVAL_S, RUN_INTERVAL_S

        sample_in, polled = self._sampleIn, self._polled

        def on_sample(sample: MetricsSample) -> None:  # on the scraping thread
            latest = scraper.latest
            server = latest.server if latest is not None else ""
            capacity = latest.capacity.tokens if latest and latest.capacity else None
            with contextlib.suppress(RuntimeError):  # the dock is gone
                sample_in.emit(sample.to_dict(), server, capacity, scraper)

        def after() -> None:
            with contextlib.suppress(RuntimeError):
                polled.emit()

        scraper = MetricsScraper.for_endpoint(
            resolved,
            api_key=getattr(target, "api_key", None) or None,
            extra_headers=dict(target.headers),
            verify_tls=bool(target.verify_tls),
            on_sample=on_sample,
            clock=time.monotonic_ns,
            # The dock keeps its own ring of samples; parsed pages are only for the readout.
            max_scrapes=8,
            max_samples=8,
            gauges_after_first=True,
        )
        self._scraper = scraper
        self._poll.wake = asyncio.Event()  # bound to the new thread's loop on first use
        thread = ScrapeThread()
        self._thread = thread
        self._threads.append(thread)
        thread.finished.add_done_callback(
            lambda _f: self._threads.remove(thread) if thread in self._threads else None
        )
        thread.start(poll_metrics(scraper, self._poll, after))

    def _on_polled(self) -> None:
        if not len(self._buffer):  # with samples, the readout follows the drawing
            self._show_message()

    def _take_sample(
        self, sample: Mapping[str, Any], server: str, capacity: object, source: object
    ) -> None:
        if source is not self._scraper:
            return  # queued before stop() or a new endpoint: not this timeline's
        if server and server != self._server:
            self.set_server(server, capacity if isinstance(capacity, int) else None)
        self.add_sample(sample)

    watch = start

    def stop(self) -> concurrent.futures.Future[None] | None:
        """Stop the own scraper; returns a future done once its connection has closed."""
        thread, self._thread = self._thread, None
        self._scraper = None
        self._watched = None
        return thread.stop() if thread is not None else None

    @property
    def scrape_error(self) -> str | None:
        return self._scraper.last_error if self._scraper is not None else None
