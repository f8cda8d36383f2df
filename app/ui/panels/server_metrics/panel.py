"""Live server-side charts: KV-cache usage, running and waiting requests, preemptions.

The dock scrapes the selected endpoint's /metrics itself, whenever it has one: every 2 s while
idle, 4 times a second while a probe or sweep runs, never while paused. Its samples share one
clock from the moment it started watching the endpoint, so a sweep is one continuous timeline
with its point boundaries marked (the worker still scrapes for the result files, as before).
Gauges are sampled values, drawn as steps held until the next sample: a straight line between
two samples a second apart drew triangles that no server ever went through.
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
import pyqtgraph as pg
from PySide6.QtCore import Property, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.bench.serverstats.scrape import MetricsScraper
from app.bench.serverstats.snapshot import MetricsSample
from app.ui.plots.chart import PALETTE, make_plot, rename_curve, set_words, time_limit
from app.ui.plots.ring import RingBuffer
from app.ui.plots.server_timeline import (
    IDLE_INTERVAL_S,
    RUN_INTERVAL_S,
    ElapsedAxis,
    Poll,
    ScrapeThread,
    hold_steps,
)
from app.ui.retranslate import is_language_change
from app.ui.theme import apply_plot_theme

# Columns of the ring buffer, in the order add_sample stores them.
_COLUMNS = ("t_s", "kv_cache_usage", "running", "waiting", "preemptions")
MAX_MARKS = 200
# Idle, the charts show this much of the past; during and after a run, from the run's start.
IDLE_SPAN_S = 600.0


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
        self._buffer = RingBuffer(capacity, len(_COLUMNS))
        self._dirty = False
        self._status = ""
        self._server = ""
        self._kv_capacity: int | None = None
        self._scraper: MetricsScraper | None = None
        self._thread: ScrapeThread | None = None
        self._poll = Poll(IDLE_INTERVAL_S, RUN_INTERVAL_S)
        self._marks: list[tuple[float, str, list[pg.InfiniteLine]]] = []
        self._run_start_s: float | None = None
        self._ranges: dict[object, tuple[float, float]] = {}
        # Stop scraping when the widget goes away; the closure must not hold self.
        threads: list[ScrapeThread] = []
        self._threads = threads
        self.destroyed.connect(lambda *_: [t.stop() for t in list(threads)])
        # Samples come from the scraping thread; Qt queues them to this (the GUI) thread.
        self._sampleIn.connect(self._take_sample)
        self._polled.connect(self._on_polled)

        self.kv_plot = make_plot(self.tr("KV-cache usage"), self.tr("%"), self.tr("time (s)"))
        self.kv_plot.setYRange(-6, 102, padding=0)  # room for the 0 label
        self.queue_plot = make_plot(self.tr("Requests"), self.tr("requests"), self.tr("time (s)"))
        self.preempt_plot = make_plot(
            self.tr("Preemptions (since start)"), self.tr("count"), self.tr("time (s)")
        )
        for plot in (self.queue_plot, self.preempt_plot):
            plot.setXLink(self.kv_plot)
        for plot in (self.kv_plot, self.queue_plot, self.preempt_plot):
            # Ranges are set by _repaint in steps; auto-range would move (and redraw) the axes
            # with every sample.
            plot.getPlotItem().disableAutoRange()
        for plot in (self.kv_plot, self.queue_plot, self.preempt_plot):
            plot.getPlotItem().setAxisItems({"bottom": ElapsedAxis("bottom")})
            for side in ("left", "bottom"):  # "time (s) (x0.001)" helps nobody
                axis = plot.getPlotItem().getAxis(side)
                axis.enableAutoSIPrefix(False)
                # Ranges change in steps: between them the axes (and grid) are blitted from a
                # cache, not drawn again with each new sample.
                axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.kv_curve = self.kv_plot.plot(
            name=self.tr("KV usage"), pen={"color": PALETTE[0], "width": 2}, connect="finite"
        )
        # One curve, named by the title: a legend box there sat under the run's mark labels.
        if self.kv_plot.getPlotItem().legend is not None:
            self.kv_plot.getPlotItem().legend.hide()
        self.running_curve = self.queue_plot.plot(
            name=self.tr("running"), pen={"color": PALETTE[2], "width": 2}, connect="finite"
        )
        self.waiting_curve = self.queue_plot.plot(
            name=self.tr("waiting"), pen={"color": PALETTE[1], "width": 2}, connect="finite"
        )
        self.preempt_curve = self.preempt_plot.plot(
            name=self.tr("preemptions"), pen={"color": PALETTE[3], "width": 2}, connect="finite"
        )

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
        layout.addWidget(self.kv_plot, 3)
        layout.addWidget(self.queue_plot, 3)
        layout.addWidget(self.preempt_plot, 2)
        # Below these heights the axis labels print over each other.
        self.kv_plot.setMinimumHeight(140)
        self.queue_plot.setMinimumHeight(140)
        self.preempt_plot.setMinimumHeight(110)

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
        row = [_number(sample.get(key)) for key in _COLUMNS]
        if math.isnan(row[0]):
            return
        if len(self._buffer) and row[0] < self._buffer.tail(1)[0, 0]:
            return  # one clock, one timeline: a sample from the past is someone else's
        if not math.isnan(row[1]):
            row[1] *= 100.0
        self._buffer.append(*row)
        if "server" in sample:
            self._server = str(sample["server"])
        if sample.get("kv_capacity_tokens"):
            self._kv_capacity = int(sample["kv_capacity_tokens"])
        self._dirty = True
        self.sampled.emit(dict(zip(_COLUMNS, row, strict=True)))

    def set_server(self, server: str, kv_capacity_tokens: int | None = None) -> None:
        """Name the server kind (a serverstats.SERVER_LABELS key) and its KV pool."""
        self._server = server
        self._kv_capacity = kv_capacity_tokens
        self._set_status(self._status)

    def clear(self) -> None:
        self._buffer.clear()
        self._ranges.clear()
        for _t, _label, lines in self._marks:
            for plot, line in zip(self._plots(), lines, strict=True):
                plot.removeItem(line)
        self._marks.clear()
        self._run_start_s = None
        self._dirty = True
        self._set_status("")
        self._show_message()

    def _plots(self) -> tuple[pg.PlotWidget, ...]:
        return (self.kv_plot, self.queue_plot, self.preempt_plot)

    def now_s(self) -> float:
        """The timeline's clock: seconds since the dock started watching this endpoint."""
        return (
            self._scraper.now_s()
            if self._scraper is not None
            else (float(self._buffer.tail(1)[0, 0]) if len(self._buffer) else 0.0)
        )

    def mark(self, label: str, *, run_start: bool = False) -> None:
        """A boundary on the timeline now (a sweep point or a run starts)."""
        t = self.now_s()
        if run_start:
            self._run_start_s = t
        lines = []
        for n, plot in enumerate(self._plots()):
            line = pg.InfiniteLine(
                pos=t,
                angle=90,
                pen=pg.mkPen("#888888", style=Qt.PenStyle.DotLine),
                label=label if n == 0 else None,
                # Right of the line: a mark at the chart's left edge ("sweep" at the run's
                # start) was cut in half.
                labelOpts={
                    "position": 0.9 - 0.1 * (len(self._marks) % 3),
                    "color": "#888888",
                    "anchors": [(0, 0.5), (0, 0.5)],
                },
            )
            plot.addItem(line)
            lines.append(line)
        self._marks.append((t, label, lines))
        while len(self._marks) > MAX_MARKS:
            _t, _l, old = self._marks.pop(0)
            for plot, line in zip(self._plots(), old, strict=True):
                plot.removeItem(line)
        self._dirty = True

    def marks(self) -> list[tuple[float, str]]:
        return [(t, label) for t, label, _lines in self._marks]

    def set_running(self, running: bool) -> None:
        """A probe or sweep started or ended: scrape 4 times a second while it runs."""
        if running and not self._poll.running:
            self._run_start_s = self.now_s()
        self._poll.running = running
        self._wake()

    def _wake(self) -> None:
        if self._thread is not None:
            self._thread.call(self._poll.wake.set)

    def set_paused(self, paused: bool) -> None:
        self._poll.paused = paused
        if self.pause_button.isChecked() != paused:
            self.pause_button.setChecked(paused)
        self._wake()
        self._show_message()

    @property
    def paused(self) -> bool:
        return self._poll.paused

    def _show_message(self) -> None:
        if self._poll.paused:
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
        self.message.setText(text)

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

    def _describe(self, row: list[float]) -> str:
        parts = []
        if not math.isnan(row[1]):
            parts.append(self.tr("KV {0:.0f}%").format(row[1]))
        if not math.isnan(row[2]):
            parts.append(self.tr("running {0:.0f}").format(row[2]))
        if not math.isnan(row[3]):
            parts.append(self.tr("waiting {0:.0f}").format(row[3]))
        if not math.isnan(row[4]):
            parts.append(self.tr("preemptions {0:.0f}").format(row[4]))
        return " · ".join(parts) if parts else self.tr("server metrics: no known gauges")

    def _server_label(self, server: str) -> str:
        labels = {
            "vllm": self.tr("vLLM (V1 metric names)"),
            "vllm-legacy": self.tr("vLLM (legacy V0 metric names)"),
            "sglang": self.tr("SGLang"),
            "llamacpp": self.tr("llama.cpp server"),
            "tgi": self.tr("Text Generation Inference"),
            "unknown": self.tr("unrecognised Prometheus exporter"),
        }
        return labels.get(server, server)

    def _set_status(self, text: str) -> None:
        if text and self._server:
            label = self._server_label(self._server)
            if self._kv_capacity:
                label += " · " + self.tr("KV pool {0:,} tokens").format(self._kv_capacity)
            text = f"{text} ({label})"
        if text != self._status:
            self._status = text
            self.statusTextChanged.emit(text)

    # -- drawing -----------------------------------------------------------------------------

    def _repaint(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        rows = self._buffer.view()
        if len(rows):  # the readout (and the status bar) follow the drawing, not each sample
            self._set_status(self._describe(list(rows[-1])))
        if len(rows) == 0:
            for curve in (
                self.kv_curve,
                self.running_curve,
                self.waiting_curve,
                self.preempt_curve,
            ):
                curve.setData([], [])
            return
        t = rows[:, 0]
        for curve, column in (
            (self.kv_curve, 1),
            (self.running_curve, 2),
            (self.waiting_curve, 3),
            (self.preempt_curve, 4),
        ):
            curve.setData(*hold_steps(t, rows[:, column]))
        # Axes (with their grids) are the costly part of a repaint: the ranges move in steps
        # (a minute at the left, 1-1.5-2-3-5-7 at the right), not with every sample.
        end = float(t[-1])
        start = math.floor((end - IDLE_SPAN_S) / 60.0) * 60.0
        if self._run_start_s is not None:
            start = min(start, self._run_start_s - 5.0)
        start = max(float(t[0]), start)
        right = start + time_limit(max(end - start, 10.0))
        if self._ranges.get("x") != (start, right):
            self._ranges["x"] = (start, right)
            self.kv_plot.setXRange(start, right, padding=0)
        # Counts start at zero and stay readable when flat (auto-range would centre 0 at ±0.5).
        counts = ((self.queue_plot, [2, 3], 4, 0.06), (self.preempt_plot, [4], 2, 0.15))
        for plot, columns, ticks, below in counts:
            values = rows[:, columns]
            top = float(np.nanmax(values)) if np.isfinite(values).any() else 0.0
            top = max(1.0, top)
            if self._ranges.get(id(plot)) == (top, 0.0):
                continue
            self._ranges[id(plot)] = (top, 0.0)
            # Room below zero, or pyqtgraph drops the "0" label at the axis edge.
            plot.setYRange(-below * top, 1.08 * top, padding=0)
            step = max(1, math.ceil(top / ticks))  # whole requests and preemptions: integer ticks
            plot.getPlotItem().getAxis("left").setTickSpacing(levels=[(step, 0)])
        self._show_message()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Titles, axis words, legend names and the readout in the UI language."""
        seconds = self.tr("time (m:ss)")
        set_words(self.kv_plot, self.tr("KV-cache usage"), self.tr("%"), seconds)
        set_words(self.queue_plot, self.tr("Requests"), self.tr("requests"), seconds)
        set_words(
            self.preempt_plot, self.tr("Preemptions (since start)"), self.tr("count"), seconds
        )
        for plot, curve, name in (
            (self.kv_plot, self.kv_curve, self.tr("KV usage")),
            (self.queue_plot, self.running_curve, self.tr("running")),
            (self.queue_plot, self.waiting_curve, self.tr("waiting")),
            (self.preempt_plot, self.preempt_curve, self.tr("preemptions")),
        ):
            rename_curve(plot.getPlotItem(), curve, name)
        self.pause_button.setText(self.tr("Pause"))
        self.pause_button.setToolTip(
            self.tr(
                "Stop asking the server for /metrics (every 2 s idle, 4 times a second during "
                "a run); the charts stay as they are."
            )
        )
        if len(self._buffer):
            self._set_status(self._describe(list(self._buffer.tail(1)[0])))
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
        if not getattr(target, "base_url", ""):
            return
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
        thread.start(self._scrape(scraper, self._poll, after))

    def _on_polled(self) -> None:
        if not len(self._buffer):  # with samples, the readout follows the drawing
            self._show_message()

    def _take_sample(self, sample: dict, server: str, capacity: object, source: object) -> None:
        if source is not self._scraper:
            return  # queued before stop() or a new endpoint: not this timeline's
        if server and server != self._server:
            self.set_server(server, capacity if isinstance(capacity, int) else None)
        self.add_sample(sample)

    watch = start

    @staticmethod
    async def _scrape(scraper: MetricsScraper, poll: Poll, after: Any) -> None:
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

    def stop(self) -> concurrent.futures.Future[None] | None:
        """Stop the own scraper; returns a future done once its connection has closed."""
        thread, self._thread = self._thread, None
        self._scraper = None
        return thread.stop() if thread is not None else None

    @property
    def scrape_error(self) -> str | None:
        return self._scraper.last_error if self._scraper is not None else None
