"""The live view of a running sweep: every token's ITL, rolling TPOT, tok/s, requests in flight."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

# numpy.ma now, not on first use: np.percentile and np.unique import it lazily, which cost
# ~0.2 s of the GUI thread (with the full garbage collection it set off) in a measured run.
import numpy as np
import numpy.ma
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QGridLayout, QWidget

from app.ui.plots.chart import (
    FLOOR_COLOUR,
    PALETTE,
    coloured,
    log_ticks,
    make_plot,
    nice_limit,
    set_words,
    time_limit,
)
from app.ui.plots.ring import RingBuffer
from app.ui.plots.token_scatter import MIN_ITL_MS, TokenScatter
from app.ui.retranslate import TextSource, is_language_change, text_of

# The three small charts (whole-chart repaints) once a second: a line over minutes gains
# nothing from more, and at 4 Hz they were a fifth of the window's CPU in a 64-stream run.
SMALL_CHART_MS = 1000
# The live time axes start at 0-10 s and never get narrower: a short run no longer steps
# through 1, 1.5, 2, 3, 5, 7 s, each step repainting eight axes with their grids.
MIN_SPAN_S = 10.0


class LiveCharts(QWidget):
    """The live view of a running sweep: ITL scatter, rolling TPOT, tok/s and requests in flight.

    Data calls (`add_*`) only append to bounded ring buffers and mark what changed; `refresh()`
    — called by the owner's single repaint timer — is the only place that touches the plots.
    Axis ranges are set by hand in coarse steps, so axes (slow to draw) repaint only when a
    step is crossed, not every frame.
    """

    # Long (73 lines): the four charts, their curves and the grid they sit in, read best whole.
    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        token_capacity: int = 200_000,
        rolling_window: int = 64,
    ) -> None:
        super().__init__(parent)
        self.rolling_window = rolling_window
        self.tokens = RingBuffer(token_capacity, 2)  # run time s, ITL ms
        self.requests = RingBuffer(20_000, 2)  # run time s, TPOT ms
        self.rolling = RingBuffer(20_000, 3)  # run time s, TPOT p50, p99
        self.progress = RingBuffer(20_000, 3)  # run time s, output tok/s, in flight
        self._offset_s = 0.0
        self._cursor_s = 0.0
        self._requests_seen = 0
        self._dirty: set[str] = set()
        self._small_drawn_ns = 0
        self._ranges: dict[str, tuple[float, float]] = {}
        self._point_lines: list[pg.InfiniteLine] = []
        self._point_texts: list[TextSource] = []  # each line's label, re-made on a switch
        self._floor_text: TextSource = ""

        self.itl = make_plot()
        self.tpot = make_plot()
        self.tok_s = make_plot()
        self.in_flight = make_plot()
        self.retranslate()
        metrics = QFontMetrics(self.font())
        for plot in self.plots():
            item = plot.getPlotItem()
            item.disableAutoRange()
            for name in ("left", "bottom"):
                # Axes change only when a range step is crossed: blit them from a cache.
                item.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            # Room for the labels from the start (five digits for tok/s, four elsewhere: the
            # small charts are narrow at 1280x720): an axis that widened for "2500" after "1.2"
            # resized its chart, which repainted every axis and re-binned the scatter.
            digits = "00000" if plot is self.tok_s else "0000"
            item.getAxis("left").setStyle(
                autoExpandTextSpace=False, tickTextWidth=metrics.horizontalAdvance(digits) + 2
            )
            # The scatter draws one dot per pixel cell already; pyqtgraph's decimation would
            # thin the lines a second time.
            item.setDownsampling(auto=False)
        # Log scale: a 20 ms bulk and 700 ms prefill stalls stay readable on one chart.
        self.itl.getPlotItem().setLogMode(y=True)
        self._scatter = TokenScatter(self.itl)
        # Gaps under the log axis' floor (tokens read in one go) are drawn on its bottom edge;
        # this says so, with how many.
        self.floor_note = pg.TextItem("", color="#888888", anchor=(0.0, 1.0))
        self.floor_note.setZValue(5)
        self.itl.addItem(self.floor_note)
        self.floored = 0
        # P50 and P99 are named in the title's colours: a legend box covered the curves.
        self._p50 = self.tpot.plot([], [], pen=pg.mkPen(PALETTE[0], width=2))
        self._p99 = self.tpot.plot([], [], pen=pg.mkPen(PALETTE[1], width=2))
        # The roofline floor for the batch the server runs now: what TPOT cannot go below.
        # Its label (which batch, from where) sits on the line's right end.
        self.floor = RingBuffer(20_000, 2)  # run time s, floor ms
        self._floor = self.tpot.plot(
            [], [], pen=pg.mkPen(FLOOR_COLOUR, width=2, style=Qt.PenStyle.DashLine)
        )
        # Below the line's left end: the curves above it stay clear, the text inside the chart.
        self._floor_label = pg.TextItem("", color=FLOOR_COLOUR, anchor=(0.0, 0.0))
        self._floor_label.setZValue(5)
        self.tpot.addItem(self._floor_label)
        self._tok = self.tok_s.plot([], [], pen=pg.mkPen(PALETTE[2], width=2))
        self._flight = self.in_flight.plot([], [], pen=pg.mkPen(PALETTE[3], width=2))
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.itl, 0, 0, 1, 3)
        layout.addWidget(self.tpot, 1, 0)
        layout.addWidget(self.tok_s, 1, 1)
        layout.addWidget(self.in_flight, 1, 2)
        layout.setRowStretch(0, 3)
        layout.setRowStretch(1, 2)
        self.clear()

    def plots(self) -> tuple[pg.PlotWidget, ...]:
        return (self.itl, self.tpot, self.tok_s, self.in_flight)

    def retranslate(self) -> None:
        seconds = self.tr("time (s)")
        set_words(
            self.itl,
            self.tr("Inter-token latency, every token (all streams)"),
            self.tr("ITL (ms)"),
            seconds,
        )
        # The three small charts: shorter titles in a smaller size, so narrow windows fit them.
        # "Rolling" lives in the tooltip: at 1280x720 the title was cut after "floo".
        rolling = coloured(
            ("TPOT", ""),
            ("P50", PALETTE[0]),
            ("P99", PALETTE[1]),
            (self.tr("floor"), FLOOR_COLOUR),
        )
        set_words(self.tpot, rolling, self.tr("ms"), seconds, "9pt")
        set_words(self.tok_s, self.tr("Output tok/s"), self.tr("tok/s"), seconds, "9pt")
        set_words(self.in_flight, self.tr("In flight"), self.tr("requests"), seconds, "9pt")
        self.tpot.setToolTip(
            self.tr(
                "Rolling TPOT: P50 and P99 of the last {0} finished requests. The dashed line "
                "is the roofline floor for the batch the server runs now."
            ).format(self.rolling_window)
        )
        self.tok_s.setToolTip(
            self.tr("Output tokens per second of the requests completed so far in this point.")
        )
        self.in_flight.setToolTip(self.tr("Requests sent and not yet finished."))

    def _place_floor_note(self) -> None:
        if not self.floored:
            self.floor_note.setText("")
            return
        self.floor_note.setText(
            self.tr(
                "{0} gap(s) under {1:g} ms (tokens read together) sit on the bottom edge"
            ).format(self.floored, MIN_ITL_MS)
        )
        x0 = self._ranges["x0"][0]
        self.floor_note.setPos(x0, self._ranges["itl.y"][0] + 0.25)

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
            self._place_floor_note()
            # Labels made during a run ("c=8", "batch 32 (/metrics)") follow the switch too.
            for line, text in zip(self._point_lines, self._point_texts, strict=True):
                line.label.setFormat(text_of(text))
            self.floor_source = text_of(self._floor_text)
            self._floor_label.setText(self.floor_source)
        super().changeEvent(event)

    def scatter_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The (time s, ITL ms) dots the scatter shows now (one per lit 2x2-pixel cell)."""
        return self._scatter.dots()

    # data side: no painting here
    def clear(self) -> None:
        for ring in (self.tokens, self.requests, self.rolling, self.progress, self.floor):
            ring.clear()
        self.floor_source = ""
        self._floor_text = ""
        # The lines only redraw when data arrives: a run that never finishes a request (every
        # one failed) would otherwise show the previous run's curves as its own.
        for curve in (self._p50, self._p99, self._floor, self._tok, self._flight):
            curve.setData([], [])
        self._floor_label.setText("")
        self._offset_s = self._cursor_s = 0.0
        self._requests_seen = 0
        self._itl_min = math.inf
        self._itl_max = 0.0
        self.floored = 0
        self.floor_note.setText("")
        self._scatter.clear()
        for line in self._point_lines:
            self.itl.removeItem(line)
        self._point_lines.clear()
        self._point_texts.clear()
        self._ranges.clear()
        # Sensible empty axes before the first data: 0-10 s, ITL 1-100 ms on the log scale.
        for n, plot in enumerate(self.plots()):
            self._set_range(f"x{n}", plot, "x", 0.0, MIN_SPAN_S)
        self.itl.getPlotItem().getAxis("left").setTicks(log_ticks(0, 2))
        self._set_range("itl.y", self.itl, "y", 0, 2)
        # Before data: ranges a first point will likely fit, not pyqtgraph's 0-1.
        for key, plot, top in (
            ("tpot.y", self.tpot, 100.0),
            ("tok.y", self.tok_s, 1000.0),
            ("flight.y", self.in_flight, 10.0),
        ):
            self._set_range(key, plot, "y", 0.0, top)
        self._dirty = {"tokens", "requests", "progress"}

    def start_point(self, label: TextSource) -> None:
        """A new sweep point: its times continue after the previous point's on one run axis."""
        self._offset_s = self._cursor_s
        line = pg.InfiniteLine(
            pos=self._offset_s,
            angle=90,
            pen=pg.mkPen("#888888", style=Qt.PenStyle.DotLine),
            label=text_of(label),
            # Staggered heights so labels of short, adjacent points do not overprint.
            labelOpts={"position": 0.95 - 0.08 * (len(self._point_lines) % 3), "color": "#888888"},
        )
        self._point_lines.append(line)
        self._point_texts.append(label)
        self.itl.addItem(line)
        self._dirty.add("x")

    def add_tokens(
        self, t_s: Sequence[float] | np.ndarray, itl_ms: Sequence[float] | np.ndarray
    ) -> None:
        t = np.asarray(t_s, dtype=np.float64) + self._offset_s
        y = np.asarray(itl_ms, dtype=np.float64)
        n = min(len(t), len(y))
        if n == 0:
            return
        self.tokens.extend(np.column_stack([t[:n], y[:n]]))
        self._cursor_s = max(self._cursor_s, float(np.nanmax(t[:n])))
        finite = y[:n][np.isfinite(y[:n])]
        self.floored += int(np.count_nonzero(finite < MIN_ITL_MS))
        if len(finite):
            self._itl_min = min(self._itl_min, float(finite.min()))
            self._itl_max = max(self._itl_max, float(finite.max()))
        self._dirty.update(("tokens", "x"))

    def add_request(self, tpot_ms: float | None) -> None:
        if tpot_ms is None or not math.isfinite(tpot_ms):
            return
        self.requests.append(self._cursor_s, float(tpot_ms))
        self._dirty.add("requests")

    def add_progress(self, elapsed_s: float, output_tok_s: float, in_flight: float) -> None:
        t = self._offset_s + float(elapsed_s)
        self._cursor_s = max(self._cursor_s, t)
        self.progress.append(t, float(output_tok_s), float(in_flight))
        self._dirty.update(("progress", "x"))

    def set_floor(self, floor_ms: float, source: TextSource) -> None:
        """The roofline floor now; `source` says which batch it is for (shown in the legend)."""
        if not math.isfinite(floor_ms) or floor_ms <= 0:
            return
        self.floor.append(self._cursor_s, float(floor_ms))
        self._floor_text = source
        text = text_of(source)
        if text != self.floor_source:
            self.floor_source = text
            self._floor_label.setText(text)
        self._dirty.add("requests")

    # paint side: only from the repaint timer
    def _set_range(self, key: str, plot: pg.PlotWidget, axis: str, lo: float, hi: float) -> None:
        if self._ranges.get(key) == (lo, hi):
            return  # unchanged: no axis repaint
        self._ranges[key] = (lo, hi)
        if axis == "x":
            plot.setXRange(lo, hi, padding=0)
        else:
            plot.setYRange(lo, hi, padding=0)

    def refresh(self, *, full: bool = False) -> bool:
        """Push what changed into the plots; True if anything was redrawn.

        The scatter follows every call; the three small charts (whole-chart repaints) at most
        every SMALL_CHART_MS unless `full`: a line over minutes gains nothing from 5 Hz.
        """
        dirty, self._dirty = self._dirty, set()
        now = time.monotonic_ns()
        if not full and now - self._small_drawn_ns < SMALL_CHART_MS * 1_000_000:
            self._dirty |= dirty & {"requests", "progress"}
            dirty -= {"requests", "progress"}
        elif dirty & {"requests", "progress"}:
            self._small_drawn_ns = now
        if not dirty:
            return False
        if "x" in dirty:
            right = max(MIN_SPAN_S, time_limit(self._cursor_s))
            for n, plot in enumerate(self.plots()):
                self._set_range(f"x{n}", plot, "x", 0.0, right)
        if "tokens" in dirty or "x" in dirty:
            if self._itl_max > 0:
                low = max(self._itl_min, MIN_ITL_MS)
                lo = math.floor(math.log10(low))
                hi = max(math.ceil(math.log10(self._itl_max * 1.05)), lo + 1)
                if self._ranges.get("itl.y") != (lo, hi):
                    self.itl.getPlotItem().getAxis("left").setTicks(log_ticks(lo, hi))
                self._set_range("itl.y", self.itl, "y", lo, hi)
            self._scatter.update(self.tokens, self._ranges["x0"], self._ranges["itl.y"])
            self._place_floor_note()
        if "requests" in dirty and self.requests.total_added > self._requests_seen:
            self._requests_seen = self.requests.total_added
            recent = self.requests.tail(self.rolling_window)
            p50, p99 = np.percentile(recent[:, 1], [50, 99])
            self.rolling.append(recent[-1, 0], p50, p99)
            rolling = self.rolling.view()
            self._p50.setData(rolling[:, 0], rolling[:, 1])
            self._p99.setData(rolling[:, 0], rolling[:, 2])
            top = nice_limit(float(np.nanmax(rolling[:, 2])))
            self._set_range("tpot.y", self.tpot, "y", 0.0, top)
        if "requests" in dirty and len(self.floor):
            floor = self.floor.view()
            t = np.append(floor[:, 0], max(self._cursor_s, floor[-1, 0]))
            y = np.append(floor[:, 1], floor[-1, 1])
            self._floor.setData(np.repeat(t, 2)[1:-1], np.repeat(y, 2)[:-2])
            self._floor_label.setPos(float(t[0]), float(y[-1]))
        if "progress" in dirty:
            progress = self.progress.view()
            self._tok.setData(progress[:, 0], progress[:, 1])
            self._flight.setData(progress[:, 0], progress[:, 2])
            for key, plot, column in (("tok.y", self.tok_s, 1), ("flight.y", self.in_flight, 2)):
                top = float(np.nanmax(progress[:, column])) if len(progress) else 0.0
                if top > 0:  # all zero (no request done yet): the empty chart's range stays
                    self._set_range(key, plot, "y", 0.0, nice_limit(max(top, 1.0)))
        return True
