"""The Results panel opens point files in earlier releases' shapes (tests/bench/results/
old_shapes.py) with the figures they carry, says nothing is wrong and logs no warning."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from app.ui.exports.tables import TABLE_COLUMNS
from app.ui.panels.results.panel import ResultsPanel
from tests.bench.results.old_shapes import LACKS, rich_points, write_old_runs
from tests.bench.results.test_old_files import FROM_LATER_BLOCKS

COL = {key: i for i, (key, _h, _d) in enumerate(TABLE_COLUMNS, start=1)}


def test_the_results_panel_opens_older_shapes(
    qtbot, sim, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folders = write_old_runs(rich_points(sim.base_url, tmp_path / "written"), tmp_path / "runs")
    caplog.set_level(logging.WARNING)
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(tmp_path / "runs")
    assert panel.errors == []
    assert sorted(r.folder.name for r in panel.runs) == sorted(folders)
    assert all(len(r.points) == 2 for r in panel.runs)
    panel.show_runs([r.name for r in panel.runs])
    table = panel.table
    assert table.rowCount() == 2 * len(folders)
    cells: dict[str, list[list[str]]] = {}
    for row in range(table.rowCount()):
        run = table.item(row, 0).text()
        cells.setdefault(run, []).append(
            [table.item(row, c).text() for c in range(1, table.columnCount())]
        )
    name_of = {r.folder.name: r.name for r in panel.runs}
    current = cells[name_of["current"]]
    assert all(row[COL["p99_ttft_ms"] - 1] not in ("", "–") for row in current)
    assert all(row[COL["floor_tpot_ms"] - 1] not in ("", "–") for row in current)
    for release in LACKS:
        later = {COL[k] - 1 for k in FROM_LATER_BLOCKS[release] if k in COL}
        shown = cells[name_of[release]]
        assert len(shown) == len(current)
        for old_row, new_row in zip(shown, current, strict=True):
            assert [t for i, t in enumerate(old_row) if i not in later] == [
                t for i, t in enumerate(new_row) if i not in later
            ], release
            assert all(old_row[i] == "–" for i in later)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
