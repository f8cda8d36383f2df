"""The sweep curves: output tok/s, TPOT P50/P99 (with the roofline floor) and TTFT P99 against
concurrency or rate, one colour per run."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QApplication, QGridLayout, QLabel, QWidget

from app.bench.results.naming import rate_from_file
from app.bench.results.point_row import PointRow, Scalar
from app.roofline.pareto import (
    ParetoPoint,
    gpu_count,
    hardware_frontier,
    point_from_row,
    scenario_of,
)
from app.ui import point_status
from app.ui.plots.chart import (
    FLOOR_COLOUR,
    PALETTE,
    cache_axes,
    coloured,
    make_plot,
    set_words,
)
from app.ui.plots.declutter import SLICE_NS, Declutter, tip_with_hidden
from app.ui.plots.pareto import HardwareFrontier, ParetoPlot, ParetoRun, hardware_name
from app.ui.retranslate import is_language_change


def concurrency_value(value: Scalar) -> float:
    """A max concurrency as a float; None or 0 means 'unlimited' (inf)."""
    if value is None or value in ("", 0, "0"):
        return math.inf
    return float(value)


def format_number(value: float) -> str:
    if math.isinf(value):
        return "inf"
    return f"{value:g}"


@dataclass(frozen=True)
class Look:
    """How one of the curves' data items is drawn: everything but its data (two drawings
    with the same looks in the same order differ only in data, set in place)."""

    kind: str  # "line" (a metric's curve), "floor" (the roofline's), "apart" (open markers)
    colour: str
    dashed: bool = False  # a line: P99 (dashed, triangles); apart: a red ring, not a marker
    many: bool = False  # a floor: several runs (in the run's colour)

    def options(self) -> dict[str, Any]:
        """pyqtgraph's plot() options for it."""
        if self.kind == "line":
            style = Qt.PenStyle.DashLine if self.dashed else Qt.PenStyle.SolidLine
            return {
                "pen": pg.mkPen(self.colour, width=2, style=style),
                "symbol": "t" if self.dashed else "o",
                "symbolSize": 7,
                "symbolBrush": self.colour,
                "symbolPen": self.colour,
                "name": None,
                "connect": "finite",
            }
        if self.kind == "floor":
            colour = self.colour if self.many else FLOOR_COLOUR
            return {
                "pen": pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DotLine),
                "name": None,
                "connect": "finite",
            }
        ring = self.dashed
        return {
            "pen": None,
            "symbol": "o",
            "symbolSize": 14 if ring else 9,
            "symbolBrush": None if ring else pg.mkBrush("#ffffff"),
            "symbolPen": pg.mkPen(point_status.WARN_FG if ring else self.colour, width=2),
        }


@dataclass
class Drawn:
    """A data item on a chart, how it looks and the data it was given."""

    look: Look
    item: pg.PlotDataItem
    x: Data
    y: Data


Data = Sequence[float] | np.ndarray
Specs = dict[pg.PlotWidget, list[tuple[Look, Data, Data]]]


def same_data(a: Data, b: Data) -> bool:
    return len(a) == len(b) and bool(
        np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True)
    )


@dataclass
class Series:
    """One run's sweep points, as drawn on the sweep curves."""

    name: str
    points: list[PointRow] = field(default_factory=list)


def sweep_axis(series: Iterable[Series]) -> str:
    """'rate' when every run holds concurrency fixed and varies the rate, else 'concurrency'."""
    concs: set[float] = set()
    rates: set[float] = set()
    for s in series:
        for p in s.points:
            concs.add(concurrency_value(p.max_concurrency))
            rates.add(p.request_rate)
    return "rate" if len(concs) <= 1 and len(rates) > 1 else "concurrency"


NICE_STRIDES = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)


def spaced_labels(
    labels: Sequence[str], width: float, advance: Callable[[str], float], gap: float
) -> list[str]:
    """The labels of evenly spaced slots across `width` pixels, every k-th kept and the others
    blank, k the smallest of NICE_STRIDES that keeps the widest (`advance` measures a text)
    `gap` pixels clear of the next kept one."""
    if not labels or width <= 0:
        return list(labels)
    per_slot = width / len(labels)
    widest = max(advance(text) for text in labels)
    stride = next((k for k in NICE_STRIDES if k * per_slot >= widest + gap), len(labels))
    return [text if i % stride == 0 else "" for i, text in enumerate(labels)]


def metric(point: PointRow, key: str) -> float:
    """The figure a chart draws for a point (NaN: none)."""
    return point.figure(key)


def floor_ms(point: PointRow) -> float:
    """A point's roofline floor (NaN: none)."""
    return point.figure("floor_tpot_ms")


def hardware_frontiers(series: Sequence[Series]) -> list[HardwareFrontier]:
    """The roofline's frontier for each distinct context (GPU, model, format, KV, context,
    GPU count) the runs' points recorded."""
    out: list[HardwareFrontier] = []
    seen: set[tuple[object, ...]] = set()
    for s in series:
        for p in s.points:
            roofline = p.roofline
            scenario, gpus = scenario_of(roofline), gpu_count(roofline)
            if scenario is None:
                continue
            key: tuple[object, ...]
            key = (scenario.gpu.id, scenario.model.id, scenario.fmt.id, scenario.kv.id)
            key += (scenario.context, gpus)
            if key in seen:
                continue
            seen.add(key)
            name = hardware_name(scenario.gpu.name, gpus, scenario.fmt.id)
            out.append(HardwareFrontier(name, hardware_frontier(scenario, gpus), gpus))
    return out


class SweepCurves(QWidget):
    """Output tok/s, TPOT P50/P99 and TTFT P99 against concurrency (or rate), one colour per run,
    and the Pareto chart (tok/s per user against tok/s per GPU, with the hardware's frontier).

    The x axis is categorical (one slot per distinct value, labelled with it) so 1..128 and
    'inf' fit on one readable axis and runs with different grids still line up by value.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.throughput = make_plot()
        self.tpot = make_plot()
        self.ttft = make_plot()
        self.pareto = ParetoPlot()
        # Several runs: their names in their colours above the charts (one row for all four,
        # wrapped), never in a legend box over the curves; an export puts them in each title.
        self.runs_label = QLabel()
        self.runs_label.setWordWrap(True)
        self.runs_label.setVisible(False)
        self.runs_in_titles = False
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.runs_label, 0, 0, 1, 2)
        layout.addWidget(self.throughput, 1, 0)
        layout.addWidget(self.tpot, 1, 1)
        layout.addWidget(self.ttft, 2, 0)
        layout.addWidget(self.pareto, 2, 1)
        for chart in (self.throughput, self.tpot, self.ttft, self.pareto):
            cache_axes(chart)
        for plot in (self.throughput, self.tpot, self.ttft):
            # A point per load, all of them in view: nothing to clip or thin out, and doing
            # so had each curve made again whenever the load axis gained a slot.
            plot.getPlotItem().setClipToView(False)
            plot.getPlotItem().setDownsampling(ds=1, auto=False)
        self.axis = "concurrency"
        self._series: list[Series] = []
        self.caption = ""  # a second title line (exports name the run, model, GPU, date)
        self._has_floor = False
        # What each chart draws (kept between drawings, see set_series), its bottom axis's
        # ticks and whether its value axis shows numbers.
        self.drawn: dict[pg.PlotWidget, list[Drawn]] = {}
        self._ticks: dict[pg.PlotWidget, list[list[tuple[int, str]]]] = {}
        self._values_shown: dict[pg.PlotWidget, bool] = {}
        self._load_labels: list[str] = []  # the load axis's numbers, one per slot
        # The SLO, capacity and knee lines on each chart (capacity.draw_marks).
        self.mark_items: dict[pg.PlotWidget, list[pg.GraphicsObject]] = {}
        # An empty chart says so in words (its axes carry no numbers until there is data).
        self._empty_text: dict[pg.PlotWidget, pg.TextItem] = {}
        for plot in self.plots().values():
            text = pg.TextItem("", color="#888888", anchor=(0.5, 0.5))
            plot.getPlotItem().addItem(text, ignoreBounds=True)
            self._empty_text[plot] = text
        # The marks' labels (SLO, capacity, knee) kept apart on screen; see capacity.draw_marks.
        self.declutter: dict[pg.PlotWidget, Declutter] = {}
        for plot in self.plots().values():
            placed = partial(self._name_hidden, plot)
            self.declutter[plot] = Declutter(plot.getPlotItem(), on_placed=placed)
            plot.getPlotItem().getViewBox().sigResized.connect(partial(self._set_load_ticks, plot))
        self._pareto_due: tuple[str, Callable[[Scalar], float]] | None = None
        self.set_series([])

    def _name_hidden(self, plot: pg.PlotWidget) -> None:
        """A mark's label with no room on a small chart is named in the chart's tooltip."""
        plot.setToolTip(tip_with_hidden("", self.declutter[plot].hidden).strip())

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
        runs = coloured(
            *(
                ("● " + html.escape(s.name), PALETTE[n % len(PALETTE)])
                for n, s in enumerate(self._series)
            )
        )
        dashed = self.tr("(P99 dashed)")
        # On screen the note goes with the names: in a narrow chart's title it was cut off.
        self.runs_label.setText(f"{runs} · TPOT {dashed}" if many else "")
        self.runs_label.setVisible(many and not self.runs_in_titles)
        if many and self.runs_in_titles:
            tpot_title += " " + dashed
            sub += f"<br><span style='font-size:8pt'>{runs}</span>"
        set_words(self.throughput, self.tr("Output throughput") + sub, self.tr("tok/s"), label)
        set_words(self.tpot, tpot_title + sub, self.tr("ms"), label)
        set_words(self.ttft, self.tr("TTFT P99") + sub, self.tr("ms"), label)
        for plot in self.plots().values():
            self._empty_text[plot].setText(
                "" if self._series else self.tr("No points yet: run a sweep or pick runs.")
            )

    KEYS = ("throughput", "tpot", "ttft")  # the charts over load, in order
    CHART_KEYS = (*KEYS, "pareto")  # every chart as exported (file names), in order

    def plots(self) -> dict[str, pg.PlotWidget]:
        """The charts over load (a shared categorical x axis)."""
        return dict(zip(self.KEYS, (self.throughput, self.tpot, self.ttft), strict=True))

    def charts(self) -> dict[str, pg.PlotWidget]:
        """Every chart, as exported: the ones over load and the Pareto chart."""
        return dict(zip(self.CHART_KEYS, (*self.plots().values(), self.pareto), strict=True))

    def set_series(
        self,
        series: Sequence[Series],
        pareto_later: bool = False,
        later: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        """Draw the runs (`pareto_later`: all but the Pareto chart, drawn by draw_pareto;
        `later`: each chart over load given its data by a piece of drawing handed to it, to
        run on the event loop's later turns; each a shorter hold of the window). The charts'
        items are kept and given their new data in place when they still look the same (a
        point joining a run adds no item: making and adding the items again, the axes' ticks
        and words too, was most of the time to draw it); anything else is drawn again.
        Either way the charts show what a first drawing shows."""
        self._series = [s for s in series if s.points]
        self.axis = sweep_axis(self._series)
        key = "request_rate" if self.axis == "rate" else "max_concurrency"
        to_value = rate_from_file if self.axis == "rate" else concurrency_value
        values = sorted({to_value(p.value(key)) for s in self._series for p in s.points})
        slot = {v: i for i, v in enumerate(values)}
        self._load_labels = [format_number(v) for v in values]
        many = len(self._series) > 1
        self._has_floor = any(math.isfinite(floor_ms(p)) for s in self._series for p in s.points)
        self._words(many)
        for plot in self.plots().values():
            for mark in self.mark_items.pop(plot, []):  # the marks are drawn after (draw_marks)
                plot.getPlotItem().removeItem(mark)
            self.declutter[plot].set_labels([])
            item = plot.getPlotItem()
            self._set_load_ticks(plot)
            # No points yet: no numbers on the value axis rather than pyqtgraph's 0-1.
            if self._values_shown.get(plot) is not bool(values):
                self._values_shown[plot] = bool(values)
                item.getAxis("left").setStyle(showValues=bool(values))
        specs: Specs = {plot: [] for plot in self.plots().values()}
        for n, s in enumerate(self._series):
            self._draw(specs, PALETTE[n % len(PALETTE)], s, slot, key, to_value, many)
        self._pareto_due = (key, to_value)
        for plot, wanted in specs.items():
            piece = partial(self._put_in_range, plot, wanted, len(values))
            if later is None:
                piece()
            else:  # each chart a piece of its own: the three in one held the window too long
                later(piece)
        if not pareto_later:
            self.draw_pareto()

    def _put_in_range(
        self, plot: pg.PlotWidget, wanted: list[tuple[Look, Data, Data]], slots: int
    ) -> None:
        """A chart's data items as `wanted` (_put), over a load axis of `slots` slots."""
        self._put(plot, wanted)
        item = plot.getPlotItem()
        if not slots:
            item.setYRange(0, 1, padding=0)
            self._empty_text[plot].setPos(0.0, 0.5)
        item.enableAutoRange(axis="y")
        item.setXRange(-0.5, max(0, slots - 1) + 0.5, padding=0)
        # The range the new curves need, now rather than while the chart is painted
        # (pyqtgraph's way): set then, it changed the axes and had the chart painted
        # twice per point that joined the run.
        item.getViewBox().updateAutoRange()

    def settle(self) -> None:
        """The charts' layout, ranges and labels brought up to date now, before they are
        painted: left to the event loop, the labels were placed after a first paint, the
        Pareto chart's range set while it was painted, and each chart painted twice.

        The labels are placed for one slice's time in all (SLICE_NS), the rest on the event
        loop's next turns (Declutter.place_for: placing them all at once held the window
        longer than a frame); until placed, a label that would overlap another is hidden.
        A staged drawing runs the two halves on turns of their own (settle_ranges, then
        place_first)."""
        self.settle_ranges()
        self.place_first()

    def settle_ranges(self) -> None:
        """The charts' layout and the Pareto chart's range brought up to date (settle's
        first half: with its labels' places, one hold of the window took over a frame)."""
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        self.pareto.getPlotItem().getViewBox().updateAutoRange()

    def place_first(self) -> None:
        """The charts' labels placed for one slice's time in all (settle's second half)."""
        budget = SLICE_NS
        for declutter in [*self.declutter.values(), self.pareto.declutter]:
            # Once the slice's time is used, the others wait for their own slices (each
            # already in the drawing queue): a placement's first label, even one, costs its
            # set-up (the markers and lines on screen), too long to add here.
            if declutter.pending and budget > 0:
                budget -= declutter.place_for(budget)

    def _set_load_ticks(self, plot: pg.PlotWidget, *_: object) -> None:
        """A tick and grid line at every load, numbered as far apart as their widest number
        needs on the chart as wide as it is now (again when it is resized): past ~40 loads
        the numbers of every load ran into each other."""
        axis = plot.getPlotItem().getAxis("bottom")
        metrics = QFontMetricsF(QApplication.font())  # pyqtgraph's, no tickFont being set
        width = plot.getPlotItem().getViewBox().width()
        gap = metrics.horizontalAdvance("  ")
        labels = spaced_labels(self._load_labels, width, metrics.horizontalAdvance, gap)
        ticks = [list(enumerate(labels))]
        if ticks != self._ticks.get(plot):  # new ticks repaint the axis and its grid
            self._ticks[plot] = ticks
            axis.setTicks(ticks)

    def _put(self, plot: pg.PlotWidget, wanted: list[tuple[Look, Data, Data]]) -> None:
        """The chart's data items as `wanted`, in that order: the drawn ones given new data
        when every one looks the same, else all drawn again."""
        drawn = self.drawn.get(plot, [])
        if [d.look for d in drawn] == [look for look, _x, _y in wanted]:
            for d, (_look, x, y) in zip(drawn, wanted, strict=True):
                if not (same_data(d.x, x) and same_data(d.y, y)):
                    d.item.setData(x, y)
                    d.x, d.y = x, y
            return
        item = plot.getPlotItem()
        for d in drawn:
            item.removeItem(d.item)
        if item.legend is not None:
            item.legend.clear()
        self.drawn[plot] = [Drawn(look, plot.plot(x, y, **look.options()), x, y)
                            for look, x, y in wanted]  # fmt: skip

    def draw_pareto(self, later: Callable[[Callable[[], None]], None] | None = None) -> None:
        """The Pareto chart of the runs set_series was given last (`later`: its labels put by
        a piece of drawing handed to it, see ParetoPlot.show_runs)."""
        if self._pareto_due is not None:
            self._draw_pareto(*self._pareto_due, later=later)
            self._pareto_due = None

    def _draw_pareto(
        self,
        key: str,
        to_value: Callable[[Scalar], float],
        later: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        """Each run's loads on the Pareto chart, named by their load, beside the hardware's."""
        word = self.tr("rate {v}") if key == "request_rate" else self.tr("conc {v}")
        runs = []
        for n, s in enumerate(self._series):
            found: list[ParetoPoint] = []
            for p in sorted(s.points, key=lambda p: to_value(p.value(key))):
                if point_status.off_the_curve(p):  # not the load it names: no point here
                    continue
                label = word.format(v=format_number(to_value(p.value(key))))
                point = point_from_row(label, p)
                if point is not None:
                    found.append(point)
            runs.append(ParetoRun(s.name, PALETTE[n % len(PALETTE)], found))
        self.pareto.caption = self.caption
        self.pareto.show_runs(runs, hardware_frontiers(self._series), later=later)

    def _draw(
        self,
        specs: Specs,
        colour: str,
        s: Series,
        slot: dict[float, int],
        key: str,
        to_value: Callable[[Scalar], float],
        many: bool,
    ) -> None:
        """One run's curves (throughput, TPOT P50/P99 and its floor, TTFT P99) at its points'
        slots on the shared load axis, added to each chart's `specs`."""
        everything = sorted(s.points, key=lambda p: to_value(p.value(key)))
        # Points that do not measure the load they name (cut short, or run at fewer streams)
        # are drawn apart, open markers off the line; any point whose load did not happen as
        # planned is ringed in red.
        ordered = [p for p in everything if not point_status.off_the_curve(p)]
        cut = [p for p in everything if point_status.off_the_curve(p)]
        warned = [p for p in everything if point_status.load_warnings(p)]
        x = np.array([slot[to_value(p.value(key))] for p in ordered], dtype=float)

        # One run: P99 gets its own colour; several runs: a colour per run, P99 dashed.
        p99_colour = colour if many else PALETTE[1]
        for plot, mkey, dashed, col in (
            # Named in the titles' colours, never in a legend box over the curves.
            (self.throughput, "output_throughput", False, colour),
            (self.tpot, "median_tpot_ms", False, colour),
            (self.tpot, "p99_tpot_ms", True, p99_colour),
            (self.ttft, "p99_ttft_ms", False, colour),
        ):
            y = np.array([metric(p, mkey) for p in ordered], dtype=float)
            if np.isfinite(y).any():  # else a metric no full point has (an older file)
                specs[plot].append((Look("line", col, dashed=dashed), x, y))
            self._apart(specs[plot], cut, warned, mkey, slot, key, to_value, col)
        floor = np.array([floor_ms(p) for p in ordered], dtype=float)
        if not len(ordered):
            return
        if np.isfinite(floor).any():
            # The roofline floor at each point's batch: how far TPOT sits above it.
            specs[self.tpot].append((Look("floor", colour, many=many), x, floor))

    @staticmethod
    def _apart(
        specs: list[tuple[Look, Data, Data]],
        cut: Sequence[PointRow],
        warned: Sequence[PointRow],
        mkey: str,
        slot: dict[float, int],
        key: str,
        to_value: Callable[[Scalar], float],
        colour: str,
    ) -> None:
        """Open markers for fragments (no line), a red ring round a point whose load did not
        happen as planned."""
        for points, ring in ((cut, False), (warned, True)):
            pairs = [(slot[to_value(p.value(key))], metric(p, mkey)) for p in points]
            pairs = [(px, py) for px, py in pairs if math.isfinite(py)]
            if not pairs:
                continue
            xs = [float(px) for px, _ in pairs]
            specs.append((Look("apart", colour, dashed=ring), xs, [py for _, py in pairs]))
