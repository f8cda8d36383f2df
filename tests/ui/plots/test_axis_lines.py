"""An axis's lines drawn under a clip that holds them paint the very pixels pyqtgraph's lines
do: the knee curves of a long run (a grid line per load, translucent) and the Pareto chart
(log axis, minor ticks), at several sizes."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

from app.bench.results.point_row import PointRow
from app.ui.plots.axis_lines import clip_lines
from app.ui.plots.sweep_curves import Series, SweepCurves
from tests.ui.rows import row_of


def _point(c: int) -> PointRow:
    grow, slow = min(c, 48) ** 0.8, 1 + c / 48
    return row_of({"max_concurrency": c, "request_rate": "inf", "completed": 64, "num_prompts": 64,
            "output_throughput": 40.0 * grow, "median_tpot_ms": 20.0 * slow,
            "p99_tpot_ms": 26.0 * slow, "p99_ttft_ms": 180.0 * slow})  # fmt: skip


def _grabs(qtbot, curves: SweepCurves, clipped: bool) -> dict[str, QImage]:
    for chart in curves.charts().values():
        for name in ("left", "bottom"):
            clip_lines(chart.getPlotItem().getAxis(name), clipped)
    declutters = [*curves.declutter.values(), curves.pareto.declutter]
    qtbot.waitUntil(lambda: not any(d.pending for d in declutters))
    return {key: chart.grab().toImage() for key, chart in curves.charts().items()}


@pytest.mark.parametrize("size", [(1400, 460), (917, 611)])
def test_grid_lines_drawn_under_a_clip_are_the_pixels_drawn_without(
    qtbot, size: tuple[int, int]
) -> None:
    curves = SweepCurves()
    qtbot.addWidget(curves)
    curves.resize(*size)
    curves.show()
    qtbot.waitExposed(curves)
    curves.set_series([Series("run", [_point(c) for c in [*range(1, 51), *range(101, 161)]])])
    clipped_grabs = _grabs(qtbot, curves, True)
    drawn = _grabs(qtbot, curves, False)
    assert set(clipped_grabs) == {"throughput", "tpot", "ttft", "pareto"}
    for key, image in clipped_grabs.items():
        assert image == drawn[key], key
    # The grid is there to compare: a chart without its grid differs.
    curves.throughput.getPlotItem().showGrid(x=False, y=False)
    assert _grabs(qtbot, curves, True)["throughput"] != clipped_grabs["throughput"]
