"""The Pareto chart in the window: on the Sweep curves tab from a run's summaries, and in the
Roofline dock from the panel's GPU, model and GPU count."""

from __future__ import annotations

import pytest

from app.bench.results.point_row import PointRow
from app.roofline.pareto import ParetoPoint
from app.ui.panels.roofline.panel import RooflinePanel
from app.ui.plots.pareto import ParetoPlot, ParetoRun
from app.ui.plots.sweep_curves import Series, SweepCurves
from tests.ui.rows import row_of

ROOFLINE = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16", "kv_dtype": "fp16",
            "context": 512}  # fmt: skip


def _curves(plot) -> dict[str, tuple[list[float], list[float]]]:
    """Each data item's (x, y) by its role, as drawn (log y is given back in data units)."""
    out = {}
    for role, item in plot.data_items.items():
        assert item in plot.getPlotItem().listDataItems()  # on the chart, not just kept
        x, y = item.getOriginalDataset()
        out[role] = (list(x), list(y))
    return out


def _summary(conc: int, tpot_ms: float, tok_s: float) -> PointRow:
    return row_of(
        {
            "max_concurrency": conc,
            "request_rate": "inf",
            "median_tpot_ms": tpot_ms,
            "output_throughput": tok_s,
            "tpotbench": {"roofline": {**ROOFLINE, "batch": float(conc), "tensor_parallel": 1}},
        }
    )


def test_sweep_curves_draw_the_loads_their_frontier_and_the_hardware(qtbot) -> None:
    curves = SweepCurves()
    qtbot.addWidget(curves)
    # conc 1: 20 ms -> 50 tok/s per user, 48 tok/s; conc 8: 25 ms -> 40 per user, 300 tok/s;
    # conc 16: 40 ms -> 25 per user but only 280 tok/s: beaten by conc 8 on both axes.
    points = [_summary(1, 20.0, 48.0), _summary(8, 25.0, 300.0), _summary(16, 40.0, 280.0)]
    curves.set_series([Series("this run", points)])
    drawn = _curves(curves.pareto)
    assert drawn["points 0"] == ([50.0, 40.0, 25.0], [48.0, 300.0, 280.0])
    assert drawn["frontier 0"] == ([40.0, 50.0], [300.0, 48.0])
    hw_x, hw_y = drawn["hardware 0"]
    # The hand-worked reference (tests/roofline/test_pareto.py): batch 1 66.0523 / 66.0523.
    assert hw_x[0] == pytest.approx(66.0523, abs=1e-3) and hw_y[0] == hw_x[0]
    # One dotted gap per point, from the point to the hardware at its batch.
    gap_x, gap_y = drawn["gaps"]
    assert len(gap_x) == 6 and gap_y[:2] == [48.0, pytest.approx(66.0523, abs=1e-3)]
    labels = {t.textItem.toPlainText() for t in curves.pareto.texts}
    assert {"conc 1", "conc 8", "conc 16", "b=1", "b=8", "b=64"} <= labels
    title = curves.pareto.getPlotItem().titleLabel.text
    assert "Pareto" in title and "hardware ×1" in title
    assert "hardware — GeForce RTX 3090 ×1, bf16" in curves.pareto.toolTip()
    assert set(curves.charts()) == {"throughput", "tpot", "ttft", "pareto"}


def test_a_file_without_roofline_still_places_its_loads(qtbot) -> None:
    curves = SweepCurves()
    qtbot.addWidget(curves)
    bare = {"max_concurrency": 4, "request_rate": "inf", "median_tpot_ms": 25.0,
            "output_throughput": 150.0}  # fmt: skip
    curves.set_series([Series("vllm", [row_of(bare)])])
    drawn = _curves(curves.pareto)
    assert drawn["points 0"] == ([40.0], [150.0])
    assert not any(role.startswith("hardware") for role in drawn)


def test_roofline_dock_pareto_follows_the_gpu_count(qtbot) -> None:
    panel = RooflinePanel()
    qtbot.addWidget(panel)
    panel.set_context("rtx3090", "qwen2.5-7b", "bf16", "fp16")
    panel.add_measured_point(8, 20.0, 25.0, None, 400.0)
    drawn = _curves(panel.pareto_plot)
    assert drawn["points 0"] == ([50.0], [400.0])
    with qtbot.waitSignal(panel.contextChanged, timeout=1000) as blocker:
        panel.picker.gpus_spin.setValue(2)
    assert blocker.args[0].tensor_parallel == 2
    assert "hardware ×2" in panel.pareto_plot.getPlotItem().titleLabel.text
    assert "GeForce RTX 3090 ×2" in panel.pareto_plot.toolTip()
    drawn = _curves(panel.pareto_plot)
    # Two GPUs: 400 tok/s is 200 per GPU; the hardware's batch-1 user rate doubles (132.1)
    # while its per-GPU rate stays 66.05.
    assert drawn["points 0"] == ([50.0], [200.0])
    hw_x, hw_y = drawn["hardware 0"]
    assert hw_x[0] == pytest.approx(132.1045, abs=1e-3)
    assert hw_y[0] == pytest.approx(66.0523, abs=1e-3)
    # A point without a throughput (a probe) has no place on it.
    panel.add_measured_point(1, 19.7, 20.0)
    assert _curves(panel.pareto_plot)["points 0"][0] == [50.0]


def test_points_at_the_same_place_share_one_label(qtbot) -> None:
    """A load measured twice with the same figures (and two points at one place) get one
    label naming them all; two runs' points at one place keep their own labels, apart."""
    from app.roofline.pareto import ParetoPoint
    from app.ui.plots.pareto import ParetoPlot, ParetoRun

    plot = ParetoPlot()
    qtbot.addWidget(plot)
    plot.resize(500, 380)
    plot.show()
    qtbot.waitExposed(plot)

    def points() -> list[ParetoPoint]:
        return [ParetoPoint("conc 1", 50.0, 48.0), ParetoPoint("conc 4", 45.0, 170.0),
                ParetoPoint("conc 1", 50.0, 48.0), ParetoPoint("conc 16", 40.0, 470.0),
                ParetoPoint("conc 32", 40.0, 470.0)]  # fmt: skip

    plot.show_runs([ParetoRun("run", "#0072B2", points())], [])
    qtbot.waitUntil(lambda: not plot.declutter.pending)
    texts = [t.toPlainText() for t in plot.texts]
    assert texts == ["conc 1 ×2", "conc 4", "conc 16, conc 32"]
    assert _overlapping(plot.texts) == []
    for t in plot.texts:  # on the chart, or (no room) named in its tooltip
        assert t.isVisible() or t.toPlainText() in plot.toolTip()
    # Hovering a marker still names every point under the pointer (name_points).
    assert list(plot.data_items["points 0"].scatter.data["data"]) == [p.label for p in points()]
    plot.show_runs([ParetoRun("a", "#0072B2", points()), ParetoRun("b", "#D55E00", points())], [])
    qtbot.waitUntil(lambda: not plot.declutter.pending)
    assert _overlapping(plot.texts) == []
    shown = [t.toPlainText() for t in plot.texts if t.isVisible()]
    named = shown + plot.declutter.hidden
    assert sorted(named) == sorted(2 * ["conc 1 ×2", "conc 4", "conc 16, conc 32"])


def _overlapping(labels) -> list[tuple[str, str]]:
    """Pairs of shown labels written over each other (more than half a pixel both ways: labels
    stacked one height apart share an edge)."""
    shown = [t for t in labels if t.isVisible()]
    out = []
    for k, a in enumerate(shown):
        for b in shown[k + 1 :]:
            common = a.sceneBoundingRect().intersected(b.sceneBoundingRect())
            if common.width() > 0.5 and common.height() > 0.5:
                out.append((a.toPlainText(), b.toPlainText()))
    return out


def test_a_view_range_that_leaves_the_named_points_out_of_sight_draws_without_error(
    qtbot,
) -> None:
    """Each marker carries its load's name (hovering shows it). Clipped to the view, a range
    with none of a run's points in it dropped the points but kept their names, and pyqtgraph
    raised from the range change (seen under load between two drawings of the Results tab)."""
    plot = ParetoPlot()
    qtbot.addWidget(plot)
    plot.resize(500, 400)
    plot.show()
    qtbot.waitExposed(plot)
    points = [ParetoPoint("c=1", 50.0, 40.0), ParetoPoint("c=8", 40.0, 200.0)]
    plot.show_runs([ParetoRun("run", "#1f77b4", points)], [])
    box = plot.getPlotItem().getViewBox()
    box.setXRange(1000, 2000, padding=0)  # both points left of the view
    box.setXRange(0, 100, padding=0)
    x, _y = plot.data_items["points 0"].getData()
    assert list(x) == [50.0, 40.0]  # drawn whole, named whole
