"""The Results panel: browse result folders, open or overlay runs, export them."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.bench.results import PointResult, ResultFileError, read_points
from app.ui.exports import (
    ROOFLINE_KEYS,
    TABLE_COLUMNS,
    cell_text,
    export_curves,
    metric_tooltips,
    runs_csv,
    runs_json,
    runs_markdown,
    set_chart_tooltips,
    write_text_atomic,
)
from app.ui.live_plots import Series, SweepCurves
from app.ui.worker import default_results_root

_POINT_NAME = re.compile(r"^(?P<label>.+?)_rate[^_]+_conc[^_]+$")
MAX_DEPTH = 2  # the results root, its run folders, and one level below


@dataclass
class Run:
    """A group of points read from one folder that belong together (one label or model)."""

    name: str
    folder: Path
    points: list[PointResult] = field(default_factory=list)

    @property
    def source(self) -> str:
        return ", ".join(sorted({p.source for p in self.points}))

    @property
    def model(self) -> str:
        return ", ".join(sorted({p.model_id or "?" for p in self.points}))

    def series(self) -> Series:
        """Points ordered by concurrency, then rate (file names sort 16 before 8)."""
        ordered = sorted(
            self.points,
            key=lambda p: (
                math.inf if p.max_concurrency is None else p.max_concurrency,
                p.request_rate,
            ),
        )
        return Series(self.name, [summary_of(p) for p in ordered])


def summary_of(point: PointResult) -> dict[str, Any]:
    """A flat summary with vLLM's keys, whatever wrote the file (rate as a float, inf allowed)."""
    summary = {k: v for k, v in point.raw.items() if not isinstance(v, list | dict)}
    summary.update(
        request_rate=point.request_rate,
        max_concurrency=point.max_concurrency,
        completed=point.completed,
        failed=point.failed,
        duration=point.duration_s,
        output_throughput=point.output_throughput,
        request_throughput=point.request_throughput,
        path=str(point.path) if point.path else "",
    )
    for name, stats in point.stats.items():
        for stat, value in stats.items():
            summary[f"{stat}_{name}_ms"] = value
    row = point.summary_row()
    summary.update({key: row[key] for key in ROOFLINE_KEYS})  # the roofline table columns
    return summary


def _group_key(point: PointResult) -> str:
    if point.label:
        return point.label
    stem = point.path.stem if point.path else ""
    match = _POINT_NAME.match(stem)
    if match:
        return match.group("label")
    return point.model_id or stem or "?"


def _json_files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.glob("*.json")
        if p.is_file() and not p.name.startswith(".") and not p.name.endswith(".pytorch.json")
    )


def discover_runs(root: Path) -> tuple[list[Run], list[str]]:
    """Runs under `root` (its own files and sub-folders), and one message per unreadable file."""
    runs: list[Run] = []
    errors: list[str] = []
    folders = [root]
    for depth in range(MAX_DEPTH):
        level = [f for f in folders if len(f.relative_to(root).parts) == depth]
        for folder in level:
            try:
                folders += sorted(d for d in folder.iterdir() if d.is_dir())
            except OSError as exc:
                errors.append(
                    QCoreApplication.translate("ResultsPanel", "{0}: cannot list ({1})").format(
                        folder, exc.strerror
                    )
                )
    for folder in folders:
        groups: dict[str, list[PointResult]] = {}
        for file in _json_files(folder):
            try:
                points = read_points(file)
            except ResultFileError as exc:
                errors.append(str(exc))
                continue
            for point in points:
                groups.setdefault(_group_key(point), []).append(point)
        rel = folder.relative_to(root).as_posix() if folder != root else ""
        for key, points in groups.items():
            # A run folder with one label is named by the folder; else folder/label.
            name = (rel if len(groups) == 1 else f"{rel}/{key}") if rel else key
            runs.append(Run(name=name, folder=folder, points=points))
    return runs, errors


class ResultsPanel(QWidget):
    """Browse a results folder; select one run to open it, several to overlay; export.

    Signals:
        runsShown(list): the names of the runs now shown.
    """

    runsShown = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs: list[Run] = []
        self.errors: list[str] = []
        self.empty_note = ""
        self.shown: list[Run] = []
        self.folder = QLineEdit()
        self.folder.setPlaceholderText(self.tr("A folder with result JSON files"))
        self.folder.returnPressed.connect(self.refresh)
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse)
        reload_button = QPushButton(self.tr("Reload"))
        reload_button.setShortcut("F5")
        reload_button.clicked.connect(self.refresh)
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Results folder")))
        top.addWidget(self.folder, 1)
        top.addWidget(browse)
        top.addWidget(reload_button)

        self.tree = QTreeWidget()
        self.tree.setHeaderLabels([self.tr("Run"), self.tr("Points"), self.tr("Model")])
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setRootIsDecorated(False)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(False)
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.tree.setToolTip(self.tr("Select one run to open it; Ctrl/Shift-select to compare."))
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.export_data_button = QPushButton(self.tr("Export data…"))
        self.export_data_button.setToolTip(self.tr("CSV, JSON or Markdown table (Ctrl+E)"))
        self.export_data_button.clicked.connect(self._export_data_dialog)
        self.export_charts_button = QPushButton(self.tr("Export charts…"))
        self.export_charts_button.setToolTip(self.tr("Each chart as PNG or SVG"))
        self.export_charts_button.clicked.connect(self._export_charts_dialog)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_data_button)
        buttons.addWidget(self.export_charts_button)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.tree, 1)
        left_layout.addWidget(self.message)
        left_layout.addLayout(buttons)

        self.curves = SweepCurves()
        set_chart_tooltips(self.curves)
        self.table = QTableWidget(0, 1 + len(TABLE_COLUMNS))
        tips = metric_tooltips()
        self.table.setHorizontalHeaderItem(0, QTableWidgetItem(self.tr("Run")))
        for col, (key, header, _dec) in enumerate(TABLE_COLUMNS, start=1):
            item = QTableWidgetItem(QCoreApplication.translate("Metrics", header))
            item.setToolTip(tips.get(key, ""))
            self.table.setHorizontalHeaderItem(col, item)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # One column: the run list on top, then the knee curves and the table at full width,
        # so the three curves stay readable in the narrow centre of a 1280-px window.
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(left)
        splitter.addWidget(self.curves)
        splitter.addWidget(self.table)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 3)
        splitter.setStretchFactor(2, 2)
        splitter.setSizes([150, 420, 230])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self._update_buttons()
        # Where the Sweep panel saves by default; an absent folder just means no runs yet.
        self.folder.setText(str(default_results_root()))
        self.refresh()

    # ---- loading ------------------------------------------------------------------------
    def set_folder(self, path: str | Path) -> None:
        self.folder.setText(str(path))
        self.refresh()

    def refresh(self) -> None:
        """Re-read the folder; keep showing the runs that are still there."""
        text = self.folder.text().strip()
        keep = {r.name for r in self.shown}
        self.runs, self.errors = [], []
        self.empty_note = ""
        if text:
            root = Path(text).expanduser()
            if root.is_dir():
                self.runs, self.errors = discover_runs(root)
            elif root == default_results_root():
                self.empty_note = self.tr("No results yet: a sweep saves its runs in {0}.").format(
                    root
                )
            else:
                self.errors = [self.tr("{0} is not a folder.").format(root)]
        self.tree.blockSignals(True)
        self.tree.clear()
        for run in self.runs:
            item = QTreeWidgetItem([run.name, str(len(run.points)), run.model])
            tip = self.tr("{0}\nwritten by {1}").format(run.folder, run.source)
            for column in range(3):
                item.setToolTip(column, tip)
            self.tree.addTopLevelItem(item)
        self.tree.blockSignals(False)
        self._show_messages()
        self.show_runs([r.name for r in self.runs if r.name in keep])
        self._select(self.shown)

    def _show_messages(self) -> None:
        if not self.errors:
            self.message.setText(
                self.tr("{0} run(s) found.").format(len(self.runs))
                if self.runs
                else self.empty_note
            )
            self.message.setStyleSheet("")
            return
        head = self.tr("{0} file(s) could not be read; the others opened:").format(len(self.errors))
        self.message.setText(head + "\n" + "\n".join(f"• {e}" for e in self.errors[:8]))
        self.message.setStyleSheet("color: #c0392b;")

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Choose a results folder"))
        if path:
            self.set_folder(path)

    # ---- showing ------------------------------------------------------------------------
    def show_runs(self, names: Sequence[str]) -> None:
        """Open one run or overlay several (by name, as listed)."""
        wanted = set(names)
        self.shown = [r for r in self.runs if r.name in wanted]
        series = [r.series() for r in self.shown]
        self.curves.set_series(series)
        self.table.setRowCount(0)
        for s in series:
            for point in s.points:
                row = self.table.rowCount()
                self.table.insertRow(row)
                self.table.setItem(row, 0, QTableWidgetItem(s.name))
                for col, (key, _h, dec) in enumerate(TABLE_COLUMNS, start=1):
                    item = QTableWidgetItem(cell_text(point, key, dec))
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                    self.table.setItem(row, col, item)
        self._update_buttons()
        self.runsShown.emit([r.name for r in self.shown])

    def _select(self, runs: Sequence[Run]) -> None:
        names = {r.name for r in runs}
        self.tree.blockSignals(True)
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            item.setSelected(item.text(0) in names)
        self.tree.blockSignals(False)

    def _selection_changed(self) -> None:
        self.show_runs([item.text(0) for item in self.tree.selectedItems()])

    def _update_buttons(self) -> None:
        self.export_data_button.setEnabled(bool(self.shown))
        self.export_charts_button.setEnabled(bool(self.shown))

    # ---- exporting ----------------------------------------------------------------------
    def export_data(self, path: str | Path) -> Path:
        """The shown run(s) as .csv, .json or .md (Markdown table), by extension."""
        target = Path(path)
        series = [r.series() for r in self.shown]
        suffix = target.suffix.lower()
        if suffix == ".csv":
            text = runs_csv(series)
        elif suffix == ".json":
            text = runs_json(series)
        elif suffix in (".md", ".markdown"):
            headers = [
                self.table.horizontalHeaderItem(c).text() for c in range(self.table.columnCount())
            ]
            text = runs_markdown(series, headers)
        else:
            raise ValueError(
                self.tr("Choose a .csv, .json or .md file name (got {0}).").format(target.name)
            )
        return write_text_atomic(target, text)

    def export_charts(self, path: str | Path) -> list[Path]:
        """Each chart as NAME_throughput/_tpot/_ttft with the given .png or .svg extension."""
        return export_curves([r.series() for r in self.shown], path)

    def _export_data_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            self.tr("Export data"),
            "comparison.csv",
            self.tr("CSV (*.csv);;JSON (*.json);;Markdown table (*.md)"),
        )
        if path:
            self._try(lambda: self.export_data(path), path)

    def _export_charts_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export charts"), "charts.png", self.tr("PNG (*.png);;SVG (*.svg)")
        )
        if path:
            self._try(lambda: self.export_charts(path), path)

    def _try(self, action: Any, path: str) -> None:
        try:
            action()
        except (OSError, ValueError) as exc:
            self.message.setText(self.tr("Could not export to {0}: {1}").format(path, exc))
            self.message.setStyleSheet("color: #c0392b;")
        else:
            self.message.setText(self.tr("Exported to {0}.").format(path))
            self.message.setStyleSheet("")
