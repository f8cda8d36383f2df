"""The roofline panel's two plots: TPOT against batch, and the log-log roofline."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, QTimer

from app.roofline.scenario import BATCH_GRID, Scenario
from app.ui.plots.chart import coloured, no_direct_export, rename_curve
from app.ui.plots.declutter import (
    Declutter,
    Segment,
    leader_to,
    name_points,
    overlaps,
    segments_cross,
    tip_with_hidden,
)

COLORS = {"floor": "#0072B2", "line": "#D55E00", "measured": "#009E73", "live": "#CC79A7"}
LEADER_PX = 12.0  # a label this close to its point reads as its own: no leader line


def _move_by(label: pg.TextItem, shift: QPointF) -> None:
    """Move a label by `shift` scene pixels."""
    parent = label.parentItem()
    label.setPos(parent.mapFromScene(parent.mapToScene(label.pos()) + shift))
    label.updateTransform(force=True)


class Measured(NamedTuple):
    concurrency: int
    p50_ms: float
    p99_ms: float
    running: float | None
    output_tok_s: float | None = None  # the point's output throughput (the Pareto tab)

    @property
    def batch(self) -> float:
        """Where the point sits: the server's running batch when known, else the concurrency."""
        return self.running if self.running and self.running > 0 else float(self.concurrency)


def _axes(plot: pg.PlotWidget, log_y: bool, legend: bool = True) -> pg.PlotItem:
    """The plot's item with a log x axis, a faint grid and (if `legend`) a legend."""
    item = plot.getPlotItem()
    item.setLogMode(x=True, y=log_y)
    item.showGrid(x=True, y=True, alpha=0.25)
    if legend:
        item.addLegend(offset=(10, 10))
    return item


def _dots(
    item: pg.PlotItem, symbol: str, size: int, color: str, name: str | None = None
) -> pg.PlotDataItem:
    """An empty series drawn as markers only, to be filled by setData."""
    markers = {"symbol": symbol, "symbolSize": size, "symbolBrush": color, "symbolPen": None}
    return item.plot([], [], pen=None, name=name, **markers)


class BatchPlot(pg.PlotWidget):
    """TPOT (ms) against batch: the decode floor, where the KV cache fills, measured points."""

    def __init__(self) -> None:
        super().__init__()
        no_direct_export(self)
        # The legend is the title's coloured words: a legend box sat over the measured points
        # and, in a narrow dock, ran past the chart's right edge.
        item = _axes(self, False, legend=False)
        # Powers of two read better than pyqtgraph's log-axis minor labels, which collide.
        ticks = [(math.log10(2**k), str(2**k)) for k in range(11)]
        item.getAxis("bottom").setTicks([ticks, []])
        self.floor_curve = item.plot([], [], pen=pg.mkPen(COLORS["floor"], width=2), name="-")
        self.floor_line = pg.InfiniteLine(
            angle=0,
            movable=False,
            pen=pg.mkPen(COLORS["line"], width=1, style=Qt.PenStyle.DashLine),
            label="",
            labelOpts={"position": 0.5, "color": COLORS["line"], "anchors": [(0.5, 0), (0.5, 0)]},
        )
        item.addItem(self.floor_line)
        self.kv_line = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen("#999999", width=1, style=Qt.PenStyle.DotLine),
            label="",
            # Left of the line: at the right end of the axis a label to its right was cut off.
            # Low down, under the floor curve that climbs there: the points' labels stack
            # upwards from their p50s and met it at 60 % of the height.
            labelOpts={"position": 0.12, "color": "#999999", "anchors": [(1, 0.5), (1, 0.5)]},
        )
        item.addItem(self.kv_line)
        self.band_curve = item.plot(
            [],
            [],
            pen=pg.mkPen(COLORS["measured"], width=6),
            connect="pairs",
            name="-",
        )
        self.band_curve.setOpacity(0.45)
        self.measured_curve = _dots(item, "o", 9, COLORS["measured"])
        name_points(self.measured_curve)  # hovering a point names it ("c16: 67%")
        self.live_curve = _dots(item, "d", 11, COLORS["live"], "-")
        self.mbu_texts: list[pg.TextItem] = []
        # Each label's point (for its leader line once the label is placed).
        self._label_points: list[Measured] = []
        # Thin lines from a point to its label when the label had to move away; never two
        # crossing (see _uncross).
        self.leader_curve = pg.PlotDataItem(
            [], [], pen=pg.mkPen(COLORS["measured"], width=1), connect="pairs"
        )
        # Outside the view's bounds: a leader that moved must not move the range, which
        # lays the labels out again (and moves the leaders).
        item.addItem(self.leader_curve, ignoreBounds=True)
        self._last: tuple[Scenario, list[Measured], float | None, float] | None = None
        self._laid_out_for: tuple[float, ...] = ()
        # Label offsets are in pixels: lay them out again when the x range settles or changes.
        self._relayout_timer = QTimer(self)
        self._relayout_timer.setSingleShot(True)
        self._relayout_timer.setInterval(0)
        self._relayout_timer.timeout.connect(self._relayout_now)
        item.getViewBox().sigXRangeChanged.connect(self._relayout)
        # The labels' last word on screen: stacked in data units above, they could still meet
        # (a label sent left of its point beside one kept right); then one moves to a free
        # place or is left out, named in the tooltip.
        self._tip = ""
        self.declutter = Declutter(item, on_placed=self._draw_leaders, far=True)
        self.retranslate()

    def retranslate(self) -> None:
        item = self.getPlotItem()
        item.setLabel("left", self.tr("TPOT (ms)"))
        item.setLabel("bottom", self.tr("batch (running sequences)"))
        item.setTitle(
            coloured(
                ("— " + self.tr("floor"), COLORS["floor"]),
                ("▮ " + self.tr("measured p50–p99"), COLORS["measured"]),
                ("◆ " + self.tr("live"), COLORS["live"]),
            ),
            size="9pt",
        )
        self._tip = self.tr(
            "The decode floor over batch size; each sweep point's TPOT p50 (dot) and p99 "
            "(top of its bar), labelled with its concurrency and MBU; the live TPOT of a "
            "probe or a running sweep (diamond)."
        )
        self.setToolTip(self._tip)

    def show_floor(self, s: Scenario, measured: Sequence[Measured], floor_tip: str) -> None:
        """Draw the floor curve and the batch-1 and KV-full lines for the scenario."""
        max_batch = s.max_batch()
        # Past the KV capacity the floor is unreachable: draw a little beyond it, not to 1024.
        limit = max(64, 2 * max_batch, *(2 * m.batch for m in measured))
        curve = s.floor_curve(tuple(b for b in BATCH_GRID if b <= limit) or BATCH_GRID[:1])
        self.floor_curve.setData([b for b, _ in curve], [ms for _, ms in curve])
        floor_ms = curve[0][1]
        self.floor_line.setValue(floor_ms)
        self.floor_line.label.setFormat(self.tr("batch-1 floor {v:.1f} ms").format(v=floor_ms))
        self.floor_line.setToolTip(floor_tip)
        self.kv_line.setVisible(0 < max_batch <= BATCH_GRID[-1])
        if max_batch > 0:
            self.kv_line.setValue(math.log10(max_batch))
            self.kv_line.label.setFormat(self.tr("KV full\nat {n}").format(n=max_batch))

    def show_measured(
        self,
        s: Scenario,
        measured: Sequence[Measured],
        live_ms: float | None,
        live_batch: float = 1.0,
    ) -> None:
        """Draw each point's p50 with its MBU, its p50–p99 band, and the live TPOT (a probe's
        at batch 1, a running sweep's at the server's batch)."""
        self._last = (s, list(measured), live_ms, live_batch)
        item = self.getPlotItem()
        for text in self.mbu_texts:
            item.removeItem(text)
        self.mbu_texts = []
        self._label_points = []
        self.measured_curve.setData(
            [m.batch for m in measured],
            [m.p50_ms for m in measured],
            data=[self._label_text(s, m) for m in measured],
        )
        band_x: list[float] = []
        band_y: list[float] = []
        for m in measured:
            band_x += [m.batch, m.batch]
            band_y += [m.p50_ms, m.p99_ms]
        self.band_curve.setData(band_x, band_y)
        if live_ms is not None:
            self.live_curve.setData([live_batch], [live_ms])
        else:
            self.live_curve.setData([], [])
        # y from 0 so the floor's distance from zero is honest and its label fits below it
        _, ys = self.floor_curve.getData()
        top = max([*(ys if ys is not None else [1.0]), *band_y, live_ms or 0.0]) * 1.08
        labels, line = self._label_heights(s, measured, top)
        if labels and labels[-1][1] > top:
            top = labels[-1][1] * 1.06
            labels, line = self._label_heights(s, measured, top)
        obstacles = list(measured)
        if live_ms is not None:  # a label must not sit under the live marker either
            obstacles.append(Measured(0, live_ms, live_ms, live_batch))
        self._place_labels(labels, obstacles, line)
        self._draw_leaders()
        item.setYRange(0, top, padding=0)
        self._laid_out_for = self._view_key()
        # Each label beside its own point (either side), its leader short and clear of the
        # other points' markers and bars; with no such place it is left out, named on its
        # point. (A label stacked far above it read as another point's: "c4" at c16's bar.)
        self.declutter.set_labels(
            self.mbu_texts,
            [self.measured_curve, self.live_curve],
            ignore=[self.leader_curve],
            points=[QPointF(math.log10(max(m.batch, 1e-3)), m.p50_ms) for m in self._label_points],
        )

    def _place_labels(
        self, labels: list[tuple[Measured, float, str]], obstacles: Sequence[Measured], line: float
    ) -> None:
        """Add the MBU labels beside their points (right, or left where the floor curve
        climbs through that place), stacked clear of each other; the screen pass (Declutter)
        then moves any that meet another point's band, a marker or a curve. `obstacles` are
        kept for the signature's sake: the bands are lines the screen pass avoids."""
        del obstacles
        item = self.getPlotItem()
        vb = item.getViewBox()
        (x_lo, x_hi), width_px = vb.viewRange()[0], max(vb.width(), 100.0)
        per_px = (x_hi - x_lo) / width_px  # log10 units per pixel
        floor_x, floor_y = self._floor_points()
        for m, y, text in labels:
            label = pg.TextItem(text, color=COLORS["measured"], anchor=(0.0, 0.5))
            at = math.log10(max(m.batch, 1e-3))
            x = at + 6 * per_px
            span = (label.boundingRect().width() + 4) * per_px
            # The floor rises steeply at large batches: a label to the right of a point just
            # above it would run across the curve, so it goes to the left of the point.
            left = len(floor_x) > 1 and float(np.interp(x + span, floor_x, floor_y)) >= (
                y - line / 2
            )
            if left and at - 6 * per_px - span < x_lo:
                # No room left of the point: it stays right, lifted clear of the curve.
                left = False
                y = max(y, float(np.interp(x + span, floor_x, floor_y)) + line / 2)
            if left:
                label.setAnchor((1.0, 0.5))
                x = at - 6 * per_px
                # Still touching (a point just above the floor): lifted clear of it.
                y = max(y, float(np.interp(at, floor_x, floor_y)) + line / 2)
            label.setPos(x, y)
            item.addItem(label, ignoreBounds=True)  # the range follows the data, not labels
            self.mbu_texts.append(label)
            self._label_points.append(m)

    def _point_px(self, m: Measured) -> QPointF:
        """A point's marker on screen (scene pixels)."""
        vb = self.getPlotItem().getViewBox()
        return vb.mapViewToScene(QPointF(math.log10(max(m.batch, 1e-3)), m.p50_ms))

    def _leader(self, m: Measured, label: pg.TextItem) -> Segment | None:
        """The leader from a point to its label's near side (scene pixels), or None when the
        label sits beside its point and needs none."""
        p = self._point_px(m)
        seg = leader_to((p.x(), p.y()), label.sceneBoundingRect())
        return None if math.dist(seg[:2], seg[2:]) <= LEADER_PX else seg

    def _uncross(self) -> None:
        """No two leader lines cross: two crossing leaders swap their labels' places (which
        shortens both: a pair of crossing segments is always longer than the uncrossed
        pair), or, when the swap does not fit, the label with the longer leader is left out
        (named on its point and in the tooltip)."""
        shown = [
            (m, label)
            for m, label in zip(self._label_points, self.mbu_texts, strict=True)
            if label.isVisible() and label.scene() is not None
        ]
        for _ in range(len(shown) ** 2 + 1):
            pair = self._crossing(shown)
            if pair is None:
                return
            (m1, a), (m2, b) = pair
            ca, cb = a.sceneBoundingRect().center(), b.sceneBoundingRect().center()
            _move_by(a, cb - ca)
            _move_by(b, ca - cb)
            others = [lbl.sceneBoundingRect() for _, lbl in shown if lbl is not a and lbl is not b]
            fits = not any(
                overlaps(lbl.sceneBoundingRect(), r) for lbl in (a, b) for r in others
            ) and not overlaps(a.sceneBoundingRect(), b.sceneBoundingRect())
            # Swapped, each leader must still be short and clear of the other points.
            fits = fits and self.declutter.fits_leader(a) and self.declutter.fits_leader(b)
            if fits and self._crossing([(m1, a), (m2, b)]) is None:
                continue
            _move_by(a, ca - cb)
            _move_by(b, cb - ca)
            la, lb = self._leader(m1, a), self._leader(m2, b)
            length = [0.0 if seg is None else math.dist(seg[:2], seg[2:]) for seg in (la, lb)]
            drop = a if length[0] >= length[1] else b
            drop.setVisible(False)
            self.declutter.hidden.append(drop.toPlainText())
            shown = [(m, lbl) for m, lbl in shown if lbl is not drop]

    def _crossing(
        self, shown: Sequence[tuple[Measured, pg.TextItem]]
    ) -> tuple[tuple[Measured, pg.TextItem], tuple[Measured, pg.TextItem]] | None:
        leaders = [(pair, self._leader(*pair)) for pair in shown]
        drawn = [(pair, seg) for pair, seg in leaders if seg is not None]
        for k, (first, s1) in enumerate(drawn):
            for second, s2 in drawn[k + 1 :]:
                if segments_cross(s1, s2):
                    return first, second
        return None

    def leader_segments(self) -> list[Segment]:
        """The leader lines as drawn (scene pixels), for whoever checks the layout."""
        return [
            seg
            for m, label in zip(self._label_points, self.mbu_texts, strict=True)
            if label.isVisible() and (seg := self._leader(m, label)) is not None
        ]

    def _draw_leaders(self) -> None:
        """A thin line from each point to its label where the label moved away from it, none
        crossing another; the labels left out for want of room named in the tooltip (and on
        their points)."""
        self._uncross()
        vb = self.getPlotItem().getViewBox()
        xs: list[float] = []
        ys: list[float] = []
        for x1, y1, x2, y2 in self.leader_segments():
            for px, py in ((x1, y1), (x2, y2)):
                at = vb.mapSceneToView(QPointF(px, py))
                xs.append(10 ** at.x())
                ys.append(at.y())
        self.leader_curve.setData(xs, ys)
        self.setToolTip(tip_with_hidden(self._tip, self.declutter.hidden))

    def _floor_points(self) -> tuple[np.ndarray, np.ndarray]:
        """The floor curve as (log10 batch, ms), as drawn (xData is the data as given)."""
        xs, ys = self.floor_curve.xData, self.floor_curve.yData
        if xs is None or ys is None or len(xs) == 0:
            return np.empty(0), np.empty(0)
        return np.log10(np.maximum(np.asarray(xs, dtype=float), 1e-3)), np.asarray(ys, float)

    def _label_heights(
        self, s: Scenario, measured: Sequence[Measured], top: float
    ) -> tuple[list[tuple[Measured, float, str]], float]:
        """Each point's label ("c16: 75%": concurrency and MBU) and the height it sits at.

        Points of close batches (a sweep's 8, 16 and 32 often run at 4-6 sequences) would
        print their labels over each other, so the labels are stacked: each at its point's
        p50 or one text line above the label below it, whichever is higher. Also returns the
        height of one line on the y axis.
        """
        pixels = self.getPlotItem().getViewBox().height()
        pixels = pixels if pixels > 50 else max(120.0, self.height() * 0.75)
        # A TextItem's box (text plus its margins) in pixels, as a height on the y axis.
        line = top / pixels * (pg.TextItem("c1: 0%").boundingRect().height() + 1)
        placed: list[tuple[Measured, float, str]] = []
        below = -math.inf
        for m in sorted(measured, key=lambda m: (m.p50_ms, m.batch)):
            y = max(m.p50_ms, below + line)
            placed.append((m, y, self._label_text(s, m)))
            below = y
        return placed, line

    def _label_text(self, s: Scenario, m: Measured) -> str:
        return self.tr("c{c}: {mbu:.0f}%").format(
            c=m.concurrency, mbu=s.mbu(m.batch, m.p50_ms) * 100
        )

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._relayout()

    def _relayout(self, *_: object) -> None:
        """Lay the labels out again once the event loop is idle (ranges settle lazily)."""
        timer = getattr(self, "_relayout_timer", None)  # resized inside PlotWidget.__init__ too
        if timer is not None:
            timer.start()

    def _view_key(self) -> tuple[float, ...]:
        """What the labels' pixel layout depends on: the x range and the view's size."""
        vb = self.getPlotItem().getViewBox()
        (x_lo, x_hi), _ = vb.viewRange()
        return (round(x_lo, 9), round(x_hi, 9), round(vb.width(), 1), round(vb.height(), 1))

    def _relayout_now(self) -> None:
        # Only when the view really changed: a range signal with the same range (a redraw
        # elsewhere) laid the labels out again, which emitted it again, without end.
        if self._last is not None and self._view_key() != self._laid_out_for:
            self.show_measured(*self._last)


class RoofPlot(pg.PlotWidget):
    """Attainable TFLOP/s against arithmetic intensity, both log: the roof, ridge and decode."""

    def __init__(self) -> None:
        super().__init__()
        no_direct_export(self)
        item = _axes(self, True)
        self.roof_curve = item.plot([], [], pen=pg.mkPen(COLORS["floor"], width=2), name="-")
        self.decode_curve = _dots(item, "o", 6, "#777777", "-")
        self.batch1_text = pg.TextItem(color="#777777", anchor=(-0.15, 0.0))
        item.addItem(self.batch1_text)
        self.ridge_point = _dots(item, "s", 10, COLORS["line"])
        # Below-right of the ridge, under the flat roof: above it the label left the plot (the
        # roof is the top of the data).
        self.ridge_text = pg.TextItem(color=COLORS["line"], anchor=(-0.05, -0.35))
        item.addItem(self.ridge_text)
        self.roof_measured = _dots(item, "o", 9, COLORS["measured"], "-")
        self.retranslate()

    def retranslate(self) -> None:
        item = self.getPlotItem()
        item.setLabel("left", self.tr("attainable TFLOP/s"))
        item.setLabel("bottom", self.tr("arithmetic intensity (FLOP/byte)"))
        rename_curve(item, self.roof_curve, self.tr("roof"))
        rename_curve(item, self.decode_curve, self.tr("decode floor, batch 1…1024"))
        rename_curve(item, self.roof_measured, self.tr("measured p50"))
        self.batch1_text.setText(self.tr("batch 1"))

    def show_roof(self, s: Scenario) -> None:
        """Draw the GPU's roof, its ridge point and the decode floor over the batch grid."""
        peak_t = s.peak_flops() / 1e12
        bw = s.gpu.bandwidth_bytes_per_s
        x = np.logspace(-1, 4, 200)
        self.roof_curve.setData(x, np.minimum(peak_t, x * bw / 1e12))
        pts = [
            (s.intensity(b), min(s.peak_flops(), s.flops(b) / s.floor(b).seconds) / 1e12)
            for b in BATCH_GRID
        ]
        self.decode_curve.setData([p[0] for p in pts], [p[1] for p in pts])
        self.batch1_text.setPos(math.log10(pts[0][0]), math.log10(pts[0][1]))
        ridge = s.ridge()
        self.ridge_point.setData([ridge], [peak_t])
        self.ridge_text.setText(self.tr("ridge {r:.0f} FLOP/B").format(r=ridge))
        self.ridge_text.setPos(math.log10(ridge), math.log10(peak_t))

    def show_measured(self, s: Scenario, measured: Sequence[Measured]) -> None:
        """Place each measured p50 at its batch's intensity and achieved TFLOP/s."""
        roof = [
            (s.intensity(max(1, round(m.batch))), s.achieved_flops(m.batch, m.p50_ms) / 1e12)
            for m in measured
        ]
        self.roof_measured.setData([r[0] for r in roof], [r[1] for r in roof])
