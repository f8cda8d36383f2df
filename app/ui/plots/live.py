"""Bounded live-plot data (numpy ring buffers) and the pyqtgraph charts built on them."""

from __future__ import annotations

import html
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# numpy.ma now, not on first use: np.percentile and np.unique import it lazily, which cost
# ~0.2 s of the GUI thread (with the full garbage collection it set off) in a measured run.
import numpy as np
import numpy.ma
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QGridLayout, QWidget

from app.bench.results.naming import rate_from_file
from app.ui.plots.token_scatter import MIN_ITL_MS, TokenScatter
from app.ui.retranslate import is_language_change

# Colours that stay readable on light and dark backgrounds (Okabe-Ito, colour-blind safe).
PALETTE: tuple[str, ...] = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#F0E442",
    "#999999",
)


class RingBuffer:
    """A preallocated numpy ring of rows with `width` float columns; the oldest rows drop off."""

    def __init__(self, capacity: int, width: int = 2) -> None:
        if capacity < 1 or width < 1:
            raise ValueError("capacity and width must be at least 1")
        self._data = np.full((capacity, width), np.nan, dtype=np.float64)
        self._capacity = capacity
        self._start = 0
        self._size = 0
        self.total_added = 0

    def __len__(self) -> int:
        return self._size

    @property
    def capacity(self) -> int:
        return self._capacity

    def clear(self) -> None:
        self._start = 0
        self._size = 0
        self.total_added = 0

    def append(self, *values: float) -> None:
        self.extend(np.asarray(values, dtype=np.float64).reshape(1, -1))

    def extend(self, rows: np.ndarray | Sequence[Sequence[float]]) -> None:
        block = np.asarray(rows, dtype=np.float64)
        if block.ndim == 1:
            block = block.reshape(-1, self._data.shape[1])
        n = block.shape[0]
        if n == 0:
            return
        self.total_added += n
        if n >= self._capacity:  # only the newest `capacity` rows survive
            self._data[:] = block[-self._capacity :]
            self._start, self._size = 0, self._capacity
            return
        end = (self._start + self._size) % self._capacity
        first = min(n, self._capacity - end)
        self._data[end : end + first] = block[:first]
        self._data[: n - first] = block[first:]
        overflow = max(0, self._size + n - self._capacity)
        self._size = min(self._capacity, self._size + n)
        self._start = (self._start + overflow) % self._capacity

    def view(self) -> np.ndarray:
        """The rows oldest-first, as a new (size, width) array."""
        if self._start + self._size <= self._capacity:
            return self._data[self._start : self._start + self._size].copy()
        head = self._data[self._start :]
        return np.concatenate([head, self._data[: self._size - len(head)]])

    def tail(self, n: int) -> np.ndarray:
        """The newest `n` rows oldest-first, as a new array; copies only those rows (the
        scatter takes its few hundred new tokens from a ring of 200 000 ten times a second)."""
        n = max(0, min(n, self._size))
        end = (self._start + self._size) % self._capacity or self._capacity
        if n <= end:
            return self._data[end - n : end].copy()
        return np.concatenate([self._data[self._capacity - (n - end) :], self._data[:end]])


def concurrency_value(value: Any) -> float:
    """A max concurrency as a float; None or 0 means 'unlimited' (inf)."""
    if value in (None, "", 0, "0"):
        return math.inf
    return float(value)


def format_number(value: float) -> str:
    if math.isinf(value):
        return "inf"
    return f"{value:g}"


@dataclass
class Series:
    """One run's sweep points, as drawn on the sweep curves (a summary dict per point)."""

    name: str
    points: list[Mapping[str, Any]] = field(default_factory=list)


def sweep_axis(series: Iterable[Series]) -> str:
    """'rate' when every run holds concurrency fixed and varies the rate, else 'concurrency'."""
    concs: set[float] = set()
    rates: set[float] = set()
    for s in series:
        for p in s.points:
            concs.add(concurrency_value(p.get("max_concurrency")))
            rates.add(rate_from_file(p.get("request_rate")))
    return "rate" if len(concs) <= 1 and len(rates) > 1 else "concurrency"


def metric(point: Mapping[str, Any], key: str) -> float:
    value = point.get(key)
    try:
        return float(value) if value is not None else math.nan
    except (TypeError, ValueError):
        return math.nan


def floor_ms(point: Mapping[str, Any]) -> float:
    """A point's roofline floor: flat in a file's summary, nested in a live sweep's."""
    value = metric(point, "floor_tpot_ms")
    block = point.get("tpotbench")
    roofline = block.get("roofline") if isinstance(block, Mapping) else None
    if math.isnan(value) and isinstance(roofline, Mapping):
        value = metric(roofline, "floor_tpot_ms")
    return value


def make_plot(
    title: str = "", y_label: str = "", x_label: str = "", title_size: str = "10pt"
) -> pg.PlotWidget:
    """A PlotWidget set up for live data: clipped to view, peak downsampling, grid, legend."""
    plot = pg.PlotWidget()
    item = plot.getPlotItem()
    set_words(plot, title, y_label, x_label, title_size)
    for name in ("left", "bottom"):
        # Units are in the labels; "(x0.001)" on an empty axis only confuses.
        item.getAxis(name).enableAutoSIPrefix(False)
    item.showGrid(x=True, y=True, alpha=0.25)
    item.setClipToView(True)
    item.setDownsampling(auto=True, mode="peak")
    item.addLegend(offset=(10, 10), labelTextSize="8pt")
    plot.setMinimumSize(120, 100)
    return plot


def set_words(
    plot: pg.PlotWidget, title: str, y_label: str, x_label: str, title_size: str = "10pt"
) -> None:
    """A chart's title and axis labels (again after a language change)."""
    item = plot.getPlotItem()
    item.setTitle(title, size=title_size)
    item.setLabel("left", y_label)
    item.setLabel("bottom", x_label)


def rename_curve(item: pg.PlotItem, curve: pg.PlotDataItem, name: str) -> None:
    """A curve's legend entry in the UI language (pyqtgraph keeps the name it was added with)."""
    curve.opts["name"] = name
    legend = item.legend
    for sample, label in legend.items if legend is not None else []:
        if sample.item is curve:
            label.setText(name)


def coloured(*parts: tuple[str, str]) -> str:
    """Rich text with each (text, colour) part in its colour: a legend inside a title, which
    never covers the curves the way a legend box inside a small chart does."""
    return " ".join(f"<span style='color:{c}'>{t}</span>" if c else t for t, c in parts)


FLOOR_COLOUR = "#777777"


class SweepCurves(QWidget):
    """Output tok/s, TPOT P50/P99 and TTFT P99 against concurrency (or rate), one colour per run.

    The x axis is categorical (one slot per distinct value, labelled with it) so 1..128 and
    'inf' fit on one readable axis and runs with different grids still line up by value.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.throughput = make_plot()
        self.tpot = make_plot()
        self.ttft = make_plot()
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.throughput, 0, 0)
        layout.addWidget(self.tpot, 0, 1)
        layout.addWidget(self.ttft, 0, 2)
        self.axis = "concurrency"
        self._series: list[Series] = []
        self.caption = ""  # a second title line (exports name the run, model, GPU, date)
        self._has_floor = False
        self.set_series([])

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.set_series(self._series)  # titles, axis words and legends again
        super().changeEvent(event)

    def _words(self, many: bool) -> None:
        one = not many and bool(self._series)
        tpot_title = (
            coloured((self.tr("TPOT"), ""), ("P50", PALETTE[0]), ("/", ""), ("P99", PALETTE[1]))
            if one
            else self.tr("TPOT P50 / P99")
        )
        label = (
            self.tr("request rate (req/s)") if self.axis == "rate" else self.tr("max concurrency")
        )
        if one and self._has_floor:
            tpot_title += " " + coloured((self.tr("floor"), FLOOR_COLOUR))
        sub = f"<br><span style='font-size:8pt'>{html.escape(self.caption)}</span>"
        sub = sub if self.caption else ""
        set_words(self.throughput, self.tr("Output throughput") + sub, self.tr("tok/s"), label)
        set_words(self.tpot, tpot_title + sub, self.tr("ms"), label)
        set_words(self.ttft, self.tr("TTFT P99") + sub, self.tr("ms"), label)

    def plots(self) -> dict[str, pg.PlotWidget]:
        return {"throughput": self.throughput, "tpot": self.tpot, "ttft": self.ttft}

    def set_series(self, series: Sequence[Series]) -> None:
        self._series = [s for s in series if s.points]
        for plot in self.plots().values():
            plot.getPlotItem().clear()
            legend = plot.getPlotItem().legend
            if legend is not None:
                legend.clear()
        self.axis = sweep_axis(self._series)
        key = "request_rate" if self.axis == "rate" else "max_concurrency"
        to_value = rate_from_file if self.axis == "rate" else concurrency_value
        values = sorted({to_value(p.get(key)) for s in self._series for p in s.points})
        slot = {v: i for i, v in enumerate(values)}
        ticks = [[(i, format_number(v)) for v, i in slot.items()]]
        many = len(self._series) > 1
        self._has_floor = any(math.isfinite(floor_ms(p)) for s in self._series for p in s.points)
        self._words(many)
        for plot in self.plots().values():
            item = plot.getPlotItem()
            item.getAxis("bottom").setTicks(ticks)
            # No points yet: no numbers on the value axis rather than pyqtgraph's 0-1.
            item.getAxis("left").setStyle(showValues=bool(values))
            if not values:
                item.setYRange(0, 1, padding=0)
        for n, s in enumerate(self._series):
            colour = PALETTE[n % len(PALETTE)]
            ordered = sorted(s.points, key=lambda p: to_value(p.get(key)))
            x = np.array([slot[to_value(p.get(key))] for p in ordered], dtype=float)

            prefix = f"{s.name} " if many else ""
            # One run: P99 gets its own colour; several runs: a colour per run, P99 dashed.
            p99_colour = colour if many else PALETTE[1]
            for plot, mkey, name, dashed, col in (
                (self.throughput, "output_throughput", s.name if many else None, False, colour),
                # One run: P50 and P99 are named in the title's colours, no legend box.
                (self.tpot, "median_tpot_ms", f"{prefix}P50" if many else None, False, colour),
                (self.tpot, "p99_tpot_ms", f"{prefix}P99" if many else None, True, p99_colour),
                (self.ttft, "p99_ttft_ms", s.name if many else None, False, colour),
            ):
                y = np.array([metric(p, mkey) for p in ordered], dtype=float)
                if not np.isfinite(y).any():
                    continue  # a metric no point has (an older file): nothing to draw
                style = Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine
                plot.plot(
                    x,
                    y,
                    pen=pg.mkPen(col, width=2, style=style),
                    symbol="t" if dashed else "o",
                    symbolSize=7,
                    symbolBrush=col,
                    symbolPen=col,
                    name=name,
                    connect="finite",
                )
            floor = np.array([floor_ms(p) for p in ordered], dtype=float)
            if np.isfinite(floor).any():
                # The roofline floor at each point's batch: how far TPOT sits above it.
                self.tpot.plot(
                    x,
                    floor,
                    pen=pg.mkPen(
                        FLOOR_COLOUR if not many else colour, width=1.5, style=Qt.PenStyle.DotLine
                    ),
                    name=f"{prefix}{self.tr('floor')}" if many else None,
                    connect="finite",
                )
        for plot in self.plots().values():
            item = plot.getPlotItem()
            item.enableAutoRange(axis="y")
            item.setXRange(-0.5, max(0, len(values) - 1) + 0.5, padding=0)


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 5 x 10^k that is >= value (axis limits that change rarely)."""
    if not value > 0 or not math.isfinite(value):
        return 1.0
    exp = math.floor(math.log10(value))
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * 10**exp >= value * (1 - 1e-12):
            return step * 10**exp
    return 10.0 ** (exp + 1)


def nice_limit(value: float, steps: int = 6) -> float:
    """An axis limit a little above `value`, a multiple of a 1-2-5 step (about value/steps)."""
    step = nice_ceiling(max(value, 1e-9) / steps)
    return max(step, math.ceil(value * 1.04 / step) * step)


def time_limit(value: float) -> float:
    """The live charts' right edge: the next of 1, 1.5, 2, 3, 5, 7 x 10^k above `value`.

    About six changes per decade: each change repaints four axes with their grids and re-bins
    the scatter, so a finer step (every few seconds) cost more than all the dots; the data still
    fills at least two thirds of the width.
    """
    value = max(value, 1e-9)
    exp = math.floor(math.log10(value))
    for k in (exp, exp + 1):
        for m in (1.0, 1.5, 2.0, 3.0, 5.0, 7.0):
            if m * 10.0**k > value * 1.02:
                return m * 10.0**k
    return 10.0 ** (exp + 2)


def log_ticks(lo: int, hi: int) -> list[list[tuple[float, str]]]:
    """Tick labels for a log10 axis from 10^lo to 10^hi: 1, 10, 100 and 2, 5 between."""
    major = [(float(k), f"{10.0**k:g}") for k in range(lo, hi + 1)]
    minor = [(math.log10(m * 10.0**k), f"{m * 10.0**k:g}") for k in range(lo, hi) for m in (2, 5)]
    return [major, minor]


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
        self.floor_source = ""
        self._floor_label.setText("")
        self._floor.setData([], [])
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
        rolling = coloured(
            (self.tr("Rolling TPOT"), ""),
            ("P50", PALETTE[0]),
            ("P99", PALETTE[1]),
            (self.tr("floor"), FLOOR_COLOUR),
        )
        set_words(self.tpot, rolling, self.tr("ms"), seconds, "9pt")
        set_words(self.tok_s, self.tr("Output tok/s"), self.tr("tok/s"), seconds, "9pt")
        set_words(self.in_flight, self.tr("In flight"), self.tr("requests"), seconds, "9pt")
        self.tok_s.setToolTip(
            self.tr("Output tokens per second of the requests completed so far in this point.")
        )
        self.in_flight.setToolTip(self.tr("Requests sent and not yet finished."))

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def scatter_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The (time s, ITL ms) dots the scatter shows now (one per lit 2x2-pixel cell)."""
        return self._scatter.dots()

    # data side: no painting here
    def clear(self) -> None:
        for ring in (self.tokens, self.requests, self.rolling, self.progress, self.floor):
            ring.clear()
        self.floor_source = ""
        self._offset_s = self._cursor_s = 0.0
        self._requests_seen = 0
        self._itl_min = math.inf
        self._itl_max = 0.0
        self._scatter.clear()
        for line in self._point_lines:
            self.itl.removeItem(line)
        self._point_lines.clear()
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

    def start_point(self, label: str) -> None:
        """A new sweep point: its times continue after the previous point's on one run axis."""
        self._offset_s = self._cursor_s
        line = pg.InfiniteLine(
            pos=self._offset_s,
            angle=90,
            pen=pg.mkPen("#888888", style=Qt.PenStyle.DotLine),
            label=label,
            # Staggered heights so labels of short, adjacent points do not overprint.
            labelOpts={"position": 0.95 - 0.08 * (len(self._point_lines) % 3), "color": "#888888"},
        )
        self._point_lines.append(line)
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

    def set_floor(self, floor_ms: float, source: str) -> None:
        """The roofline floor now; `source` says which batch it is for (shown in the legend)."""
        if not math.isfinite(floor_ms) or floor_ms <= 0:
            return
        self.floor.append(self._cursor_s, float(floor_ms))
        if source != self.floor_source:
            self.floor_source = source
            self._floor_label.setText(source)
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
        every SMALL_CHART_MS unless `full`: a line over minutes gains nothing from 10 Hz.
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
