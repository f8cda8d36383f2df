"""The window says when a load did not happen: Experiment B's mistake in small (4 prompts at
concurrency 2 and 8, a real worker against the simulator) marks the point at 8 in the status
line, the table's Status column and the curves."""

from __future__ import annotations

from app.ui.exports.tables import TABLE_COLUMNS
from app.ui.point_status import WARN_FG
from tests.ui.panels.sweep.test_panel import _panel

COL = {key: i for i, (key, _h, _d) in enumerate(TABLE_COLUMNS)}


def test_a_concurrency_never_reached_is_said_in_status_table_and_curves(
    qtbot, sim, tmp_path
) -> None:
    panel = _panel(qtbot, sim.base_url, tmp_path)
    panel.form.concurrencies.setText("2, 8")
    panel.form.output_len.setValue(4)
    panel.form.num_prompts.setValue(4)
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=45_000)
    assert panel.last_error == ""
    status = panel.status.text()
    assert status.startswith("Done: 2 point(s) saved in")
    # (a very busy machine may name the client saturated at c=2 as well)
    assert "⚠ Load not as planned at " in status and "r=inf c=8" in status
    assert panel.status.styleSheet()  # shown as a warning, not a clean "Done"

    table = panel.table
    assert not table.isColumnHidden(COL["status"])
    assert "concurrency" not in table.item(0, COL["status"]).text()
    cell = table.item(1, COL["status"])
    assert cell.text().startswith("⚠ concurrency 4 of 8")
    assert cell.foreground().color().name() == WARN_FG
    assert "only 4 prompts for 8 streams" in table.item(1, COL["p99_tpot_ms"]).toolTip()

    # On the curves: the point at 8 is not a measurement at 8: an open marker off the line,
    # ringed; the line holds only the point at 2.
    panel.charts.draw_curves(panel.points)
    items = panel.curves.throughput.getPlotItem().listDataItems()
    lines = [i for i in items if i.opts["pen"] is not None]
    assert all(1.0 not in i.getData()[0].tolist() for i in lines)
    markers = [i for i in items if i.opts["pen"] is None]
    apart = [i for i in markers if i.opts["symbolBrush"] is not None]
    rings = [i for i in markers if i.opts["symbolBrush"] is None]
    assert any(1.0 in i.getData()[0].tolist() for i in apart)
    assert all(i.opts["symbolBrush"].color().name() == "#ffffff" for i in apart)
    assert any(1.0 in i.getData()[0].tolist() for i in rings)
    assert all(i.opts["symbolPen"].color().name() == WARN_FG for i in rings)
