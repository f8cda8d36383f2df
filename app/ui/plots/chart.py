"""What every chart is built from: the palette, a PlotWidget set up for live data, its words,
and axis limits that move in coarse steps."""

from __future__ import annotations

import math
import weakref

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsItem

from app.ui.plots.axis_lines import clip_lines
from app.ui.plots.axis_space import measure_when_ranged

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


FLOOR_COLOUR = "#777777"


def make_plot(
    title: str = "", y_label: str = "", x_label: str = "", title_size: str = "10pt"
) -> pg.PlotWidget:
    """A PlotWidget set up for live data: clipped to view, peak downsampling, grid, legend."""
    plot = pg.PlotWidget()
    setup_plot(plot, title, y_label, x_label, title_size)
    return plot


def setup_plot(
    plot: pg.PlotWidget,
    title: str = "",
    y_label: str = "",
    x_label: str = "",
    title_size: str = "10pt",
) -> None:
    """make_plot's set-up for a PlotWidget subclass."""
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
    no_direct_export(plot)
    measure_when_ranged(item)


def cache_axes(plot: pg.PlotWidget, cached: bool = True) -> None:
    """The chart's axes (their ticks, numbers and grid lines) painted once into a pixmap and
    that pixmap shown until they change: a chart whose curves change under unchanged axes
    (a point joining a run on the knee curves) repainted every grid line and number (a
    third of its paint, ~4 ms a chart here). The same pixels (compared). `cached=False` for
    an export: an SVG draws its axes as lines and text, not as a picture of them. On screen
    their lines are drawn under a clip, the same pixels faster (axis_lines.py)."""
    mode = (
        QGraphicsItem.CacheMode.DeviceCoordinateCache if cached else QGraphicsItem.CacheMode.NoCache
    )
    for name in ("left", "bottom"):
        axis = plot.getPlotItem().getAxis(name)
        axis.setCacheMode(mode)
        clip_lines(axis, cached)


def no_direct_export(plot: pg.PlotWidget) -> None:
    """Take pyqtgraph's own "Export..." off the chart's right-click menu: it writes files
    straight to any path (a FIFO, a device, over a symlink's target), past the checks of the
    window's exports (File > Export, app/ui/exports), which are the one way out for a chart."""
    plot.scene().contextMenu = []


def set_words(
    plot: pg.PlotWidget, title: str, y_label: str, x_label: str, title_size: str = "10pt"
) -> None:
    """A chart's title and axis labels (again after a language change). The same words
    again change nothing: setting them lays the chart out again (its title and axes), which
    a chart redrawn for a point that joined its run has no need of."""
    words = (title, y_label, x_label, title_size)
    if _words.get(plot) == words:
        return
    _words[plot] = words
    item = plot.getPlotItem()
    item.setTitle(title, size=title_size)
    item.setLabel("left", y_label)
    item.setLabel("bottom", x_label)


_words: weakref.WeakKeyDictionary[pg.PlotWidget, tuple[str, str, str, str]]
_words = weakref.WeakKeyDictionary()  # each chart's words as last set


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


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 5 x 10^k that is >= value (axis limits that change rarely)."""
    if not value > 0 or not math.isfinite(value):
        return 1.0
    exp = math.floor(math.log10(value))
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * 10**exp >= value * (1 - 1e-12):
            return step * 10.0**exp
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
