"""The live ITL scatter: every token's pixel lit, incremental drawing, rebuild on a new grid."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QImage

from app.ui.plots.live import LiveCharts
from app.ui.plots.ring import RingBuffer
from app.ui.plots.token_scatter import CELL_PX, DOT_COLOUR, TokenScatter


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


def _shown_plot(qtbot) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(800, 300)
    plot.show()
    qtbot.waitExposed(plot)
    # The view box takes its final size over a few layout passes; the cell grid follows it.
    box = plot.getPlotItem().getViewBox()
    sizes: list[tuple[float, float]] = []

    def stable() -> bool:
        sizes.append((box.width(), box.height()))
        return len(sizes) > 3 and len(set(sizes[-3:])) == 1

    qtbot.waitUntil(stable)
    return plot


def test_every_token_lights_its_cell_and_only_new_strips_are_redrawn(qtbot) -> None:
    plot = _shown_plot(qtbot)
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
    assert len(x) == len(_cells(scatter, x, y)) == scatter.dot_count()
    box = plot.getPlotItem().getViewBox()
    assert len(x) <= (box.width() / CELL_PX + 1) * (box.height() / CELL_PX + 1)
    assert len(x) < 30_000 / 5  # a steady stream collapses to a few dots per column
    assert y.max() > 1000  # the slowest token is on the chart

    # New tokens in 10-11 s invalidate only their strip of the chart, not the whole of it.
    qtbot.waitUntil(lambda: scatter.paints > 0)
    ring.extend(_tokens(rng, 3_000, 10.0, 11.0))
    assert scatter.update(ring, *ranges)
    strip = scatter._image.last_strip
    cell_s = 20.0 / scatter._grid[4]
    assert 10.0 - cell_s <= strip.left() and strip.right() <= 11.0 + cell_s
    rows = ring.view()
    x, y = scatter.dots()
    assert _cells(scatter, rows[:, 0], rows[:, 1]) == _cells(scatter, x, y)
    assert scatter.rebuilds == 1

    # Nothing new: nothing to draw, and the chart is not painted again.
    qtbot.waitUntil(lambda: _settled(qtbot, scatter))
    painted = scatter.paints
    assert not scatter.update(ring, *ranges)
    qtbot.wait(50)  # let any (wrongly) scheduled repaint run; the count says whether one did
    assert scatter.paints == painted

    # A new x range is a new grid: everything is re-binned from the ring.
    assert scatter.update(ring, (0.0, 30.0), ranges[1])
    assert scatter.rebuilds == 2
    x, y = scatter.dots()
    assert _cells(scatter, rows[:, 0], rows[:, 1]) == _cells(scatter, x, y)


def _settled(qtbot, scatter: TokenScatter) -> bool:
    """True once a pass of the event loop paints nothing more."""
    before = scatter.paints
    qtbot.wait(20)
    return scatter.paints == before


def test_the_dots_are_on_screen_where_the_tokens_are(qtbot) -> None:
    plot = _shown_plot(qtbot)
    item = plot.getPlotItem()
    item.setLogMode(y=True)
    item.hideAxis("left")
    item.hideAxis("bottom")
    item.setXRange(0.0, 10.0, padding=0)
    item.setYRange(0.0, 3.0, padding=0)  # 1 ms .. 1 s
    scatter = TokenScatter(plot)
    ring = RingBuffer(100, 2)
    ring.extend([[2.5, 10.0], [7.5, 500.0]])  # left and low, right and high
    assert scatter.update(ring, (0.0, 10.0), (0.0, 3.0))
    qtbot.waitUntil(lambda: scatter.paints > 0)
    image: QImage = plot.grab().toImage()
    box = item.getViewBox()

    def coloured_near(x_s: float, y_ms: float) -> bool:
        point = box.mapViewToDevice(pg.Point(x_s, np.log10(y_ms)))
        view = plot.mapFromScene(point) if hasattr(plot, "mapFromScene") else point
        cx, cy = round(view.x()), round(view.y())
        for dx in range(-2, 3):
            for dy in range(-2, 3):
                c = QColor(image.pixel(cx + dx, cy + dy))
                if c.blue() > c.red() + 60:  # the dots' blue, not the grey/black background
                    return True
        return False

    assert coloured_near(2.5, 10.0) and coloured_near(7.5, 500.0)
    assert not coloured_near(7.5, 10.0) and not coloured_near(2.5, 500.0)
    assert DOT_COLOUR.alpha() > 0


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


def test_live_axes_keep_their_width_and_empty_ranges_until_there_is_data(qtbot) -> None:
    live = LiveCharts()
    qtbot.addWidget(live)
    live.resize(1000, 600)
    live.show()
    qtbot.waitExposed(live)
    live.start_point("c=64")
    live.add_progress(0.5, 0.0, 64)  # nothing completed yet: tok/s is 0
    live.refresh(full=True)
    # The empty chart's range stays (not 0-1.2 for a zero, then 0-2500 a second later).
    assert live.tok_s.getPlotItem().getViewBox().viewRange()[1][1] == 1000.0
    qtbot.wait(50)
    widths = [plot.getPlotItem().getViewBox().width() for plot in live.plots()]
    resized: list[object] = []
    for plot in live.plots():
        plot.getPlotItem().getViewBox().sigResized.connect(resized.append)
    live.add_progress(1.0, 24_000.0, 64)  # five-digit labels
    live.add_request(21.0)
    live.refresh(full=True)
    qtbot.wait(50)
    assert live.tok_s.getPlotItem().getViewBox().viewRange()[1][1] > 24_000
    # Wider tick labels did not resize the charts (a resize repaints every axis and re-bins
    # the scatter).
    assert resized == []
    assert [plot.getPlotItem().getViewBox().width() for plot in live.plots()] == widths
