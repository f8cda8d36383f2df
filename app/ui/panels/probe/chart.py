"""The Probe tab's chart: inter-token latency of the one streaming request, drawn by a timer
and re-ranged in steps, with the final TPOT as a dashed line."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from app.ui.plots.chart import no_direct_export
from app.ui.theme import accent

X_START, Y_START = 1.0, 50.0  # seconds, ms: the empty chart's range


class ProbeChart(pg.PlotWidget):
    def __init__(self) -> None:
        super().__init__()
        no_direct_export(self)
        self.setObjectName("probeChart")
        self.setMinimumHeight(160)
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setClipToView(True)
        item.setDownsampling(auto=True, mode="peak")
        # Created once; the timer only feeds it new arrays. No symbols and no antialiasing while
        # streaming: every millisecond spent painting here delays the next token's timestamp.
        self.curve = item.plot([], [], pen=pg.mkPen(accent(), width=1.5), antialias=False)
        item.disableAutoRange()
        self._x_max, self._y_max = X_START, Y_START
        item.setRange(xRange=(0, self._x_max), yRange=(0, self._y_max), padding=0)
        self.tpot_line = pg.InfiniteLine(
            angle=0, movable=False, pen=pg.mkPen(accent(), style=Qt.PenStyle.DashLine)
        )
        self.tpot_line.setVisible(False)
        item.addItem(self.tpot_line)
        # Before the first probe: a sentence instead of an axis from 0 to 1 s that measures
        # nothing (its numbers read as a result).
        self.empty_text = pg.TextItem("", color="#888888", anchor=(0.5, 0.5))
        item.addItem(self.empty_text)
        self._show_empty(True)

    def retranslate(self, tip: str) -> None:
        self.setToolTip(tip)
        item = self.getPlotItem()
        # The units in words, as on every other chart: pyqtgraph's units= prints an English
        # "(ms)" whatever the language.
        item.setLabel("left", self.tr("Inter-token latency (ms)"))
        item.setLabel("bottom", self.tr("Time since request sent (s)"))
        self.empty_text.setText(self.tr("Run a probe: the gap before each token appears here."))

    def _show_empty(self, empty: bool) -> None:
        item = self.getPlotItem()
        for name in ("left", "bottom"):
            item.getAxis(name).setStyle(showValues=not empty)
        self.empty_text.setVisible(empty)
        self.empty_text.setPos(self._x_max / 2, self._y_max / 2)

    def is_empty(self) -> bool:
        return self.empty_text.isVisible()

    def show_data(self, x: np.ndarray, y: np.ndarray) -> None:
        if len(x) and self.is_empty():
            self._show_empty(False)
        self.curve.setData(x, y)
        self._grow_range(x, y)

    def _grow_range(self, x: np.ndarray, y: np.ndarray) -> None:
        """Widen the axes in steps: re-ranging every frame relayouts the axes every frame."""
        if not len(x):
            return
        x_last = float(x[-1])
        y_top = float(np.nanmax(y))
        changed = False
        while x_last > self._x_max:
            self._x_max *= 1.5
            changed = True
        while y_top > self._y_max:
            self._y_max *= 2
            changed = True
        if changed:
            self._set_range()

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        self._show_empty(not len(x))
        self._x_max = max(1.0, float(x[-1]) * 1.02) if len(x) else X_START
        self._y_max = max(10.0, float(np.nanmax(y)) * 1.1) if len(y) else Y_START
        self._set_range()

    def reset(self) -> None:
        self.curve.setData([], [])
        self._x_max, self._y_max = X_START, Y_START
        self._set_range()
        self.tpot_line.setVisible(False)
        self._show_empty(True)

    def show_tpot(self, ms: float | None) -> None:
        if ms is not None:
            self.tpot_line.setValue(ms)
            self.tpot_line.setVisible(True)

    def _set_range(self) -> None:
        self.getPlotItem().setRange(xRange=(0, self._x_max), yRange=(0, self._y_max), padding=0)
