"""The every-token ITL scatter, drawn at pixel resolution into an image, incrementally.

A sweep at 64 streams brings ~3 000 tokens a second. Three things make showing all of them cheap:

* Pixel dedupe: the chart is a grid of 2x2-pixel cells and a token only lights its cell. Every
  token is still *shown* — the slowest one included — but a steady 20 ms stream of thousands of
  tokens becomes one lit cell per column, a few hundred per second of run.
* An image, not curves: the lit cells are pixels of one QImage the size of the grid, drawn
  scaled without smoothing (each cell a crisp 2x2 dot). Dots drawn as round-capped pen strokes
  (the earlier way) cost ~13 µs each to paint, and each axis step repainted all of them.
* Draw only what changed: new tokens set their pixels and invalidate only the strip of the
  chart they fall in (the last fraction of a second), so a repaint blits that strip.

Everything is re-binned from the token ring buffer only when the cell grid itself changes (an
axis range step is crossed, the chart is resized), which happens a handful of times per run.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from app.ui.plots.ring import RingBuffer

CELL_PX = 2  # one lit cell is one dot: 2x2 screen pixels
MIN_ITL_MS = 1e-2  # log axis: gaps under 10 µs (one read's chunks) sit on the floor
DOT_COLOUR = QColor(0, 114, 178, 190)


class DotImage(pg.GraphicsObject):
    """A QImage whose pixels are the cells of a rectangle of the view (x0, y0, x1, y1)."""

    def __init__(self, colour: QColor) -> None:
        super().__init__()
        self._rect = QRectF()
        self._image = QImage()
        self._pixels = np.zeros((0, 0), dtype=np.uint32)
        self._argb = _premultiplied(colour)
        self.paints = 0  # paint() calls, for tests: a chart that did not change is not drawn
        self.last_strip = QRectF()  # the part of the view the last new dots invalidated
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)

    def reset(self, rect: QRectF, nx: int, ny: int) -> None:
        """A new, empty grid of nx x ny cells over `rect` (view coordinates)."""
        self.prepareGeometryChange()
        self._rect = QRectF(rect)
        self._image = QImage(nx, ny, QImage.Format.Format_ARGB32_Premultiplied)
        if self._image.isNull():  # an empty grid (no chart size yet)
            self._pixels = np.zeros((0, 0), dtype=np.uint32)
        else:
            self._image.fill(0)
            stride = self._image.bytesPerLine() // 4
            self._pixels = np.frombuffer(self._image.bits(), dtype=np.uint32).reshape(ny, stride)
        self.update()

    def light(self, cx: np.ndarray, cy: np.ndarray) -> None:
        """Light cells (column, row from the bottom) and repaint only the strip they span."""
        if len(cx) == 0:
            return
        self._pixels[cy, cx] = self._argb
        nx, ny = self._image.width(), self._image.height()
        w = self._rect.width() / max(1, nx)
        h = self._rect.height() / max(1, ny)
        lo, hi = int(cx.min()), int(cx.max())
        bottom, top = int(cy.min()), int(cy.max())
        self.last_strip = QRectF(
            self._rect.left() + lo * w,
            self._rect.top() + bottom * h,
            (hi - lo + 1) * w,
            (top - bottom + 1) * h,
        )
        self.update(self.last_strip)

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        self.paints += 1
        if self._image.isNull() or self._rect.isEmpty():
            return
        # Only the exposed part of the image: a strip of new dots costs a strip, not the chart.
        exposed = option.exposedRect.intersected(self._rect)
        if exposed.isEmpty():
            return
        sx = self._image.width() / self._rect.width()
        sy = self._image.height() / self._rect.height()
        left = max(0, math.floor((exposed.left() - self._rect.left()) * sx))
        right = min(self._image.width(), math.ceil((exposed.right() - self._rect.left()) * sx))
        low = max(0, math.floor((exposed.top() - self._rect.top()) * sy))
        high = min(self._image.height(), math.ceil((exposed.bottom() - self._rect.top()) * sy))
        if right <= left or high <= low:
            return
        target = QRectF(
            self._rect.left() + left / sx,
            self._rect.top() + low / sy,
            (right - left) / sx,
            (high - low) / sy,
        )
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        p.drawImage(target, self._image, QRectF(left, low, right - left, high - low))


def _premultiplied(colour: QColor) -> np.uint32:
    a = colour.alpha()
    r, g, b = (round(c * a / 255) for c in (colour.red(), colour.green(), colour.blue()))
    return np.uint32((a << 24) | (r << 16) | (g << 8) | b)


class TokenScatter:
    """Draws (run time s, ITL ms) rows of a RingBuffer on `plot` (log10 y)."""

    def __init__(self, plot: pg.PlotWidget, colour: QColor | None = None) -> None:
        self._plot = plot
        self._image = DotImage(colour or DOT_COLOUR)
        plot.addItem(self._image)
        self._grid: tuple[float, float, float, float, int, int] | None = None
        self._occupied = np.zeros(0, dtype=bool)
        self._consumed = 0  # ring.total_added already binned
        self.rebuilds = 0

    # ---- reading back (tests, exports) --------------------------------------------------
    def dots(self) -> tuple[np.ndarray, np.ndarray]:
        """Every drawn dot (the middle of its lit cell) as (time s, ITL ms)."""
        if self._grid is None:
            return np.empty(0), np.empty(0)
        x0, x1, y0, y1, nx, ny = self._grid
        cells = np.flatnonzero(self._occupied)
        x = x0 + (cells // ny + 0.5) * (x1 - x0) / nx
        y = y0 + (cells % ny + 0.5) * (y1 - y0) / ny
        return x, 10.0**y

    def dot_count(self) -> int:
        return int(np.count_nonzero(self._occupied))

    @property
    def paints(self) -> int:
        return self._image.paints

    # ---- drawing ---------------------------------------------------------------------------
    def clear(self) -> None:
        self._grid = None
        self._occupied = np.zeros(0, dtype=bool)
        self._consumed = 0
        self._image.reset(QRectF(), 0, 0)

    def update(
        self, ring: RingBuffer, x_range: tuple[float, float], y_range: tuple[float, float]
    ) -> bool:
        """Bin the ring's new rows onto the grid for these ranges (log10 y); True if drawn."""
        box = self._plot.getPlotItem().getViewBox()
        nx = max(1, math.ceil(box.width() / CELL_PX))
        ny = max(1, math.ceil(box.height() / CELL_PX))
        grid = (*x_range, *y_range, nx, ny)
        total = ring.total_added
        new = total - self._consumed
        if grid != self._grid or new > len(ring):
            self._grid = grid
            self._occupied = np.zeros(nx * ny, dtype=bool)
            x0, x1, y0, y1 = grid[:4]
            self._image.reset(QRectF(x0, y0, x1 - x0, y1 - y0), nx, ny)
            rows = ring.view()
            self.rebuilds += 1
        elif new <= 0:
            return False
        else:
            rows = ring.tail(new)
        self._consumed = total
        return self._add(rows) > 0

    def _add(self, rows: np.ndarray) -> int:
        assert self._grid is not None
        x0, x1, y0, y1, nx, ny = self._grid
        if len(rows) == 0:
            return 0
        x = rows[:, 0]
        y = np.log10(np.clip(np.nan_to_num(rows[:, 1], nan=MIN_ITL_MS), MIN_ITL_MS, None))
        cx = np.clip(((x - x0) / max(x1 - x0, 1e-12) * nx).astype(np.int64), 0, nx - 1)
        cy = np.clip(((y - y0) / max(y1 - y0, 1e-12) * ny).astype(np.int64), 0, ny - 1)
        cells = np.unique(cx * ny + cy)
        cells = cells[~self._occupied[cells]]
        if len(cells) == 0:
            return 0
        self._occupied[cells] = True
        self._image.light(cells // ny, cells % ny)
        return len(cells)
