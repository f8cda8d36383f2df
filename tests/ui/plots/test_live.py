"""Empty charts: sensible axes before the first point, never pyqtgraph's bare 0-1 and '(x0.001)'."""

from __future__ import annotations

from app.ui.plots.live import LiveCharts


def test_empty_live_charts_start_from_plausible_ranges(qtbot) -> None:
    live = LiveCharts()
    qtbot.addWidget(live)
    tops = [plot.getPlotItem().getViewBox().viewRange()[1][1] for plot in live.plots()[1:]]
    assert tops == [100.0, 1000.0, 10.0]  # ms, tok/s, requests: not 0-1
    for plot in live.plots():
        assert not plot.getPlotItem().getAxis("bottom").autoSIPrefix


def test_gaps_under_the_log_floor_are_named(qtbot) -> None:
    live = LiveCharts()
    qtbot.addWidget(live)
    live.add_tokens([0.1, 0.2, 0.3, 0.4], [20.0, 0.0, 0.0, 21.0])  # two tokens read together
    live.refresh(full=True)
    note = live.floor_note
    assert note.isVisible() and note.toPlainText().startswith("2 gap(s) under 0.01 ms")
    live.clear()
    live.refresh(full=True)
    assert note.toPlainText() == ""
