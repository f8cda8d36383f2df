"""The Results tab's table: one row per point of the runs shown, SLO cells coloured."""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from app.bench.results.point_result import PointResult
from app.bench.results.point_row import PointRow
from app.bench.results.request_samples import RequestSamples, request_samples
from app.ui import point_status
from app.ui.exports.tables import OPTIONAL_KEYS, TABLE_COLUMNS, cell_text, hidden_keys
from app.ui.exports.tooltips import metric_tooltips
from app.ui.plots.capacity import FAIL_BG, PASS_BG, slo_cell_colours
from app.ui.plots.sweep_curves import Series

OPTIONAL_SET = frozenset(OPTIONAL_KEYS)


class PointsTable(QTableWidget):
    """A Run column, then TABLE_COLUMNS; columns no shown point has are hidden. Rows select
    whole; Ctrl/Shift select points of several runs (their distributions are overlaid)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 1 + len(TABLE_COLUMNS), parent)
        for col in range(self.columnCount()):
            self.setHorizontalHeaderItem(col, QTableWidgetItem())
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # A long run name must not push the TPOT columns behind the scroll bar: the Run
        # column has a fixed width and elides (the full name is in the tooltip).
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 150)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        # Each row's run name and point (None: a point without a file behind it).
        self._row_points: list[tuple[str, PointResult | None]] = []
        # Each row's run name and point row (the very object), and the optional columns it
        # has a value for: what a new point's rows are matched against.
        self._row_keys: list[tuple[str, PointRow]] = []
        self._row_present: list[frozenset[str]] = []
        # A point with its per-request data (a point added from a sweep's event has none
        # until its file is read): the Results panel's cache.
        self.detailed: Callable[[PointResult], PointResult] = lambda point: point

    def retranslate(self) -> None:
        self._row_keys = []  # the rows' tooltips are in the old language: built again
        tips = metric_tooltips()
        run = self.horizontalHeaderItem(0)
        assert run is not None  # every column has a header item (setHorizontalHeaderLabels)
        run.setText(self.tr("Run"))
        for col, (key, header, _dec) in enumerate(TABLE_COLUMNS, start=1):
            item = self.horizontalHeaderItem(col)
            assert item is not None
            item.setText(QCoreApplication.translate("Metrics", header))
            item.setToolTip(tips.get(key, ""))

    def headers(self) -> list[str]:
        """The column titles as shown (a Markdown export uses them)."""
        items = [self.horizontalHeaderItem(c) for c in range(self.columnCount())]
        return [item.text() for item in items if item is not None]

    def show_points(self, series: list[Series], by_path: dict[str, PointResult]) -> None:
        """One row per point of each series (SLO verdicts colour the cells); `by_path` are
        the points' results by file path (for distributions).

        Rows already shown for the very same point objects (a run's rows are built once per
        point) are kept and only the new points' rows are made: a point joining a shown run
        costs one row, not the whole table again. Anything else (a point gone or moved, a
        language change) builds the table again."""
        rows = [(s.name, point) for s in series for point in s.points]
        kept = self._kept_rows(rows)
        self.clearSelection()  # as a table built again has none
        if kept is None:
            self.setRowCount(0)
            self._row_points, self._row_keys, self._row_present = [], [], []
            kept = [False] * len(rows)
        for row, ((name, point), old) in enumerate(zip(rows, kept, strict=True)):
            if old:
                continue
            result = by_path.get(point.path)
            self.insertRow(row)
            self._fill_row(row, name, point)
            self._row_points.insert(row, (name, result))
            self._row_keys.insert(row, (name, point))
            self._row_present.insert(row, OPTIONAL_SET - hidden_keys([point]))
        hidden = OPTIONAL_SET.difference(*self._row_present)
        for col, (key, _h, _dec) in enumerate(TABLE_COLUMNS, start=1):
            self.setColumnHidden(col, key in hidden)

    def _kept_rows(self, rows: list[tuple[str, PointRow]]) -> list[bool] | None:
        """Which of `rows` the table shows already, in the same order (the shown rows must all
        be among them); None when the table is to be built again."""
        if len(self._row_keys) != self.rowCount():
            return None  # forgotten (a language change)
        kept, old = [], iter(self._row_keys)
        current = next(old, None)
        for name, point in rows:
            same = current is not None and current[0] == name and current[1] is point
            kept.append(same)
            if same:
                current = next(old, None)
        return kept if current is None else None

    def _fill_row(self, row: int, name: str, point: PointRow) -> None:
        run = QTableWidgetItem(name)
        run.setToolTip(name)
        self.setItem(row, 0, run)
        colours = slo_cell_colours(point.blocks)
        # Cut short (italics) or run at another load than planned: said on hover.
        fragment = point_status.is_fragment(point)
        status_tip = point_status.status_tooltip(point)
        for col, (key, _h, dec) in enumerate(TABLE_COLUMNS, start=1):
            item = QTableWidgetItem(cell_text(point, key, dec))
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            point_status.mark_cell(item, key, fragment, status_tip)
            if key in colours:
                passed, tip = colours[key]
                item.setBackground(QColor(PASS_BG if passed else FAIL_BG))
                item.setForeground(QColor("#1b1b1b"))
                item.setToolTip(tip)
            self.setItem(row, col, item)

    def selected_samples(self) -> list[tuple[str, RequestSamples]]:
        """The selected points' per-request samples, labelled by run, rate and concurrency."""
        rows = sorted({i.row() for i in self.selectedIndexes()})
        series = []
        for row in rows:
            if 0 <= row < len(self._row_points):
                run, point = self._row_points[row]
                if point is None:
                    continue
                conc = "∞" if point.max_concurrency is None else point.max_concurrency
                rate = "inf" if math.isinf(point.request_rate) else f"{point.request_rate:g}"
                detailed = self.detailed(point)
                samples = request_samples(detailed.doc, detailed.itl_set_aside)
                series.append((f"{run} r={rate} c={conc}", samples))
        return series
