"""Click a point in the sweep table: its TTFT/TPOT/ITL/E2EL distributions and scatters."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from app.bench.results.request_samples import RequestSamples
from app.ui.plots.distributions import DistributionsView
from tests.ui.panels.sweep.test_panel import _panel


def _curves(view: DistributionsView) -> list:
    return view.dist_plot.getPlotItem().listDataItems()


def _click_row(qtbot, table, row: int, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    rect = table.visualRect(table.model().index(row, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())


def test_clicking_a_point_shows_its_distributions(qtbot, sim, tmp_path) -> None:
    panel = _panel(qtbot, sim.base_url, tmp_path)
    panel.resize(1400, 900)
    panel.show()
    panel.form.concurrencies.setText("2, 4")
    panel.form.output_len.setValue(12)
    panel.form.num_prompts.setValue(8)
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=60_000)
    assert panel.table.rowCount() == 2
    view = panel.distributions
    assert view.series_names() == []

    _click_row(qtbot, panel.table, 1)
    assert panel.tabs.currentWidget() is view
    assert view.series_names() == ["r=inf c=4"]
    # TTFT histogram of the point's 8 requests, in % per bin.
    (hist,) = _curves(view)
    _x, share = hist.getData()
    assert share is not None and abs(float(np.nansum(hist.yData)) - 100.0) < 1e-6
    assert view.scatter_counts() == (8, 0)  # 8 requests, none failed
    # ITL from the file's histogram (no --save-detailed): 8 requests x 11 gaps.
    view.set_metric("itl")
    view.set_mode("cdf")
    (itl,) = _curves(view)
    assert float(itl.yData[-1]) == 100.0
    # The binned CDF crosses 50 % at the bin holding the point's median ITL (bins 12 % wide;
    # x is a bin's upper edge). 88 gaps: when exactly 44 fall at or below an edge the CDF
    # sits at 50 % there and the median (the mean of the 44th and 45th gap) lies in the next
    # bin, so the median is bounded by the first bin reaching 50 % and the first passing it.
    median = max(float(panel.points[1].stats["median_itl_ms"] or 0.0), 0.01)
    reaches = float(itl.xData[np.searchsorted(itl.yData, 50.0 - 1e-9, side="left")])
    passes = float(itl.xData[np.searchsorted(itl.yData, 50.0 + 1e-9, side="right")])
    assert reaches <= median * 1.13 and median <= passes * 1.0001

    # Ctrl-click the other point: both overlaid, one curve each.
    _click_row(qtbot, panel.table, 0, Qt.KeyboardModifier.ControlModifier)
    assert view.series_names() == ["r=inf c=2", "r=inf c=4"]
    assert len(_curves(view)) == 2
    assert view.scatter_counts() == (16, 0)


def test_failed_requests_are_drawn_apart(qtbot) -> None:
    view = DistributionsView()
    qtbot.addWidget(view)
    samples = RequestSamples(
        ok=[True, True, False],
        ttft_ms=[40.0, 55.0],
        tpot_ms=[20.0, 21.0],
        e2el_ms=[700.0, 720.0],
        ttft_by_prompt=[(100, 40.0), (300, 55.0)],
        e2el_by_output=[(32, 700.0), (32, 720.0)],
        failed_by_prompt=[(200, 5000.0)],
        failed_by_output=[(3, 5000.0)],
    )
    view.set_series([("c=8", samples)])
    assert view.scatter_counts() == (2, 1)
    assert "1 failed" in view.note.text()
    view.scatter_kind.setCurrentIndex(view.scatter_kind.findData("e2el"))
    assert view.scatter_counts() == (2, 1)
    view.set_mode("cdf")
    (cdf_curve,) = _curves(view)
    assert float(cdf_curve.yData[-1]) == 100.0


def test_the_scatter_choice_shows_its_whole_name_in_a_narrow_panel(qtbot) -> None:
    view = DistributionsView()
    qtbot.addWidget(view)
    view.resize(585, 420)  # the Sweep panel's width at 1280x720 with both docks
    view.show()
    qtbot.waitExposed(view)
    combo = view.scatter_kind
    # What Qt needs to show the longest choice whole: a combo sized to its contents.
    whole = QComboBox()
    whole.addItems([combo.itemText(i) for i in range(combo.count())])
    whole.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    assert combo.width() >= whole.sizeHint().width(), (combo.width(), whole.sizeHint())


def test_empty_charts_show_no_numbers_until_there_is_data(qtbot) -> None:
    view = DistributionsView()
    qtbot.addWidget(view)

    def numbers_shown() -> list[bool]:
        return [
            plot.getPlotItem().getAxis(side).style["showValues"]
            for plot in (view.dist_plot, view.scatter_plot)
            for side in ("left", "bottom")
        ]

    assert numbers_shown() == [False] * 4  # no 0.2-0.8 that looks like data
    samples = RequestSamples(
        ok=[True, True],
        ttft_ms=[40.0, 55.0],
        tpot_ms=[20.0, 21.0],
        e2el_ms=[700.0, 720.0],
        ttft_by_prompt=[(100, 40.0), (300, 55.0)],
        e2el_by_output=[(32, 700.0), (32, 720.0)],
    )
    view.set_series([("c=8", samples)])
    assert numbers_shown() == [True] * 4
    view.set_series([])
    assert numbers_shown() == [False] * 4


def test_a_zoomed_in_chart_takes_new_histograms(qtbot) -> None:
    view = DistributionsView()
    qtbot.addWidget(view)
    view.resize(800, 400)
    view.show()
    rng = np.random.default_rng(1)

    def samples(scale: float) -> RequestSamples:
        ms = rng.lognormal(np.log(scale), 0.5, 200).tolist()
        return RequestSamples(ok=[True] * 200, ttft_ms=ms, tpot_ms=ms, e2el_ms=ms)

    view.set_series([("a", samples(50.0))])
    view.dist_plot.setXRange(1.9, 2.0, padding=0)  # the user zoomed into part of it (log10 ms)
    with qtbot.captureExceptions() as raised:
        view.set_series([("a", samples(50.0)), ("b", samples(300.0))])
        qtbot.wait(10)
    assert raised == []
    assert len(_curves(view)) == 2
    for curve in _curves(view):
        assert len(curve.xData) == len(curve.yData) + 1  # every bin edge, zoomed or not


def test_the_scatter_names_its_series_in_the_title_not_over_the_dots(qtbot) -> None:
    view = DistributionsView()
    qtbot.addWidget(view)
    samples = RequestSamples(
        ok=[True, False],
        ttft_ms=[40.0],
        tpot_ms=[20.0],
        e2el_ms=[700.0],
        ttft_by_prompt=[(100, 40.0)],
        e2el_by_output=[(32, 700.0)],
        failed_by_prompt=[(200, 5000.0)],
        failed_by_output=[(3, 5000.0)],
    )
    view.set_series([("c=8", samples), ("c=16", samples)])
    item = view.scatter_plot.getPlotItem()
    assert item.legend is None or not item.legend.items  # no box over the dots
    title = item.titleLabel.text
    for name in ("TTFT vs prompt tokens", "c=8", "c=16", "failed (time to failure)"):
        assert name in title
