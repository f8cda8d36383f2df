"""The live ITL scatter: every token's pixel lit, incremental drawing, rebuild on a new grid."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from app.ui.plots.live import LiveCharts, RingBuffer
from app.ui.plots.token_scatter import CELL_PX, CHUNK_DOTS, TokenScatter


def _cells(scatter: TokenScatter, x: np.ndarray, y_ms: np.ndarray) -> set[int]:
    x0, x1, y0, y1, nx, ny = scatter._grid
    cx = np.clip(((x - x0) / (x1 - x0) * nx).astype(int), 0, nx - 1)
    cy = np.clip(((np.log10(y_ms) - y0) / (y1 - y0) * ny).astype(int), 0, ny - 1)
    return set((cx * ny + cy).tolist())


def _tokens(rng: np.random.Generator, n: int, t0: float, t1: float) -> np.ndarray:
    t = np.sort(rng.uniform(t0, t1, n))
    itl = 20 + rng.exponential(0.5, n)
    itl[rng.choice(n, 5, replace=False)] = [300.0, 450.0, 700.0, 900.0, 1500.0]  # stalls
    return np.column_stack([t, itl])


def test_every_token_lights_its_cell_and_only_new_chunks_change(qtbot) -> None:
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(800, 300)
    plot.show()
    qtbot.waitExposed(plot)
    scatter = TokenScatter(plot)
    ring = RingBuffer(100_000, 2)
    rng = np.random.default_rng(1)
    ring.extend(_tokens(rng, 30_000, 0.0, 10.0))
    ranges = ((0.0, 20.0), (1.0, 4.0))  # 10 ms .. 10 s on the log axis

    assert scatter.update(ring, *ranges)
    x, y = scatter.dots()
    rows = ring.view()
    # Every token (the five stalls included) is inside a drawn 2x2-pixel cell, one dot per cell.
    assert _cells(scatter, rows[:, 0], rows[:, 1]) == _cells(scatter, x, y)
    assert len(x) == len(_cells(scatter, x, y))
    box = plot.getPlotItem().getViewBox()
    assert len(x) <= (box.width() / CELL_PX + 1) * (box.height() / CELL_PX + 1)
    assert len(x) < 30_000 / 5  # a steady stream collapses to a few dots per column
    assert y.max() > 1000  # the slowest token is on the chart

    # New tokens: the closed chunks are left alone, only the open chunk is redrawn.
    closed = list(scatter._closed)
    before = [item.getData()[0].copy() for item in closed]
    ring.extend(_tokens(rng, 3_000, 10.0, 11.0))
    assert scatter.update(ring, *ranges)
    assert scatter._closed[: len(closed)] == closed
    assert all(np.array_equal(item.getData()[0], b) for item, b in zip(closed, before, strict=True))
    assert scatter._open_n < CHUNK_DOTS
    rows = ring.view()
    x, y = scatter.dots()
    assert _cells(scatter, rows[:, 0], rows[:, 1]) == _cells(scatter, x, y)
    assert scatter.rebuilds == 1
    assert not scatter.update(ring, *ranges)  # nothing new: nothing drawn

    # A new x range is a new grid: everything is re-binned from the ring.
    assert scatter.update(ring, (0.0, 30.0), ranges[1])
    assert scatter.rebuilds == 2
    x, y = scatter.dots()
    assert _cells(scatter, rows[:, 0], rows[:, 1]) == _cells(scatter, x, y)


def test_live_charts_refresh_draws_the_scatter_and_throttles_small_charts(qtbot) -> None:
    live = LiveCharts()
    qtbot.addWidget(live)
    live.resize(1000, 600)
    live.show()
    qtbot.waitExposed(live)
    live.start_point("c=8")
    live.add_tokens(np.linspace(0, 2, 500), np.full(500, 20.0))
    live.add_request(21.0)
    live.add_progress(1.0, 300.0, 8)
    assert live.refresh(full=True)
    assert len(live.scatter_data()[0]) > 0
    assert len(live.rolling) == 1
    # Within the small charts' interval a plain refresh leaves them for later, data kept.
    live.add_request(22.0)
    live.add_tokens(np.array([2.5]), np.array([800.0]))
    live.refresh()
    assert len(live.rolling) == 1
    assert live.scatter_data()[1].max() > 700
    assert live.refresh(full=True)
    assert len(live.rolling) == 2
