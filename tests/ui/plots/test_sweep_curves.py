"""The sweep curves: words and no fake scale when empty, the roofline floor from a live summary."""

from __future__ import annotations

from app.bench.results.point_row import PointRow
from app.ui.plots.sweep_curves import SweepCurves
from tests.ui.rows import row_of


def _label(plot, side: str) -> str:
    axis = plot.getPlotItem().getAxis(side)
    return axis.labelString()


def test_empty_sweep_curves_have_words_and_no_fake_scale(qtbot) -> None:
    curves = SweepCurves()
    qtbot.addWidget(curves)
    curves.resize(900, 300)
    curves.show()
    qtbot.waitExposed(curves)
    for plot in curves.plots().values():
        item = plot.getPlotItem()
        assert "max concurrency" in _label(plot, "bottom")
        assert "x0.001" not in _label(plot, "bottom") and "x0.001" not in _label(plot, "left")
        assert not item.getAxis("bottom").autoSIPrefix
        assert not item.getAxis("left").style["showValues"]  # no 0-1 numbers without data
    curves.set_series([])
    assert "x0.001" not in _label(curves.tpot, "bottom")


def test_the_floor_is_drawn_from_a_live_summary_too(qtbot) -> None:
    from app.ui.plots.sweep_curves import Series

    curves = SweepCurves()
    qtbot.addWidget(curves)
    live = {"max_concurrency": 4, "request_rate": "inf", "median_tpot_ms": 19.7,
            "tpotbench": {"roofline": {"floor_tpot_ms": 15.14}}}  # fmt: skip
    curves.set_series([Series("this run", [row_of(live)])])
    ys = [item.getData()[1].tolist() for item in curves.tpot.getPlotItem().listDataItems()]
    assert [15.14] in ys
    assert "floor" in curves.tpot.getPlotItem().titleLabel.text


def test_empty_curves_say_so_in_words(qtbot) -> None:
    from app.ui.plots.sweep_curves import SweepCurves

    curves = SweepCurves()
    qtbot.addWidget(curves)
    for plot in curves.plots().values():
        text = curves._empty_text[plot]
        assert text.isVisible() and text.toPlainText().startswith("No points yet")
        assert text in plot.getPlotItem().items


def test_a_point_joining_a_shown_chart_sets_its_range_before_the_chart_is_painted(qtbot) -> None:
    """The value axis takes the new point's range as the curves are drawn, not while the
    chart is painted (pyqtgraph's way): there it changed the axes during the paint and had
    each chart painted twice per point that joined the run."""
    from app.ui.plots.sweep_curves import Series

    curves = SweepCurves()
    qtbot.addWidget(curves)
    curves.resize(900, 300)
    curves.show()
    qtbot.waitExposed(curves)

    def point(conc: int, tpot: float) -> PointRow:
        return row_of({"max_concurrency": conc, "request_rate": "inf", "median_tpot_ms": tpot,
                       "p99_tpot_ms": tpot * 1.5, "p99_ttft_ms": 10 * tpot,
                       "output_throughput": 100.0 * conc})  # fmt: skip

    run = [point(1, 10.0), point(2, 12.0)]
    curves.set_series([Series("run", run)])
    qtbot.wait(1)
    curves.set_series([Series("run", [*run, point(4, 300.0)])])  # no event processed since
    for plot in curves.plots().values():
        view = plot.getPlotItem().getViewBox()
        before = view.viewRange()
        assert before[1][1] >= max(y for item in plot.getPlotItem().listDataItems()
                                   for y in item.getData()[1])  # fmt: skip
        qtbot.wait(1)
        assert view.viewRange() == before  # painting it changed nothing
