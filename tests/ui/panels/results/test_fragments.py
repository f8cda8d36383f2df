"""An early-stopped point in the Results tab: in the table with its Status ("early-stopped
after 3 of 48"), in italics; on the curves as an open marker off the line; never a knee."""

from __future__ import annotations

from pathlib import Path

from app.ui.exports.tables import TABLE_COLUMNS, runs_csv, runs_markdown
from app.ui.panels.results.panel import ResultsPanel
from tests.point_docs import write_curve

COL = {key: i for i, (key, _h, _d) in enumerate(TABLE_COLUMNS, start=1)}


def test_an_early_stopped_point_is_shown_but_not_as_a_measurement(qtbot, tmp_path: Path) -> None:
    write_curve(tmp_path / "search")  # knee at 4; the fragment at 32 would move it to 16
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(tmp_path)
    (run,) = panel.runs
    panel.show_runs([run.name])
    table = panel.table
    assert table.rowCount() == 6 and not table.isColumnHidden(COL["status"])
    cell = table.item(5, COL["status"])
    assert table.item(5, COL["max_concurrency"]).text() == "32"
    assert cell.text() == "early-stopped after 3 of 48" and cell.font().italic()
    assert "Not a full measurement" in cell.toolTip()
    assert table.item(0, COL["status"]).text() == "–"

    # The line over the five full points; the fragment alone, open, at slot 5.
    items = panel.curves.tpot.getPlotItem().listDataItems()
    lines = [i for i in items if i.opts["pen"] is not None]
    assert all(i.getData()[0].tolist() == [0, 1, 2, 3, 4] for i in lines)
    apart = [i for i in items if i.opts["pen"] is None]  # TPOT P50 and P99 of the fragment
    assert len(apart) == 2 and all(i.getData()[0].tolist() == [5] for i in apart)
    assert all(i.opts["symbolBrush"].color().name() == "#ffffff" for i in apart)

    # Nor is it a load on the Pareto chart: five points there, none of them at 32 streams.
    loads = panel.curves.pareto.data_items["points 0"].getData()[0]
    assert len(loads) == 5
    assert "conc 32" not in [t.toPlainText() for t in panel.curves.pareto.texts]

    # The knee from the full points (4), not 16 as the fragment would make it.
    from app.ui.plots.capacity import sweep_knees

    series = run.series()
    assert sweep_knees(series.points, "concurrency")["tpot"] == 4

    # Exports say it too.
    csv = runs_csv([series])
    assert "early-stopped after 3 of 48" in csv
    assert "early-stopped after 3 of 48" in runs_markdown([series])
