"""An axis's room for its numbers, measured when its range changes rather than when it paints.

pyqtgraph sizes an axis to the widest number it drew, and finds that width only while painting
it. So a chart's plot area kept the width of whatever range the axis last painted, and changed
after a paint: labels placed for one width were shown in another, and a chart whose labels
widen its range back and forth (placed in range A they widen it to B, placed in B they narrow
it to A) also changed its plot area each time, which hid the round from the placement's check
for one (app.ui.plots.declutter: a Pareto chart placed its labels without end). Measured here
by the same code, on the same kind of painter, on the turn after the range changes, the width
is the current range's whether or not the chart is painted, and a paint finds it unchanged.
"""

from __future__ import annotations

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtGui import QPainter, QPicture


def measure_when_ranged(item: pg.PlotItem) -> None:
    """Measure the chart's left axis once its view's y range or size has changed, on the event
    loop's next turn: a measurement costs ~1.3 ms (the numbers' text boxes), and one drawing
    or placement moves a range several times in a turn. (Its bottom axis's height is the
    numbers' font height whatever the numbers: not measured, and a live chart whose x range
    moves at every refresh pays nothing for it.)"""
    view = item.getViewBox()
    axis = item.getAxis("left")
    due = QTimer(view)
    due.setSingleShot(True)
    due.setInterval(0)
    due.timeout.connect(lambda: measure_axis(axis))
    view.sigYRangeChanged.connect(lambda *_: due.start())
    view.sigResized.connect(lambda *_: due.start())


def measure_axis(axis: pg.AxisItem) -> None:
    """The axis's numbers for its current range measured as its paint measures them (on a
    QPicture's painter, in its tick font), which resizes the axis to fit them now."""
    if not shiboken6.isValid(axis) or getattr(axis, "label", None) is None:
        return  # the chart closed (pyqtgraph's close() drops the label) before its turn came
    if not axis.isVisible() or not axis.style["showValues"] or axis.linkedView() is None:
        return
    size = axis.geometry()
    if size.width() <= 0 or size.height() <= 0:
        return  # not laid out yet: its first paint comes after the layout, and measures
    picture = QPicture()
    painter = QPainter(picture)
    try:
        if axis.style["tickFont"]:
            painter.setFont(axis.style["tickFont"])
        axis.generateDrawSpecs(painter)  # sets the axis's text width, and its own width with it
    finally:
        painter.end()
