"""Chart labels never sit on each other: the sweep curves' SLO / capacity / knee labels, the
roofline dock's "cN: M%" labels and the Pareto chart's load labels, at realistic sizes."""

from __future__ import annotations

from app.ui.plots.capacity import Marks, draw_marks
from app.ui.plots.declutter import overlapping
from app.ui.plots.sweep_curves import Series, SweepCurves


def _point(c: int, ttft: float, tpot: float, tok_s: float) -> dict:
    return {"max_concurrency": c, "request_rate": "inf", "completed": 48, "num_prompts": 48,
            "p99_ttft_ms": ttft, "median_tpot_ms": tpot, "p99_tpot_ms": tpot * 1.2,
            "output_throughput": tok_s}  # fmt: skip


def _settle(qtbot, *declutters) -> None:
    qtbot.waitUntil(lambda: not any(d.pending for d in declutters))


def test_knee_capacity_and_slo_labels_are_apart(qtbot) -> None:
    curves = SweepCurves()
    qtbot.addWidget(curves)
    curves.resize(860, 380)  # two charts a row: each about 420 x 170 px, as on the Results tab
    curves.show()
    qtbot.waitExposed(curves)
    # The TTFT knee at the second load, the SLO at 800 ms three quarters up the chart, the
    # capacity boundary just past the knee: before, "knee" sat on "SLO 800 ms (p99)".
    points = [_point(c, t, 20 + c, 60 * c) for c, t in
              ((1, 120), (2, 140), (4, 700), (8, 1000), (16, 1050), (32, 1080))]  # fmt: skip
    series = [Series("lead", points)]
    curves.set_series(series)
    marks = Marks(slos=["ttft:p99:800", "tpot:p99:40"], highest_pass=2, lowest_fail=4,
                  knees={"ttft": 2, "tpot": 2})  # fmt: skip
    draw_marks(curves, series, marks)
    _settle(qtbot, *curves.declutter.values())
    for plot in (curves.ttft, curves.tpot, curves.throughput):
        labels = [i.label for i in plot.getPlotItem().items if hasattr(i, "label") and i.label]
        assert len(labels) >= 1
        assert overlapping(labels) == [], overlapping(labels)
    assert all(not d.hidden for d in curves.declutter.values())
