"""The Results tab's table: one row per point of the runs shown, SLO cells coloured."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

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
from app.bench.results.request_samples import RequestSamples, request_samples
from app.ui import point_status
from app.ui.exports.tables import TABLE_COLUMNS, cell_text, hidden_keys
from app.ui.exports.tooltips import metric_tooltips
from app.ui.plots.capacity import FAIL_BG, PASS_BG, slo_cell_colours
from app.ui.plots.sweep_curves import Series


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
        # A point with its per-request data (a point added from a sweep's event has none
        # until its file is read): the Results panel's cache.
        self.detailed: Callable[[PointResult], PointResult] = lambda point: point

    def retranslate(self) -> None:
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

    def show_points(
        self,
        series: list[Series],
        blocks: dict[str, dict[str, Any]],
        by_path: dict[str, PointResult],
    ) -> None:
        """One row per point of each series; `blocks` are the points' tpotbench blocks by file
        path (SLO verdicts colour the cells), `by_path` their results (for distributions)."""
        self.setRowCount(0)
        self._row_points = []
        for s in series:
            for point in s.points:
                self._row_points.append((s.name, by_path.get(str(point.get("path") or ""))))
                row = self.rowCount()
                self.insertRow(row)
                name = QTableWidgetItem(s.name)
                name.setToolTip(s.name)
                self.setItem(row, 0, name)
                colours = slo_cell_colours({"tpotbench": blocks.get(str(point.get("path")))})
                # Cut short (italics) or run at another load than planned: said on hover.
                fragment = point_status.is_fragment(point)
                status_tip = point_status.status_tooltip(point)
                for col, (key, _h, dec) in enumerate(TABLE_COLUMNS, start=1):
                    item = QTableWidgetItem(cell_text(point, key, dec))
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                    point_status.mark_cell(item, key, fragment, status_tip)
                    if key in colours:
                        passed, tip = colours[key]
                        item.setBackground(QColor(PASS_BG if passed else FAIL_BG))
                        item.setForeground(QColor("#1b1b1b"))
                        item.setToolTip(tip)
                    self.setItem(row, col, item)
        hidden = hidden_keys(p for s in series for p in s.points)
        for col, (key, _h, _dec) in enumerate(TABLE_COLUMNS, start=1):
            self.setColumnHidden(col, key in hidden)

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
                samples = request_samples(self.detailed(point).raw)
                series.append((f"{run} r={rate} c={conc}", samples))
        return series
