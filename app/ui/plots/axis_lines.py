"""An axis's tick and grid lines drawn inside a clip rectangle that holds them all.

A chart's grid lines are its axes' ticks drawn across the plot in a translucent pen. Qt's
raster engine draws a translucent aliased line with no clip set a pixel at a time, about ten
times slower than the same line under a clip (the same pixels: a clip that holds the whole
line cuts nothing). The knee curves have a grid line per load, and with a long run their axes
took most of a chart's paint (~9 ms an axis at 110 loads), each time a point joining the run
changed their range."""

from __future__ import annotations

import types

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainter, QPen

Line = tuple[QPen, QPointF, QPointF]
MARGIN = 8.0  # beyond the lines' ends, so a cosmetic pen's pixel at an end is never cut


def clip_lines(axis: pg.AxisItem, on: bool = True) -> None:
    """Draw the axis's lines under a clip that holds them (`on`), or as pyqtgraph does (an
    export: an SVG would carry the clip along). The axis is drawn afresh either way."""
    if on:
        setattr(axis, "drawPicture", types.MethodType(_draw_picture, axis))  # noqa: B010
    elif "drawPicture" in vars(axis):
        del axis.drawPicture
    axis.picture = None
    axis.update()


def _draw_picture(
    axis: pg.AxisItem,
    p: QPainter,
    axis_spec: Line,
    tick_specs: list[Line],
    text_specs: list[tuple[QRectF, int, str]],
) -> None:
    """pyqtgraph's drawPicture under a clip holding every line it draws (it sets a clip of
    its own for the numbers, after the lines, as before)."""
    xs = [point.x() for _pen, *ends in (axis_spec, *tick_specs) for point in ends]
    ys = [point.y() for _pen, *ends in (axis_spec, *tick_specs) for point in ends]
    extent = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
    grow = MARGIN + max(extent.width(), extent.height())
    p.save()
    p.setClipRect(extent.adjusted(-grow, -grow, grow, grow))
    pg.AxisItem.drawPicture(axis, p, axis_spec, tick_specs, text_specs)
    p.restore()
