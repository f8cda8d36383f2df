"""The Results tab's Compare view: pick a base and a candidate run, see every matching point's
figures with the change, its 95 % interval and a verdict (app.bench.compare)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.bench.compare.compare import Comparison, FigureChange, PointChange, compare_points
from app.bench.results.point_result import PointResult
from app.ui.panels.results.runs import Run
from app.ui.retranslate import is_language_change

_COLOURS = {"better": "#d8f3dc", "worse": "#fde2e1", "unknown": "#fff4d6"}


def verdict_text(verdict: str) -> str:
    words = {
        "better": QCoreApplication.translate("CompareView", "better"),
        "worse": QCoreApplication.translate("CompareView", "worse"),
        "same": QCoreApplication.translate("CompareView", "no significant change"),
        "unknown": QCoreApplication.translate("CompareView", "unknown"),
    }
    return words[verdict]


def why_text(why: str | None) -> str:
    """The engine's reason, in the UI language when it is one of the known ones."""
    if not why:
        return ""
    known = {
        "no per-request gaps (needs --save-detailed)": QCoreApplication.translate(
            "CompareView", "no per-request gaps (needs --save-detailed)"
        ),
        "no goodput limits recorded (sweep --goodput)": QCoreApplication.translate(
            "CompareView", "no goodput limits recorded (sweep --goodput)"
        ),
        "no per-request samples (vllm bench serve without --save-detailed)": (
            QCoreApplication.translate(
                "CompareView", "no per-request samples (vllm bench serve without --save-detailed)"
            )
        ),
    }
    if why in known:
        return known[why]
    if why.startswith("too few values"):
        numbers = why[why.find("(") + 1 : why.find(")")]
        return QCoreApplication.translate(
            "CompareView", "too few values for this statistic's interval ({0})"
        ).format(numbers)
    return why


class CompareView(QWidget):
    """Two run pickers, a Compare button, the method line and one row per (point, figure)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs: list[Run] = []
        self.comparison: Comparison | None = None
        # A point with its per-request data (the bootstrap needs them): the Results panel's
        # cache reads a file that has only been announced by a sweep's event.
        self.detailed: Callable[[PointResult], PointResult] = lambda point: point
        self.base = QComboBox()
        self.candidate = QComboBox()
        for combo in (self.base, self.candidate):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(18)
        self.base_label = QLabel()
        self.candidate_label = QLabel()
        self.compare_button = QPushButton()
        self.compare_button.clicked.connect(self.run_compare)
        bar = QHBoxLayout()
        bar.addWidget(self.base_label)
        bar.addWidget(self.base, 1)
        bar.addWidget(self.candidate_label)
        bar.addWidget(self.candidate, 1)
        bar.addWidget(self.compare_button)
        self.method = QLabel()
        self.method.setWordWrap(True)
        self.method.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 8)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.method)
        layout.addWidget(self.table, 1)
        self.retranslate()

    def retranslate(self) -> None:
        self.base_label.setText(self.tr("Base"))
        self.candidate_label.setText(self.tr("Candidate"))
        self.compare_button.setText(self.tr("Compare"))
        self.compare_button.setToolTip(
            self.tr(
                "Match the two runs' points (same rate, concurrency and dataset) and test every "
                "figure's change with a 95 % interval"
            )
        )
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Point"),
                self.tr("Figure"),
                self.tr("Verdict"),
                self.tr("Change %"),
                self.tr("Base"),
                self.tr("Candidate"),
                self.tr("Change"),
                self.tr("95 % interval"),
            ]
        )
        self._show()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def set_runs(self, runs: Sequence[Run]) -> None:
        """The runs to pick from; the picks are kept when their runs are still there."""
        keep = (self.base.currentText(), self.candidate.currentText())
        self.runs = list(runs)
        names = [r.name for r in self.runs]
        for combo, kept, fallback in ((self.base, keep[0], 0), (self.candidate, keep[1], 1)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(names)
            if kept in names:
                combo.setCurrentIndex(names.index(kept))
            elif names:
                combo.setCurrentIndex(min(fallback, len(names) - 1))
            combo.blockSignals(False)
        self.compare_button.setEnabled(len(names) >= 2)

    def pick(self, base: str, candidate: str) -> None:
        self.base.setCurrentText(base)
        self.candidate.setCurrentText(candidate)

    def run_compare(self) -> None:
        by_name = {r.name: r for r in self.runs}
        base, cand = by_name.get(self.base.currentText()), by_name.get(self.candidate.currentText())
        if base is None or cand is None:
            return
        self.setCursor(Qt.CursorShape.WaitCursor)
        try:
            detailed = self.detailed
            self.comparison = compare_points(
                [detailed(p) for p in base.points], [detailed(p) for p in cand.points]
            )
        finally:
            self.unsetCursor()
        self._show()

    # ---- showing ------------------------------------------------------------------------
    def _method_line(self, point: PointChange, name: str) -> str:
        level = f"{point.level_each:.2%}"
        if point.method == "bootstrap":
            return self.tr(
                "{0}: bootstrap over per-request samples (time blocks), {1} resamples; each "
                "interval {2}, so the point's intervals hold together at 95 %."
            ).format(name, point.resamples, level)
        if point.method == "repeats":
            return self.tr(
                "{0}: Welch t interval over repeated runs ({1} vs {2}); each interval {3}."
            ).format(name, len(point.base_files), len(point.cand_files), level)
        return self.tr(
            "{0}: no per-request samples on one side: intervals unknown (run with --save-detailed)."
        ).format(name)

    def _method_lines(self, points: Sequence[PointChange]) -> list[str]:
        """One line when every point was tested the same way, else one per point."""
        ways = {(p.method, p.resamples, p.level_each, len(p.base_files)) for p in points}
        if len(ways) == 1 and len(points) > 1:
            return [self._method_line(points[0], self.tr("All {0} points").format(len(points)))]
        return [self._method_line(p, p.name) for p in points]

    def _show(self) -> None:
        comparison = self.comparison
        self.table.setRowCount(0)
        if comparison is None:
            self.method.setText(self.tr("Pick two runs and press Compare."))
            return
        lines = self._method_lines(comparison.points)
        lines += [
            self.tr("Only in base (not compared): {0}").format(name)
            for name, _files in comparison.only_base
        ]
        lines += [
            self.tr("Only in candidate (not compared): {0}").format(name)
            for name, _files in comparison.only_cand
        ]
        if not comparison.points:
            lines.insert(0, self.tr("No matching points (same rate, concurrency and dataset)."))
        lines.append(
            self.tr("Changes under {0} count as no significant change.").format(
                f"{comparison.min_effect:.0%}"
            )
        )
        self.method.setText("\n".join(lines))
        for point in comparison.points:
            for change in point.figures:
                self._add_row(point, change)

    def _add_row(self, point: PointChange, change: FigureChange) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        unit = change.figure.unit
        rel = change.relative
        if change.low is None:
            interval = self.tr("unknown: {0}").format(why_text(change.why_unknown))
        else:
            interval = f"[{change.low:+.2f}, {change.high:+.2f}] {unit}"

        def num(value: float | None) -> str:
            return "–" if value is None else f"{value:.2f}"

        rate, conc, _dataset = point.key
        shown_rate = "inf" if rate == float("inf") else f"{rate:g}"
        short = f"r={shown_rate} c={'–' if conc is None else conc}"
        cells = [
            short,
            f"{change.figure.key} ({unit})",
            verdict_text(change.verdict),
            "–" if rel is None else f"{rel:+.1%}",
            num(change.base),
            num(change.cand),
            "–" if change.delta is None else f"{change.delta:+.2f}",
            interval,
        ]
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if 3 <= col <= 6:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if col == 0:
                item.setToolTip(point.name)
            if col == 2 and change.verdict in _COLOURS:
                item.setBackground(QColor(_COLOURS[change.verdict]))
                item.setForeground(QColor("#1b1b1b"))
            if col == 7 and change.why_unknown:
                item.setToolTip(why_text(change.why_unknown))
            self.table.setItem(row, col, item)
