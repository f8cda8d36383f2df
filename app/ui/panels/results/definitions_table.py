"""The Results tab's table under another tool's definitions (GuideLLM, AIPerf, SGLang,
evalscope): one row per point of the runs shown, one column per figure and statistic, each
computed from the point's saved per-request data (app.bench.metrics.definitions)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from app.bench.metrics.definitions import TOOL_NAMES, ToolFigure, point_definitions
from app.bench.results.point_result import PointResult

_STAT_LABELS = {"mean": "mean", "median": "p50", "p99": "p99"}


def _columns(figures: Sequence[ToolFigure]) -> list[tuple[str, str]]:
    """(figure key, stat) per column: a throughput has its one value, a latency three."""
    out = []
    for fig in figures:
        stats = (
            ("mean",)
            if fig.unit == "tok/s" and fig.key != "per_user"
            else ("mean", "median", "p99")
        )
        if fig.tool == "evalscope":
            stats = ("mean",)  # evalscope reports averages
        out += [(fig.key, s) for s in stats]
    return out


class DefinitionsTable(QTableWidget):
    """Rows: points; columns: the chosen tool's figures (its own names in the tooltips)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 0, parent)
        self.tool = "guidellm"
        self.points: list[tuple[str, PointResult]] = []
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)

    def show_points(self, tool: str, points: Sequence[tuple[str, PointResult]]) -> None:
        self.tool, self.points = tool, list(points)
        self.refresh()

    def refresh(self) -> None:
        rows = [
            (run, p, point_definitions(p.doc, p.duration_s, [self.tool])) for run, p in self.points
        ]
        shape = rows[0][2] if rows else []
        columns = _columns(shape)
        by_key = {f.key: f for f in shape}
        self.clear()
        self.setRowCount(0)
        self.setColumnCount(2 + len(columns))
        headers = [
            QCoreApplication.translate("DefinitionsTable", "Run"),
            QCoreApplication.translate("DefinitionsTable", "Point"),
        ]
        headers += [f"{by_key[k].label} {_STAT_LABELS[s]}" for k, s in columns]
        self.setHorizontalHeaderLabels(headers)
        for col, (key, _stat) in enumerate(columns, start=2):
            fig = by_key[key]
            item = self.horizontalHeaderItem(col)
            assert item is not None  # made just above by setHorizontalHeaderLabels
            item.setToolTip(
                QCoreApplication.translate(
                    "DefinitionsTable", "{0}: {1} ({2}, {3}); weighting: {4}"
                ).format(TOOL_NAMES[fig.tool], fig.name, fig.unit, fig.formula, fig.weighting)
            )
        for run, point, figures in rows:
            row = self.rowCount()
            self.insertRow(row)
            rate = "inf" if math.isinf(point.request_rate) else f"{point.request_rate:g}"
            conc = "–" if point.max_concurrency is None else str(point.max_concurrency)
            self.setItem(row, 0, QTableWidgetItem(run))
            self.setItem(row, 1, QTableWidgetItem(f"r={rate} c={conc}"))
            values = {f.key: f for f in figures}
            for col, (key, stat) in enumerate(columns, start=2):
                fig = values[key]
                if fig.missing:
                    text = QCoreApplication.translate("DefinitionsTable", "needs --save-detailed")
                    item = QTableWidgetItem(text)
                    item.setToolTip(fig.missing)
                else:
                    value = fig.values.get(stat)
                    item = QTableWidgetItem("–" if value is None else f"{value:.2f}")
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.setItem(row, col, item)

    def cell(self, row: int, header: str) -> str:
        """The text under a column title (tests read the table by title)."""
        for col in range(self.columnCount()):
            title = self.horizontalHeaderItem(col)
            if title is not None and title.text() == header:
                item = self.item(row, col)
                return item.text() if item is not None else ""
        raise KeyError(header)
