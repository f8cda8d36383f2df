"""The Server metrics dock's three charts (KV-cache usage, requests, preemptions) on one clock.

Gauges are sampled values, drawn as steps held until the next sample: a straight line between
two samples a second apart drew triangles that no server ever went through.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

from app.ui.plots.chart import PALETTE, make_plot, rename_curve, set_words, time_limit
from app.ui.plots.ring import RingBuffer
from app.ui.plots.server_timeline import ElapsedAxis, hold_steps
from app.ui.retranslate import TextSource, text_of

# Columns of the ring buffer, in the order rows are stored.
COLUMNS = ("t_s", "kv_cache_usage", "running", "waiting", "preemptions")
MAX_MARKS = 200
# Idle, the charts show this much of the past; during and after a run, from the run's start.
IDLE_SPAN_S = 600.0


class TimelineCharts(QWidget):
    """Rows (t_s, KV %, running, waiting, preemptions) in a ring, drawn only by `draw()`."""

    def __init__(self, parent: QWidget | None = None, capacity: int = 20_000) -> None:
        super().__init__(parent)
        self.buffer = RingBuffer(capacity, len(COLUMNS))
        self.run_start_s: float | None = None
        self._marks: list[tuple[float, TextSource, list[pg.InfiniteLine]]] = []
        self._ranges: dict[object, tuple[float, float]] = {}
        self.kv_plot = make_plot()
        self.kv_plot.setYRange(-6, 102, padding=0)  # room for the 0 label
        self.queue_plot = make_plot()
        self.preempt_plot = make_plot()
        for plot in (self.queue_plot, self.preempt_plot):
            plot.setXLink(self.kv_plot)
        for plot in self.plots():
            # Ranges are set by draw() in steps; auto-range would move (and redraw) the axes
            # with every sample.
            plot.getPlotItem().disableAutoRange()
            plot.getPlotItem().setAxisItems({"bottom": ElapsedAxis("bottom")})
            for side in ("left", "bottom"):  # "time (s) (x0.001)" helps nobody
                axis = plot.getPlotItem().getAxis(side)
                axis.enableAutoSIPrefix(False)
                # Ranges change in steps: between them the axes (and grid) are blitted from a
                # cache, not drawn again with each new sample.
                axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.kv_curve = self.kv_plot.plot(pen={"color": PALETTE[0], "width": 2}, connect="finite")
        # One curve, named by the title: a legend box there sat under the run's mark labels.
        if (kv_legend := self.kv_plot.getPlotItem().legend) is not None:
            kv_legend.hide()
        self.running_curve = self.queue_plot.plot(
            name="running", pen={"color": PALETTE[2], "width": 2}, connect="finite"
        )
        self.waiting_curve = self.queue_plot.plot(
            name="waiting", pen={"color": PALETTE[1], "width": 2}, connect="finite"
        )
        self.preempt_curve = self.preempt_plot.plot(
            name="preemptions", pen={"color": PALETTE[3], "width": 2}, connect="finite"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.kv_plot, 3)
        layout.addWidget(self.queue_plot, 3)
        layout.addWidget(self.preempt_plot, 2)
        # Below these heights the axis labels print over each other.
        self.kv_plot.setMinimumHeight(140)
        self.queue_plot.setMinimumHeight(140)
        self.preempt_plot.setMinimumHeight(110)
        self.retranslate()

    def plots(self) -> tuple[pg.PlotWidget, ...]:
        return (self.kv_plot, self.queue_plot, self.preempt_plot)

    def retranslate(self) -> None:
        # The words keep the context they were translated under (the panel's).
        seconds = QCoreApplication.translate("ServerMetricsPanel", "time (m:ss)")
        set_words(
            self.kv_plot,
            QCoreApplication.translate("ServerMetricsPanel", "KV-cache usage"),
            QCoreApplication.translate("ServerMetricsPanel", "%"),
            seconds,
        )
        set_words(
            self.queue_plot,
            QCoreApplication.translate("ServerMetricsPanel", "Requests"),
            QCoreApplication.translate("ServerMetricsPanel", "requests"),
            seconds,
        )
        set_words(
            self.preempt_plot,
            QCoreApplication.translate("ServerMetricsPanel", "Preemptions (since start)"),
            QCoreApplication.translate("ServerMetricsPanel", "count"),
            seconds,
        )
        for plot, curve, name in (
            (
                self.kv_plot,
                self.kv_curve,
                QCoreApplication.translate("ServerMetricsPanel", "KV usage"),
            ),
            (
                self.queue_plot,
                self.running_curve,
                QCoreApplication.translate("ServerMetricsPanel", "running"),
            ),
            (
                self.queue_plot,
                self.waiting_curve,
                QCoreApplication.translate("ServerMetricsPanel", "waiting"),
            ),
            (
                self.preempt_plot,
                self.preempt_curve,
                QCoreApplication.translate("ServerMetricsPanel", "preemptions"),
            ),
        ):
            rename_curve(plot.getPlotItem(), curve, name)
        # Marks made before a language switch ("sweep", "c=8") are re-made in the new one.
        for _t, label, lines in self._marks:
            lines[0].label.setFormat(text_of(label))

    # -- data --------------------------------------------------------------------------------
    def add_row(self, row: list[float]) -> bool:
        """Append a row (KV in %); False for a row from before the newest one (another clock)."""
        if len(self.buffer) and row[0] < self.buffer.tail(1)[0, 0]:
            return False
        self.buffer.append(*row)
        return True

    def last_row(self) -> list[float] | None:
        return list(self.buffer.tail(1)[0]) if len(self.buffer) else None

    def clear(self) -> None:
        self.buffer.clear()
        self._ranges.clear()
        for _t, _label, lines in self._marks:
            for plot, line in zip(self.plots(), lines, strict=True):
                plot.removeItem(line)
        self._marks.clear()
        self.run_start_s = None

    def mark(self, t: float, label: TextSource) -> None:
        """A dotted line at `t` on each chart, labelled on the first."""
        lines = []
        for n, plot in enumerate(self.plots()):
            line = pg.InfiniteLine(
                pos=t,
                angle=90,
                pen=pg.mkPen("#888888", style=Qt.PenStyle.DotLine),
                label=text_of(label) if n == 0 else None,
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
            for plot, line in zip(self.plots(), old, strict=True):
                plot.removeItem(line)

    def marks(self) -> list[tuple[float, str]]:
        return [(t, text_of(label)) for t, label, _lines in self._marks]

    # -- drawing -----------------------------------------------------------------------------
    def draw(self) -> None:
        """Push the ring into the curves; move the axes only when a range step is crossed."""
        rows = self.buffer.view()
        curves = (self.kv_curve, self.running_curve, self.waiting_curve, self.preempt_curve)
        if len(rows) == 0:
            for curve in curves:
                curve.setData([], [])
            return
        # Axes (with their grids) are the costly part of a repaint: the ranges move in steps
        # (a minute at the left, 1-1.5-2-3-5-7 at the right), not with every sample.
        end = float(rows[-1, 0])
        start = math.floor((end - IDLE_SPAN_S) / 60.0) * 60.0
        if self.run_start_s is not None:
            start = min(start, self.run_start_s - 5.0)
        start = max(float(rows[0, 0]), start)
        right = start + time_limit(max(end - start, 10.0))
        # What is in view, one more span to its left (a drag shows it) and the sample held
        # into it: after a day the ring holds 20 000 rows, all handed to four curves a second.
        keep = int(np.searchsorted(rows[:, 0], start - (right - start), side="right"))
        rows = rows[max(0, keep - 1) :]
        t = rows[:, 0]
        for curve, column in zip(curves, (1, 2, 3, 4), strict=True):
            curve.setData(*hold_steps(t, rows[:, column]))
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
