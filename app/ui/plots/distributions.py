"""Per-point distributions: TTFT / TPOT / ITL / E2EL histograms or CDFs, overlaid across points
and runs, and per-request scatters (TTFT vs prompt tokens, E2E vs output tokens) with failed
requests in their own colour. Fed with RequestSamples (app.bench.results.request_samples)."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.bench.results.request_samples import RequestSamples
from app.ui.plots.chart import PALETTE, coloured, log_ticks, make_plot

METRICS = ("ttft", "tpot", "itl", "e2el")
FAILED_COLOUR = "#C0392B"
HIST_BINS = 40


def log_bins(values: Sequence[np.ndarray], n: int = HIST_BINS) -> np.ndarray | None:
    """Bin edges spaced evenly in log10 over all the series (None when nothing is positive)."""
    positive = [v[v > 0] for v in values if len(v)]
    positive = [v for v in positive if len(v)]
    if not positive:
        return None
    lo = min(float(v.min()) for v in positive)
    hi = max(float(v.max()) for v in positive)
    if hi <= lo:
        hi = lo * 1.1 + 1e-9
    return np.logspace(math.log10(lo) - 1e-3, math.log10(hi) + 1e-3, n + 1)


def cdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted values, share of requests at or below each, in %) for a step CDF."""
    x = np.sort(values[np.isfinite(values)])
    return x, np.arange(1, len(x) + 1) / max(len(x), 1) * 100.0


def hist_cdf(edges: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A binned CDF: the share at or below each bin's upper edge, in %."""
    total = float(counts.sum())
    if total <= 0:
        return np.empty(0), np.empty(0)
    return edges[1:], np.cumsum(counts) / total * 100.0


def _numbers_only_with_data(plot: pg.PlotItem) -> None:
    """No numbers on the axes of an empty chart: pyqtgraph's 0.2-0.8 there looked like data."""
    shown = bool(plot.listDataItems())
    for side in ("left", "bottom"):
        plot.getAxis(side).setStyle(showValues=shown)


class DistributionsView(QWidget):
    """One distribution chart (histogram or CDF of a chosen metric) and one scatter chart.

    set_series([(name, samples), ...]) shows several points or runs overlaid, one colour each.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._series: list[tuple[str, RequestSamples]] = []
        self.metric_box = QComboBox()
        self.mode_box = QComboBox()
        self.scatter_kind = QComboBox()
        self.log_x = QCheckBox()
        self.log_x.setChecked(True)
        for combo in (self.metric_box, self.mode_box, self.scatter_kind):
            combo.currentIndexChanged.connect(self._redraw)
            # Narrow panels (1280x720 with both docks) squeeze the names, not the charts.
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(6)
        # Its whole name when there is room ("TTFT vs pror" at 1280x720): the row's stretch
        # gave way to the combo's six-letter size hint. It still shrinks when there is not.
        self.scatter_kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.log_x.toggled.connect(self._redraw)
        self.note = QLabel()
        self.note.setWordWrap(True)
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        for w in (self.metric_box, self.mode_box, self.log_x):
            controls.addWidget(w)
        controls.addStretch(1)
        controls.addWidget(self.scatter_kind)
        self.dist_plot = make_plot("", "", "", "9pt")
        self.scatter_plot = make_plot("", "", "", "9pt")
        for plot in (self.dist_plot, self.scatter_plot):
            for side in ("left", "bottom"):
                plot.getPlotItem().getAxis(side).enableAutoSIPrefix(False)
        # Forty bins need no clipping to the view: with it, a histogram (stepMode) added while
        # the chart was zoomed in was cut to one edge too few and pyqtgraph raised.
        self.dist_plot.getPlotItem().setClipToView(False)
        self.dist_plot.getPlotItem().setDownsampling(auto=False, ds=1)
        charts = QHBoxLayout()
        charts.setContentsMargins(0, 0, 0, 0)
        charts.addWidget(self.dist_plot, 3)
        charts.addWidget(self.scatter_plot, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.note)
        layout.addLayout(charts, 1)
        self.retranslate()

    # ---- texts -----------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Every text of the view; run again on LanguageChange (nothing is rebuilt)."""
        names = {
            "ttft": self.tr("TTFT"),
            "tpot": self.tr("TPOT"),
            "itl": self.tr("ITL"),
            "e2el": self.tr("E2E latency"),
        }
        self._refill(self.metric_box, [(names[m], m) for m in METRICS])
        self._refill(
            self.mode_box, [(self.tr("Histogram"), "hist"), (self.tr("CDF (cumulative)"), "cdf")]
        )
        self._refill(
            self.scatter_kind,
            [
                (self.tr("TTFT vs prompt tokens"), "ttft"),
                (self.tr("E2E latency vs output tokens"), "e2el"),
            ],
        )
        self.log_x.setText(self.tr("Log scale"))
        self.log_x.setToolTip(
            self.tr("A logarithmic time axis keeps a long tail readable next to the bulk.")
        )
        self._redraw()

    @staticmethod
    def _refill(combo: QComboBox, items: list[tuple[str, str]]) -> None:
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        for text, data in items:
            combo.addItem(text, data)
        index = combo.findData(current)
        combo.setCurrentIndex(max(0, index))
        combo.blockSignals(False)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # ---- data ------------------------------------------------------------------------------
    def set_series(self, series: Sequence[tuple[str, RequestSamples]]) -> None:
        self._series = [(name, s) for name, s in series]
        self._redraw()

    def series_names(self) -> list[str]:
        return [name for name, _s in self._series]

    def set_metric(self, metric: str) -> None:
        self.metric_box.setCurrentIndex(self.metric_box.findData(metric))

    def set_mode(self, mode: str) -> None:
        self.mode_box.setCurrentIndex(self.mode_box.findData(mode))

    # ---- drawing ---------------------------------------------------------------------------
    def _redraw(self) -> None:
        metric = self.metric_box.currentData() or "ttft"
        mode = self.mode_box.currentData() or "hist"
        log_x = self.log_x.isChecked()
        self._draw_distribution(metric, mode, log_x)
        self._draw_scatter(self.scatter_kind.currentData() or "ttft")
        if not self._series:
            self.note.setText(self.tr("Click a point in the table to see its distributions."))
        else:
            failed = sum(s.failed for _n, s in self._series)
            requests = sum(len(s.ok) for _n, s in self._series)
            self.note.setText(
                self.tr("{0} request(s), {1} failed.").format(requests, failed)
                if failed
                else self.tr("{0} request(s), none failed.").format(requests)
            )

    def _values(self, samples: RequestSamples, metric: str) -> np.ndarray:
        return np.asarray(samples.values(metric), dtype=float)

    def _draw_distribution(self, metric: str, mode: str, log_x: bool) -> None:
        plot = self.dist_plot.getPlotItem()
        plot.clear()
        if plot.legend is not None:
            plot.legend.clear()
        plot.setLogMode(x=log_x, y=False)
        name = self.metric_box.currentText()
        plot.setLabel("bottom", self.tr("{0} (ms)").format(name))
        if mode == "cdf":
            plot.setTitle(self.tr("{0}: share of requests at or below").format(name), size="9pt")
            plot.setLabel("left", self.tr("% of requests"))
        else:
            plot.setTitle(self.tr("{0}: histogram").format(name), size="9pt")
            plot.setLabel("left", self.tr("% per bin"))
        raw = [self._values(s, metric) for _n, s in self._series]
        edges = log_bins(raw) if log_x else None
        for n, ((label, samples), values) in enumerate(zip(self._series, raw, strict=True)):
            colour = PALETTE[n % len(PALETTE)]
            pen = pg.mkPen(colour, width=2)
            if metric == "itl" and not len(values) and any(samples.itl_counts):
                # Only the file's ITL histogram: draw it on its own (fixed, log) bins.
                h_edges = np.asarray(samples.itl_edges_ms, dtype=float)
                counts = np.asarray(samples.itl_counts, dtype=float)
                used = np.flatnonzero(counts)
                lo, hi = used[0], used[-1] + 1
                h_edges, counts = h_edges[lo : hi + 1], counts[lo:hi]
                if mode == "cdf":
                    x, y = hist_cdf(h_edges, counts)
                    plot.plot(x, y, pen=pen, name=label, stepMode=None)
                else:
                    share = counts / counts.sum() * 100.0
                    plot.plot(h_edges, share, pen=pen, name=label, stepMode="center")
                continue
            values = values[np.isfinite(values)]
            if log_x:
                values = values[values > 0]
            if not len(values):
                continue
            if mode == "cdf":
                x, y = cdf(values)
                plot.plot(np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1], pen=pen, name=label)
            else:
                bins = edges if edges is not None else HIST_BINS
                counts, used_edges = np.histogram(values, bins=bins)
                share = counts / len(values) * 100.0
                plot.plot(used_edges, share, pen=pen, name=label, stepMode="center")
        self._log_ticks(plot, log_x)
        _numbers_only_with_data(plot)
        plot.enableAutoRange()

    @staticmethod
    def _log_ticks(plot: pg.PlotItem, log_x: bool) -> None:
        """1-2-5 labels on a log axis (pyqtgraph's own print every minor tick over each other)."""
        axis = plot.getAxis("bottom")
        if not log_x:
            axis.setTicks(None)
            return
        xs = [item.xData for item in plot.listDataItems() if item.xData is not None]
        xs = [x[np.isfinite(x) & (x > 0)] for x in xs]
        xs = [x for x in xs if len(x)]
        if not xs:
            axis.setTicks(None)
            return
        lo = math.floor(math.log10(min(float(x.min()) for x in xs)))
        hi = math.ceil(math.log10(max(float(x.max()) for x in xs)))
        axis.setTicks(log_ticks(lo, max(hi, lo + 1)))

    def _draw_scatter(self, kind: str) -> None:
        plot = self.scatter_plot.getPlotItem()
        plot.clear()
        if plot.legend is not None:
            plot.legend.clear()
        if kind == "e2el":
            title = self.tr("E2E latency vs output tokens")
            plot.setLabel("bottom", self.tr("output tokens"))
            plot.setLabel("left", self.tr("E2E latency (ms)"))
        else:
            title = self.tr("TTFT vs prompt tokens")
            plot.setLabel("bottom", self.tr("prompt tokens"))
            plot.setLabel("left", self.tr("TTFT (ms)"))
        # The series are named in the title's colours: a legend box sat over the dots.
        names: list[tuple[str, str]] = [(title, "")]
        failed_x: list[float] = []
        failed_y: list[float] = []
        for n, (label, samples) in enumerate(self._series):
            pairs = samples.e2el_by_output if kind == "e2el" else samples.ttft_by_prompt
            bad = samples.failed_by_output if kind == "e2el" else samples.failed_by_prompt
            colour = PALETTE[n % len(PALETTE)]
            if pairs:
                xy = np.asarray(pairs, dtype=float)
                plot.plot(
                    xy[:, 0],
                    xy[:, 1],
                    pen=None,
                    symbol="o",
                    symbolSize=5,
                    symbolBrush=colour,
                    symbolPen=None,
                )
                if len(self._series) > 1:
                    names.append(("● " + html.escape(label), colour))
            for x, y in bad:
                failed_x.append(float(x))
                failed_y.append(float(y))
        if failed_x:
            plot.plot(
                failed_x,
                failed_y,
                pen=None,
                symbol="x",
                symbolSize=9,
                symbolBrush=FAILED_COLOUR,
                symbolPen=pg.mkPen(FAILED_COLOUR, width=2),
            )
            names.append(("✕ " + self.tr("failed (time to failure)"), FAILED_COLOUR))
        plot.setTitle(coloured(*names), size="9pt")
        _numbers_only_with_data(plot)
        plot.enableAutoRange()

    def scatter_counts(self) -> tuple[int, int]:
        """(successful dots, failed dots) on the scatter: for tests."""
        ok = failed = 0
        for item in self.scatter_plot.getPlotItem().listDataItems():
            x, _y = item.getData()
            n = 0 if x is None else len(x)
            if item.opts.get("symbol") == "x":
                failed += n
            else:
                ok += n
        return ok, failed
