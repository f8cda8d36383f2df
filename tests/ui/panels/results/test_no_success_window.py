"""A sweep in which nothing succeeds: the window shows dashes and says why, never zeros."""

from __future__ import annotations

from app.bench.results.read import load_results
from app.profiles import Target
from app.ui.exports.tables import TABLE_COLUMNS
from app.ui.panels.results.panel import ResultsPanel
from app.ui.panels.sweep.panel import SweepPanel

COL = {key: i for i, (key, _h, _d) in enumerate(TABLE_COLUMNS)}
FIGURES = ("median_ttft_ms", "p99_ttft_ms", "median_tpot_ms", "p99_tpot_ms", "p99_itl_ms")


def test_a_point_without_success_shows_dashes_and_the_reason(qtbot, sim, tmp_path) -> None:
    # A model id the simulator does not serve: every request is an HTTP 404.
    panel = SweepPanel(lambda: Target("Built-in simulator", sim.base_url, "chat", "no-such"))
    qtbot.addWidget(panel)
    panel.form.results_root.setText(str(tmp_path))
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
    panel.form.input_len.setValue(16)
    panel.form.output_len.setValue(4)
    panel.form.num_prompts.setValue(3)
    panel.form.rates.setText("inf")
    panel.form.concurrencies.setText("1")
    panel.form.label.setText("t")
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=45_000)
    status = panel.status.text()
    assert status.startswith("Done: 1 point(s) saved in"), status
    assert "No request succeeded in 1 of 1 point(s)" in status
    assert "3 × HTTP 404 not found" in status and "model id is served" in status
    assert panel.status.styleSheet()  # shown as a problem
    row = [panel.table.item(0, c).text() for c in range(panel.table.columnCount())]
    assert [row[COL[k]] for k in FIGURES] == ["–"] * len(FIGURES)
    assert row[COL["completed"]] == "0" and row[COL["failed"]] == "3"

    # The Results panel reads the saved file the same way.
    (point,) = load_results([panel.run_dir])
    assert point.metric("ttft", "median") is None
    results = ResultsPanel()
    qtbot.addWidget(results)
    results.set_folder(tmp_path)
    results.show_runs([run.name for run in results.runs])
    table = results.table
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    cells = {h: table.item(0, c).text() for c, h in enumerate(headers)}
    assert cells["TTFT P50 (ms)"] == "–" and cells["TPOT P99 (ms)"] == "–", cells
