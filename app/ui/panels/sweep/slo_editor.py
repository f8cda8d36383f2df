"""The SLO editor: limits on TTFT, TPOT, ITL and E2EL at a percentile or the mean.

A compact summary with an "Edit…" button sits in the sweep settings; the dialog holds one row
per metric (on/off, statistic, limit in ms). The SLOs go to the worker as `--slo METRIC:STAT:MS`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

METRICS = ("ttft", "tpot", "itl", "e2el")
STATS = ("p99", "p95", "p90", "median", "mean")
# The field guide's goals: first token within 2 s, decode at 20 tokens/s or better (p99).
DEFAULTS: dict[str, tuple[str, float]] = {
    "ttft": ("p99", 2000.0),
    "tpot": ("p99", 50.0),
    "itl": ("p99", 100.0),
    "e2el": ("p99", 30000.0),
}


def _names() -> dict[str, str]:
    return {
        "ttft": QCoreApplication.translate("SloEditor", "TTFT"),
        "tpot": QCoreApplication.translate("SloEditor", "TPOT"),
        "itl": QCoreApplication.translate("SloEditor", "ITL"),
        "e2el": QCoreApplication.translate("SloEditor", "E2EL"),
    }


def _stat_name(stat: str) -> str:
    if stat == "mean":
        return QCoreApplication.translate("SloEditor", "mean")
    if stat == "median":
        return QCoreApplication.translate("SloEditor", "median")
    return stat.upper()


def describe(slos: Sequence[str]) -> str:
    """'tpot:p99:50' ... -> 'TPOT P99 ≤ 50 ms, …' for the summary line."""
    if not slos:
        return QCoreApplication.translate("SloEditor", "none")
    parts = []
    for item in slos:
        metric, stat, limit = item.split(":")
        parts.append(f"{_names().get(metric, metric)} {_stat_name(stat)} ≤ {float(limit):g} ms")
    return ", ".join(parts)


class SloDialog(QDialog):
    """One row per metric: on/off, statistic and limit."""

    def __init__(self, slos: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Service-level objectives"))
        layout = QVBoxLayout(self)
        intro = QLabel(
            self.tr(
                "Each point passes an SLO when its statistic is at or below the limit. A "
                "capacity search finds the highest load that meets every SLO."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        grid = QGridLayout()
        current = {s.split(":")[0]: s.split(":") for s in slos}
        self.rows: dict[str, tuple[QCheckBox, QComboBox, QDoubleSpinBox]] = {}
        for row, metric in enumerate(METRICS):
            stat, limit = DEFAULTS[metric]
            if metric in current:
                stat, limit = current[metric][1], float(current[metric][2])
            check = QCheckBox(_names()[metric])
            check.setChecked(metric in current)
            combo = QComboBox()
            for s in STATS:
                combo.addItem(_stat_name(s), s)
            combo.setCurrentIndex(max(0, combo.findData(stat)))
            spin = QDoubleSpinBox(minimum=0.1, maximum=10_000_000.0, decimals=1)
            spin.setValue(limit)
            spin.setSuffix(" ms")
            grid.addWidget(check, row, 0)
            grid.addWidget(combo, row, 1)
            grid.addWidget(QLabel("≤"), row, 2)
            grid.addWidget(spin, row, 3)
            self.rows[metric] = (check, combo, spin)
        layout.addLayout(grid)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def slos(self) -> list[str]:
        out = []
        for metric, (check, combo, spin) in self.rows.items():
            if check.isChecked():
                out.append(f"{metric}:{combo.currentData()}:{spin.value():g}")
        return out


class SloSummary(QWidget):
    """The settings row: what the SLOs are, and a button that opens the editor."""

    changed = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._slos: list[str] = []
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.edit_button = QPushButton(self.tr("Edit…"))
        self.edit_button.setToolTip(self.tr("Set the latency goals each point is judged against"))
        self.edit_button.clicked.connect(self.edit)
        row.addWidget(self.label, 1)
        row.addWidget(self.edit_button)
        self._show()

    def slos(self) -> list[str]:
        return list(self._slos)

    def set_slos(self, slos: Sequence[str]) -> None:
        self._slos = list(slos)
        self._show()
        self.changed.emit(self.slos())

    def edit(self) -> None:
        dialog = SloDialog(self._slos, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.set_slos(dialog.slos())

    def _show(self) -> None:
        self.label.setText(describe(self._slos))
