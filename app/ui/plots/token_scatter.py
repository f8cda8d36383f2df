"""The every-token ITL scatter, drawn at pixel resolution and incrementally.

A sweep at 64 streams brings ~3 000 tokens a second. Redrawing all of them (or an evenly
decimated 3 000) ten times a second cost the window ~15 % of a core and made its frames long
enough to delay the worker on a two-core machine. Two things make it cheap:

* Pixel dedupe: a token is drawn only if its 2x2-pixel cell of the chart is still empty. Every
  token is still *shown* (its cell is lit) — the slowest one included — but a steady 20 ms
  stream of thousands of tokens becomes one dot per cell, a few hundred per second of run.
* Draw only what changed: dots live in chunks of at most CHUNK_DOTS; closed chunks never change,
  so adding tokens repaints only the open chunk's small rectangle of the chart.

Everything is re-binned from the token ring buffer only when the cell grid itself changes (an
axis range step is crossed, the chart is resized), which happens a handful of times per run.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

CELL_PX = 2  # the dot is ~2.5 px wide: a finer grid would draw overlapping dots
CHUNK_DOTS = 512
MIN_ITL_MS = 1e-2  # log axis: gaps under 10 µs (one read's chunks) sit on the floor


class TokenScatter:
    """Draws (run time s, ITL ms) rows of a RingBuffer on `plot` (log10 y)."""

    def __init__(self, plot: pg.PlotWidget, colour: QColor | None = None) -> None:
        self._plot = plot
        pen = pg.mkPen(colour or QColor(0, 114, 178, 150), width=2.5, cosmetic=True)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self._pen = pen
        self._closed: list[pg.PlotCurveItem] = []
        self._open: pg.PlotCurveItem | None = None
        self._open_x: list[np.ndarray] = []
        self._open_y: list[np.ndarray] = []
        self._open_n = 0
        self._grid: tuple[float, float, float, float, int, int] | None = None
        self._occupied = np.zeros(0, dtype=bool)
        self._consumed = 0  # ring.total_added already binned
        self.rebuilds = 0

    # ---- reading back (tests, exports) --------------------------------------------------
    def dots(self) -> tuple[np.ndarray, np.ndarray]:
        """Every drawn dot as (time s, ITL ms)."""
        xs = [item.getData()[0] for item in self._items()]
        ys = [item.getData()[1] for item in self._items()]
        if not xs:
            return np.empty(0), np.empty(0)
        x = np.concatenate([a[::2] for a in xs if a is not None])
        y = np.concatenate([a[::2] for a in ys if a is not None])
        return x, 10.0**y

    def dot_count(self) -> int:
        return sum(len(i.getData()[0] or ()) // 2 for i in self._items())

    def _items(self) -> list[pg.PlotCurveItem]:
        return self._closed + ([self._open] if self._open is not None else [])

    # ---- drawing ---------------------------------------------------------------------------
    def clear(self) -> None:
        for item in self._items():
            self._plot.removeItem(item)
        self._closed.clear()
        self._open = None
        self._open_x.clear()
        self._open_y.clear()
        self._open_n = 0
        self._grid = None
        self._consumed = 0

    def update(
        self, ring: object, x_range: tuple[float, float], y_range: tuple[float, float]
    ) -> bool:
        """Bin the ring's new rows onto the grid for these ranges (log10 y); True if drawn."""
        box = self._plot.getPlotItem().getViewBox()
        nx = max(1, math.ceil(box.width() / CELL_PX))
        ny = max(1, math.ceil(box.height() / CELL_PX))
        grid = (*x_range, *y_range, nx, ny)
        total = ring.total_added  # type: ignore[attr-defined]
        new = total - self._consumed
        if grid != self._grid or new > len(ring):  # type: ignore[arg-type]
            self.clear()
            self._grid = grid
            self._occupied = np.zeros(nx * ny, dtype=bool)
            rows = ring.view()  # type: ignore[attr-defined]
            self.rebuilds += 1
        elif new <= 0:
            return False
        else:
            rows = ring.tail(new)  # type: ignore[attr-defined]
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
        # The dot sits in the middle of its cell: at most one cell (2 px) from the token.
        dx = x0 + (cells // ny + 0.5) * (x1 - x0) / nx
        dy = y0 + (cells % ny + 0.5) * (y1 - y0) / ny
        start = 0
        while start < len(cells):
            room = CHUNK_DOTS - self._open_n
            take = slice(start, start + room)
            self._append_open(dx[take], dy[take])
            start += room
        return len(cells)

    def _append_open(self, x: np.ndarray, y: np.ndarray) -> None:
        if self._open is None:
            self._open = pg.PlotCurveItem(connect="pairs", pen=self._pen, antialias=False)
            self._plot.addItem(self._open)
        self._open_x.append(x)
        self._open_y.append(y)
        self._open_n += len(x)
        width = (self._grid[1] - self._grid[0]) / max(1, self._grid[4]) / 4 if self._grid else 0
        xs = np.concatenate(self._open_x)
        ys = np.concatenate(self._open_y)
        px = np.empty(2 * len(xs))
        px[0::2] = xs
        px[1::2] = xs + width  # a tiny segment drawn with a round pen is a dot
        self._open.setData(px, np.repeat(ys, 2))
        if self._open_n >= CHUNK_DOTS:  # closed chunks are never touched again
            self._closed.append(self._open)
            self._open = None
            self._open_x.clear()
            self._open_y.clear()
            self._open_n = 0
