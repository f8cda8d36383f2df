"""The Results table alone: a row per point, optional columns only when used, SLO cells coloured."""

from __future__ import annotations

from PySide6.QtGui import QColor

from app.bench.results.point_row import PointRow
from app.ui.exports.tables import OPTIONAL_KEYS, TABLE_COLUMNS
from app.ui.panels.results.points_table import PointsTable
from app.ui.plots.capacity import FAIL_BG, PASS_BG
from app.ui.plots.sweep_curves import Series
from tests.ui.rows import row_of

COL = {key: col for col, (key, _h, _d) in enumerate(TABLE_COLUMNS, start=1)}


def make_table(qtbot) -> PointsTable:
    table = PointsTable()
    qtbot.addWidget(table)
    table.retranslate()
    return table


def point(conc: int, p99: float, path: str | None = None, **block: object) -> PointRow:
    doc = {"request_rate": "inf", "max_concurrency": conc, "p99_tpot_ms": p99}
    return row_of({**doc, "tpotbench": block} if block else doc, path)


def test_one_row_per_point_of_each_run_named_by_its_run(qtbot) -> None:
    table = make_table(qtbot)
    table.show_points(
        [Series("a", [point(1, 20.0), point(4, 22.5)]), Series("b", [point(1, 19.0)])], {}
    )
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == ["a", "a", "b"]
    assert table.item(1, COL["p99_tpot_ms"]).text() == "22.50"
    assert table.headers()[:2] == ["Run", "Rate (req/s)"]
    assert all(table.isColumnHidden(COL[key]) for key in OPTIONAL_KEYS)
    table.selectRow(0)
    assert table.selected_samples() == []  # no file behind these points: nothing to draw


def test_an_optional_column_shows_when_a_point_has_it(qtbot) -> None:
    table = make_table(qtbot)
    cache = {"cached_tokens": 50, "prompt_tokens": 100, "hit_rate": 0.5}
    table.show_points([Series("a", [point(1, 20.0, prefix_cache_client=cache)])], {})
    assert not table.isColumnHidden(COL["client_hit_rate"])
    assert table.item(0, COL["client_hit_rate"]).text() == "50.0 %"
    table.show_points([Series("a", [point(1, 20.0)])], {})
    assert table.isColumnHidden(COL["client_hit_rate"])


def test_slo_verdicts_colour_the_judged_cells(qtbot) -> None:
    table = make_table(qtbot)
    slo = {
        "passed": False,
        "checks": [{"slo": "tpot:p99:20", "kind": "stat", "passed": False}],
    }
    table.show_points(
        [Series("a", [point(1, 19.0, "/r/p1.json"), point(4, 25.0, "/r/p4.json", slo=slo)])],
        {},
    )
    assert table.item(1, COL["p99_tpot_ms"]).background().color() == QColor(FAIL_BG)
    assert table.item(1, COL["max_concurrency"]).background().color() == QColor(FAIL_BG)
    assert "SLO tpot:p99:20" in table.item(1, COL["p99_tpot_ms"]).toolTip()
    assert table.item(0, COL["p99_tpot_ms"]).background().color() != QColor(PASS_BG)
