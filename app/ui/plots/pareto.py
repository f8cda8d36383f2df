"""The Pareto chart: output tok/s per user against output tok/s per GPU, one point per load, the
measured frontier, and the roofline's frontier with a dotted gap from each point to it.
Used on the Sweep curves tab (per run) and in the Roofline dock (the panel's GPU and model)."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pyqtgraph as pg
from numpy.typing import ArrayLike
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from app.roofline.pareto import (
    HardwarePoint,
    ParetoPoint,
    names_together,
    pareto_front,
    same_place,
)
from app.ui.plots.chart import FLOOR_COLOUR, coloured, log_ticks, set_words, setup_plot
from app.ui.plots.declutter import Declutter, name_points, tip_with_hidden

GAP_COLOUR = "#aaaaaa"


@dataclass
class ParetoRun:
    """One run's loads as drawn: its points in a colour."""

    name: str
    colour: str
    points: list[ParetoPoint] = field(default_factory=list)


@dataclass
class HardwareFrontier:
    """The roofline's frontier for one GPU, model, format and GPU count, with its name."""

    name: str
    points: list[HardwarePoint] = field(default_factory=list)
    gpus: int = 1


@cache
def _colour(name: str) -> QColor:
    """A colour by name, made once (a kept label's colour is compared with its run's each time
    the chart is drawn: made again per label, it was ~15% of the labels' time)."""
    return pg.mkColor(name)


def hardware_name(gpu: str, gpus: int, fmt: str) -> str:
    """The hardware frontier's legend entry: the GPU, how many, the weight format."""
    return QCoreApplication.translate("ParetoPlot", "hardware — {gpu} ×{n}, {fmt}").format(
        gpu=gpu, n=gpus, fmt=fmt
    )


class ParetoPlot(pg.PlotWidget):
    """The chart, redrawn whole by show_runs() (a few dozen items: a sweep has one point per
    load)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        setup_plot(self)
        # A few dozen points, all in view: nothing to clip or thin out. And clipping broke the
        # named markers: a view range that left an item's points out of sight (a zoom, or the
        # range between two drawings) clipped its points but not their names, and pyqtgraph
        # raised "Length of meta data does not match number of points" from a paint.
        self.getPlotItem().setClipToView(False)
        self.getPlotItem().setDownsampling(ds=1, auto=False)
        legend = self.getPlotItem().legend
        if legend is not None:
            # Bottom left: slow and little is the corner no load and no hardware reaches.
            legend.anchor(itemPos=(0, 1), parentPos=(0, 1), offset=(10, -10))
        self.caption = ""
        self._runs: list[ParetoRun] = []
        self._hardware: list[HardwareFrontier] = []
        self.texts: list[pg.TextItem] = []
        self._spare: list[pg.TextItem] = []  # the last drawing's labels, to be used again
        self._spare_texts: list[str] = []  # their texts
        # Every item, in the order drawn (None: a load's label's place, till it is made).
        self._drawn: list[pg.GraphicsObject | None] = []
        self._spare_items: dict[str, pg.PlotDataItem] = {}  # the last drawing's data items
        self._looks: dict[str, dict[str, Any]] = {}  # how each role's item was made
        self._left_axis: tuple[bool, list[list[tuple[float, str]]] | None] | None = None
        # The data items by role ('hardware 0', 'gaps', 'frontier 0', 'points 0'), for tests
        # and for whoever reads the chart back.
        self.data_items: dict[str, pg.PlotDataItem] = {}
        # Labels of close loads piled up on each other: each is moved to a free place on
        # screen, or left out with its text in the tooltip.
        self._tip = ""
        self.declutter = Declutter(self.getPlotItem(), on_placed=self._name_hidden)
        self.show_runs([], [])

    def retranslate(self) -> None:
        self.show_runs(self._runs, self._hardware)

    def _words(self) -> None:
        """The title with a legend line in the curves' colours (one run: a legend box inside
        a small chart would cover its points), and the caption line of an export."""
        lines = [self.tr("Interactivity vs throughput (Pareto)")]
        if len(self._runs) == 1:
            colour = self._runs[0].colour
            parts = [("● " + self.tr("measured"), colour), ("— " + self.tr("frontier"), colour)]
            # The GPU count only: a long line here would widen the chart's minimum size (the
            # whole name is in the tooltip, and in the legend box with several runs).
            parts += [("┄ " + self.tr("hardware ×{n}").format(n=h.gpus), FLOOR_COLOUR)
                      for h in self._hardware]  # fmt: skip
            lines.append(f"<span style='font-size:8pt'>{coloured(*parts)}</span>")
        if self.caption:
            lines.append(f"<span style='font-size:8pt'>{html.escape(self.caption)}</span>")
        set_words(
            self,
            "<br>".join(lines),
            self.tr("tok/s per GPU"),
            self.tr("tok/s per user (1000 / TPOT P50)"),
        )

    def show_runs(
        self,
        runs: Sequence[ParetoRun],
        hardware: Sequence[HardwareFrontier],
        later: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        """Draw the hardware's frontiers, each point's gap to the hardware at its batch, the
        points (labelled with their load) and each run's measured frontier. `later`: the
        loads' labels (two thirds of the time) put by a piece of drawing handed to it, to
        run on the event loop's next turn, a shorter hold of the window each; the chart,
        not painted meanwhile (a staged drawing holds its updates), ends as drawn at once."""
        self._runs = [r for r in runs if r.points]
        self._hardware = [h for h in hardware if h.points]
        item = self.getPlotItem()
        # The labels' items stay on the chart and take the next labels' texts: making and adding
        # some fifty again each time a point joined the run was a third of the time to draw it.
        self._spare, self.texts = self.texts, []
        self._spare_texts = [t.toPlainText() for t in self._spare]
        # So are the data items, given their new data when they look the same (see _plot).
        self._spare_items, self.data_items = self.data_items, {}
        spare = {id(t) for t in [*self._spare, *self._spare_items.values()]}
        for old in item.items[:]:
            if id(old) not in spare:
                item.removeItem(old)
        if item.legend is not None:
            item.legend.clear()
        self._drawn = []
        self._words()
        self._tip = "\n".join(
            [
                self.tr(
                    "One point per load: x = 1000 / TPOT P50 (a user's decode rate, TTFT "
                    "excluded), y = output tokens/s ÷ GPUs (tensor parallel). The dashed "
                    "curve is what the roofline allows: at batch b, 1 / floor(b) per user "
                    "and b / floor(b) per GPU; a dotted line joins each load to the "
                    "hardware at its batch."
                ),
                *(h.name for h in self._hardware),
            ]
        )
        self.setToolTip(self._tip)
        hardware_texts: list[pg.TextItem] = []
        many = len(self._runs) > 1  # several runs: a legend box names them
        ys = [p.gpu_tok_s for r in self._runs for p in r.points]
        ys += [h.gpu_tok_s for f in self._hardware for h in f.points]
        positive = [y for y in ys if y > 0]
        # Throughput spans decades between batch 1 and a full batch: log when it does.
        log_y = bool(positive) and max(positive) / min(positive) > 20
        item.setLogMode(x=False, y=log_y)
        ticks = None
        if log_y:
            lo, hi = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
            ticks = log_ticks(lo, hi)
        if self._left_axis != (bool(positive), ticks):  # else the axis's picture is kept
            self._left_axis = (bool(positive), ticks)
            item.getAxis("left").setStyle(showValues=bool(positive))
            item.getAxis("left").setTicks(ticks)

        def y_of(value: float) -> float:
            return math.log10(value) if log_y else value

        for n, frontier in enumerate(self._hardware):
            self.data_items[f"hardware {n}"] = self._plot(
                f"hardware {n}",
                [p.user_tok_s for p in frontier.points],
                [p.gpu_tok_s for p in frontier.points],
                pen=pg.mkPen(FLOOR_COLOUR, width=2, style=Qt.PenStyle.DashLine),
                symbol="o",
                symbolSize=4,
                symbolBrush=FLOOR_COLOUR,
                symbolPen=FLOOR_COLOUR,
                name=frontier.name if many else None,
                data=[f"b={h.batch}" for h in frontier.points],
            )
            name_points(self.data_items[f"hardware {n}"])  # hovering a batch names it
            self._drawn.append(self.data_items[f"hardware {n}"])
            for k, h in enumerate(frontier.points):
                if h.batch in (1, 8, 64) or k == len(frontier.points) - 1:
                    hardware_texts.append(
                        self._label(
                            f"b={h.batch}", h.user_tok_s, y_of(h.gpu_tok_s), FLOOR_COLOUR, True
                        )
                    )
        gaps_x: list[float] = []
        gaps_y: list[float] = []
        for run in self._runs:
            for p in run.points:
                if p.hardware is not None:
                    gaps_x += [p.user_tok_s, p.hardware.user_tok_s]
                    gaps_y += [p.gpu_tok_s, p.hardware.gpu_tok_s]
        if gaps_x:
            self.data_items["gaps"] = self._plot(
                "gaps",
                gaps_x,
                gaps_y,
                pen=pg.mkPen(GAP_COLOUR, width=1, style=Qt.PenStyle.DotLine),
                connect="pairs",
            )
            self._drawn.append(self.data_items["gaps"])
        # The loads' labels, each with where it goes in the drawing order (made in finish).
        wanted: list[tuple[int, str, float, float, str, bool]] = []
        for n, run in enumerate(self._runs):
            xy = [(p.user_tok_s, p.gpu_tok_s) for p in run.points]
            front = pareto_front(xy)
            self.data_items[f"frontier {n}"] = self._plot(
                f"frontier {n}",
                np.array([xy[i][0] for i in front]),
                np.array([xy[i][1] for i in front]),
                pen=pg.mkPen(run.colour, width=2),
            )
            self._drawn.append(self.data_items[f"frontier {n}"])
            self.data_items[f"points {n}"] = self._plot(
                f"points {n}",
                [x for x, _ in xy],
                [y for _, y in xy],
                pen=None,
                symbol="o",
                symbolSize=8,
                symbolBrush=run.colour,
                symbolPen=run.colour,
                name=run.name if many else None,
                data=[p.label for p in run.points],
            )
            name_points(self.data_items[f"points {n}"])  # a label left out is still named here
            self._drawn.append(self.data_items[f"points {n}"])
            slowest = min(x for x, _ in xy)
            # Points at the same place (a load measured twice alike) share one label naming
            # them all: two labels there were written over each other.
            times = self.tr("{name} ×{n}")
            sep = self.tr(", ", "between the names of points at the same place")
            for k, group in enumerate(same_place(xy)):
                p = run.points[group[0]]
                name = names_together([run.points[i].label for i in group], times, sep)
                # Neighbours alternate right and left of their marker (loads past the knee
                # bunch up in both directions at once); the leftmost never goes off the chart.
                left = k % 2 == 1 and p.user_tok_s > slowest
                wanted.append(
                    (len(self._drawn), name, p.user_tok_s, y_of(p.gpu_tok_s), run.colour, left)
                )
                self._drawn.append(None)

        def finish() -> None:
            self._finish(wanted, hardware_texts)

        if later is None:
            finish()
        else:  # the declutter keeps the last labels till then: no placement comes between
            later(finish)

    def _finish(
        self,
        wanted: list[tuple[int, str, float, float, str, bool]],
        hardware_texts: list[pg.TextItem],
    ) -> None:
        """show_runs' second part: the loads' labels put, the drawing stacked, the labels
        given to the declutter."""
        item = self.getPlotItem()
        for at, name, x, y, colour, left in wanted:
            self._drawn[at] = self._label(name, x, y, colour, left=left, stacked=False)
        for gone in [*self._spare, *self._spare_items.values()]:  # no longer needed
            item.removeItem(gone)
        self._spare, self._spare_texts, self._spare_items = [], [], {}
        # Each item stacked in the order drawn (a kept label would otherwise stay under the
        # curves drawn after it, where a chart drawn afresh has it over them).
        for z, shown in enumerate(self._drawn):
            if shown is not None:  # (all are, once the labels are made)
                shown.setZValue(z)
        item.enableAutoRange()
        # The loads' labels first (the hardware's give way), clear of every marker.
        loads = [t for t in self.texts if t not in hardware_texts]
        markers = [v for k, v in self.data_items.items() if k.startswith(("points", "hardware"))]
        # The faint dotted gaps are not obstacles: a label may cross one (there is one per
        # load, and avoiding them all pushed labels away from their points).
        gaps = [self.data_items["gaps"]] if "gaps" in self.data_items else []
        self.declutter.set_labels(loads + hardware_texts, markers, ignore=gaps)

    def _plot(self, role: str, x: ArrayLike, y: ArrayLike, **options: Any) -> pg.PlotDataItem:
        """The data item of `role` drawn: the last drawing's given the new data when it looks
        the same and names nothing in a legend (a point joining the run made every item again,
        most of the time the chart took to draw it), else a new one."""
        was = self._spare_items.pop(role, None)
        look = {k: v for k, v in options.items() if k != "data"}
        if was is not None and was.opts.get("name") is None and self._looks.get(role) == look:
            was.setData(x, y, **({"data": options["data"]} if "data" in options else {}))
            return was
        if was is not None:
            self.getPlotItem().removeItem(was)
        self._looks[role] = look
        return self.getPlotItem().plot(x, y, **options)

    def _label(
        self, text: str, x: float, y: float, colour: str, left: bool = False, stacked: bool = True
    ) -> pg.TextItem:
        """A point's name beside it, right of it or left of it (`stacked`: put last in the
        drawing order; else its place there is the caller's)."""
        anchor = (1.0 if left else 0.0, 0.5)
        if self._spare:  # a label's item from the last drawing, still on the chart
            # The one that wrote the same text, if any: laying the text out again took most
            # of the labels' time each time a point joined the run.
            k = self._spare_texts.index(text) if text in self._spare_texts else -1
            label, had = self._spare.pop(k), self._spare_texts.pop(k)
            if label.color != _colour(colour):
                label.setColor(colour)
            if had != text:
                label.setText(text)
            if (label.anchor.x(), label.anchor.y()) != anchor:
                label.setAnchor(anchor)
            label.setVisible(True)
            label.setPos(x, y)
        else:
            label = pg.TextItem(text, color=colour, anchor=anchor)
            label.setPos(x, y)
            self.getPlotItem().addItem(label)
        self.texts.append(label)
        if stacked:
            self._drawn.append(label)
        return label

    def _name_hidden(self) -> None:
        """The labels left out for want of room, named in the tooltip instead."""
        self.setToolTip(tip_with_hidden(self._tip, self.declutter.hidden))
