"""A chart's axis takes the width its numbers need once its range changes, whether or not the
chart is painted (app.ui.plots.axis_space), and a paint then finds nothing to change: the plot
area a placement of labels sees is the one shown."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QTimer

from app.ui.plots.chart import make_plot


def _painted_then_hidden(qtbot) -> pg.PlotWidget:
    """A chart laid out and painted once, then out of sight: nothing paints it any more but
    `grab` (pyqtgraph measured an axis only while painting it)."""
    plot = make_plot("t", "y", "x")
    qtbot.addWidget(plot)
    plot.resize(500, 300)
    plot.show()
    qtbot.waitExposed(plot)
    item = plot.getPlotItem()
    item.plot([0.0, 1.0], [1.0, 2.0])
    item.setYRange(1.0, 2.0, padding=0)
    plot.grab()
    plot.hide()
    return plot


def test_an_axis_is_as_wide_as_its_numbers_once_its_range_changes(qtbot) -> None:
    plot = _painted_then_hidden(qtbot)
    item = plot.getPlotItem()
    axis = item.getAxis("left")
    qtbot.waitUntil(lambda: axis.picture is not None)
    narrow = axis.maximumWidth()
    # Numbers five times as long: wider with no paint in between.
    item.setYRange(123456.5, 123456.75, padding=0)
    qtbot.waitUntil(lambda: axis.maximumWidth() > narrow + 20)
    assert axis.picture is None  # not painted since
    wide = axis.maximumWidth()
    # A paint measures the same numbers the same way: the width stays.
    plot.grab()
    assert axis.picture is not None and axis.maximumWidth() == wide
    # Back to short numbers: narrower again (pyqtgraph shrinks an axis by more than 10 px).
    item.setYRange(1.0, 2.0, padding=0)
    qtbot.waitUntil(lambda: axis.maximumWidth() == narrow)


def test_an_axis_without_numbers_is_left_as_it_is(qtbot) -> None:
    plot = _painted_then_hidden(qtbot)
    item = plot.getPlotItem()
    axis = item.getAxis("left")
    axis.setStyle(showValues=False)
    plot.grab()
    before = axis.maximumWidth()
    item.setYRange(123456.5, 123456.75, padding=0)
    timers = item.getViewBox().findChildren(QTimer)
    assert any(t.isActive() for t in timers)  # a measurement is due...
    qtbot.waitUntil(lambda: not any(t.isActive() for t in timers))  # ...and done
    assert axis.maximumWidth() == before
