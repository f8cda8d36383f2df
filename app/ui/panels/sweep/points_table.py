"""The Sweep tab's table of finished points: one row per point, points cut short in italics,
SLO pass/fail cells coloured; selected rows give the points whose distributions are shown."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from app.bench.results.point_row import PointRow
from app.bench.results.read import ResultFileError, load_result
from app.bench.results.request_samples import RequestSamples, request_samples
from app.ui import point_status
from app.ui.exports.tables import TABLE_COLUMNS, cell_text, hidden_keys
from app.ui.panels.sweep.run_model import is_partial, point_label
from app.ui.plots.capacity import FAIL_BG, PASS_BG, slo_cell_colours


class PointsTable(QTableWidget):
    """Rows follow the order points finished in; points() is the panel's list of summaries."""

    def __init__(self) -> None:
        super().__init__(0, len(TABLE_COLUMNS))
        for col in range(len(TABLE_COLUMNS)):
            self.setHorizontalHeaderItem(col, QTableWidgetItem())
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setVisible(False)
        # Click a point: its distributions; Ctrl/Shift-click more points: overlaid.
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        # Compact rows: a whole Experiment B (7 points) stays readable without scrolling.
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self._samples: dict[str, RequestSamples] = {}
        self._shown: list[PointRow] = []
        self._hide_empty_columns()

    def retranslate(self, tips: dict[str, str]) -> None:
        for col, (key, header, _dec) in enumerate(TABLE_COLUMNS):
            item = self.horizontalHeaderItem(col)
            assert item is not None  # every column has a header item (setHorizontalHeaderLabels)
            item.setText(QCoreApplication.translate("Metrics", header))
            item.setToolTip(tips.get(key, ""))

    def clear_points(self) -> None:
        self.setRowCount(0)
        self.horizontalScrollBar().setValue(0)  # a new run starts at its first columns
        self._samples.clear()
        self._shown.clear()
        self._hide_empty_columns()

    def add_point(self, point: PointRow) -> None:
        row = self.rowCount()
        self.insertRow(row)
        partial = is_partial(point)
        colours = slo_cell_colours(point.blocks)
        # Cut short or run at another load: every cell says why on hover.
        tip = point_status.status_tooltip(point)
        name = Path(point.path).name
        tip = f"{tip}\n({name})" if tip and name else tip
        for col, (key, _header, decimals) in enumerate(TABLE_COLUMNS):
            text = cell_text(point, key, decimals)
            if partial and key == "completed":
                text += f" / {point.file_keys.get('num_prompts', '?')}"
            item = QTableWidgetItem(text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            point_status.mark_cell(item, key, partial, tip)
            if key in colours:  # pass/fail against the point's SLOs
                passed, slo_tip = colours[key]
                item.setBackground(QColor(PASS_BG if passed else FAIL_BG))
                item.setForeground(QColor("#1b1b1b"))
                item.setToolTip(slo_tip)
            self.setItem(row, col, item)
        self._shown.append(point)
        self._hide_empty_columns()
        self.scrollToBottom()

    def _hide_empty_columns(self) -> None:
        """Workload columns (reasoning, prefix cache, conversations…) only once a point has them."""
        hidden = hidden_keys(self._shown)
        for col, (key, _header, _dec) in enumerate(TABLE_COLUMNS):
            self.setColumnHidden(col, key in hidden)

    def point_samples(self, point: PointRow) -> RequestSamples | None:
        """The point's per-request data, read from its result file (cached)."""
        path = point.path
        if not path:
            return None
        if path not in self._samples:
            try:
                result = load_result(path)
            except ResultFileError:  # gone or unreadable since the point finished
                return None
            self._samples[path] = request_samples(result.doc, result.itl_set_aside)
        return self._samples[path]

    def selected_samples(self, points: list[PointRow]) -> list[tuple[str, RequestSamples]]:
        """(label, samples) of each selected row's point that has its per-request data."""
        series = []
        for row in sorted({i.row() for i in self.selectedIndexes()}):
            if 0 <= row < len(points):
                samples = self.point_samples(points[row])
                if samples is not None:
                    series.append((point_label(points[row]), samples))
        return series
