"""A chart's axis takes the width its numbers need as soon as its range changes, before any
paint (app.ui.plots.axis_space), and a paint then finds nothing to change: the plot area a
placement of labels sees is the one shown."""

from __future__ import annotations

import pyqtgraph as pg

from app.ui.plots.chart import make_plot


def _shown(qtbot) -> pg.PlotWidget:
    plot = make_plot("t", "y", "x")
    qtbot.addWidget(plot)
    plot.resize(500, 300)
    plot.show()
    qtbot.waitExposed(plot)
    plot.getPlotItem().plot([0.0, 1.0], [1.0, 2.0])
    return plot


def _painted(qtbot, plot: pg.PlotWidget) -> None:
    """Wait for a real paint of the whole chart (grab paints it, axes included)."""
    plot.grab()
    qtbot.waitUntil(lambda: plot.getPlotItem().getAxis("left").picture is not None)


def test_an_axis_is_as_wide_as_its_numbers_when_its_range_changes(qtbot) -> None:
    plot = _shown(qtbot)
    item = plot.getPlotItem()
    axis = item.getAxis("left")
    item.setYRange(1.0, 2.0, padding=0)
    _painted(qtbot, plot)
    narrow = axis.maximumWidth()
    # Numbers five times as long: wider at once, with no paint in between.
    item.setYRange(123456.5, 123456.75, padding=0)
    assert axis.picture is None  # not painted since
    wide = axis.maximumWidth()
    assert wide > narrow + 20
    # A paint measures the same numbers the same way: the width stays.
    _painted(qtbot, plot)
    assert axis.maximumWidth() == wide
    # Back to short numbers: narrower at once (pyqtgraph shrinks an axis by more than 10 px).
    item.setYRange(1.0, 2.0, padding=0)
    assert axis.maximumWidth() == narrow


def test_an_axis_without_numbers_is_left_as_it_is(qtbot) -> None:
    plot = _shown(qtbot)
    item = plot.getPlotItem()
    axis = item.getAxis("left")
    axis.setStyle(showValues=False)
    _painted(qtbot, plot)
    before = axis.maximumWidth()
    item.setYRange(123456.5, 123456.75, padding=0)
    assert axis.maximumWidth() == before
