"""The Sweep panel: set up a rate x concurrency sweep, run it in a worker, watch it live."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.paths import resources_dir
from app.profiles import Target
from app.ui.exports import TABLE_COLUMNS, cell_text, metric_tooltips, set_chart_tooltips
from app.ui.live_plots import LiveCharts, Series, SweepCurves, format_number
from app.ui.worker import (
    SweepSpec,
    SweepWorker,
    default_results_root,
    format_duration,
    parse_concurrencies,
    parse_rates,
)

# One timer, the only place the live charts are drawn. 10 Hz: the worker batches tokens about
# 10 times a second, so a faster timer only repaints the same data; the status line and the
# progress bar (a relayout each) follow every third tick.
REPAINT_MS = 100
STATUS_EVERY = 3
SYNTHETIC_DATASET = "datasets/sharegpt_synthetic.json"


class SweepPanel(QWidget):
    """Sweep set-up, run/cancel, live charts, a table of finished points and the sweep curves.

    Signals:
        pointFinished(dict): a point's summary (vLLM keys plus tpotbench extras; 'path' added).
        runningChanged(bool): a sweep started (True) or ended (False).
        serverMetrics(dict): server_metrics events from the worker, forwarded.
    """

    pointFinished = Signal(dict)
    runningChanged = Signal(bool)
    serverMetrics = Signal(dict)

    def __init__(self, target_provider: Callable[[], Target], parent: QWidget | None = None):
        super().__init__(parent)
        self._target_provider = target_provider
        self.worker = SweepWorker(self)
        self.points: list[dict[str, Any]] = []
        # Extra `tpotbench sweep` flags (e.g. --save-detailed); not in the form.
        self.extra_args: list[str] = []
        self.run_dir: Path | None = None
        self.last_error = ""
        self._plan: list[dict[str, Any]] = []
        self._point_index = -1
        self._progress: dict[str, Any] = {}
        self._point_started = 0.0
        self._point_durations: list[float] = []
        self._curves_dirty = False
        self._ticks = 0
        self._cancelled = False
        self._run_over = True
        self._build_ui()
        self._connect_worker()
        self.repaint_timer = QTimer(self)
        self.repaint_timer.setInterval(REPAINT_MS)
        self.repaint_timer.timeout.connect(self._repaint)
        self.apply_preset("demo")

    # ---- construction -------------------------------------------------------------------
    def _build_ui(self) -> None:
        # The settings sit above the charts in two form columns (one when narrow), so the
        # charts get the panel's whole width and the panel no longer needs a wide window.
        self.settings_box = _Columns()
        form = self.settings_box.left
        more = self.settings_box.right
        self.preset = QComboBox()
        self.preset.addItem(self.tr("Quick demo (about 30 s)"), "demo")
        self.preset.addItem(self.tr("Experiment A (rates)"), "A")
        self.preset.addItem(self.tr("Experiment B (concurrencies)"), "B")
        self.preset.addItem(self.tr("Custom"), "custom")
        self.preset.setItemData(
            1,
            self.tr("The field guide's experiment A: concurrency 32, rate 1, 2, 4, 8, 16, inf."),
            Qt.ItemDataRole.ToolTipRole,
        )
        self.preset.setItemData(
            2,
            self.tr("The field guide's experiment B: rate inf, concurrency 1 … 128."),
            Qt.ItemDataRole.ToolTipRole,
        )
        self.preset.setItemData(
            0,
            self.tr("Rate inf, concurrency 8 … 64, 64 short random prompts per point."),
            Qt.ItemDataRole.ToolTipRole,
        )
        for combo in (self.preset,):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(12)
        self.preset.activated.connect(lambda _i: self.apply_preset(self.preset.currentData()))
        form.addRow(self.tr("Preset"), self.preset)
        self.rates = QLineEdit()
        self.rates.setToolTip(
            metric_tooltips()["request_rate"] + "\n" + self.tr("Comma-separated.")
        )
        form.addRow(self.tr("Request rates"), self.rates)
        self.concurrencies = QLineEdit()
        self.concurrencies.setToolTip(
            metric_tooltips()["max_concurrency"] + "\n" + self.tr("Comma-separated.")
        )
        form.addRow(self.tr("Concurrencies"), self.concurrencies)
        for edit in (self.rates, self.concurrencies):  # hand edits leave the preset
            edit.textEdited.connect(
                lambda _t: self.preset.setCurrentIndex(self.preset.findData("custom"))
            )
        self.dataset = QComboBox()
        self.dataset.addItem(self.tr("Synthetic ShareGPT (shipped)"), "synthetic")
        self.dataset.addItem(self.tr("ShareGPT JSON file"), "sharegpt")
        self.dataset.addItem(self.tr("Random lengths"), "random")
        self.dataset.addItem(self.tr("Prompts file (text lines or JSONL)"), "prompts")
        self.dataset.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.dataset.setMinimumContentsLength(12)
        self.dataset.currentIndexChanged.connect(self._dataset_changed)
        form.addRow(self.tr("Dataset"), self.dataset)
        self.dataset_path = QLineEdit()
        self.dataset_path.setMinimumWidth(90)
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse_dataset)
        self.dataset_row = self._row(self.dataset_path, browse)
        form.addRow(self.tr("Dataset file"), self.dataset_row)
        self.input_len = QSpinBox(minimum=1, maximum=1_000_000, value=256)
        self.output_len = QSpinBox(minimum=1, maximum=1_000_000, value=64)
        self.lengths_row = self._row(
            QLabel(self.tr("in")), self.input_len, QLabel(self.tr("out")), self.output_len
        )
        form.addRow(self.tr("Random tokens"), self.lengths_row)
        self.num_prompts = QSpinBox(minimum=1, maximum=1_000_000, value=64)
        self.num_prompts.setToolTip(self.tr("Requests sent at each sweep point."))
        more.addRow(self.tr("Prompts per point"), self.num_prompts)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=0)
        more.addRow(self.tr("Seed"), self.seed)
        self.ignore_eos = QCheckBox(self.tr("Ignore EOS"))
        self.ignore_eos.setToolTip(self.tr("Always generate the requested output length."))
        more.addRow("", self.ignore_eos)
        self.label = QLineEdit("sweep")
        self.label.setToolTip(self.tr("File names become LABEL_rateR_concC.json."))
        more.addRow(self.tr("Label"), self.label)
        self.results_root = QLineEdit(str(default_results_root()))
        self.results_root.setMinimumWidth(90)
        pick = QPushButton(self.tr("Browse…"))
        pick.clicked.connect(self._browse_results)
        more.addRow(self.tr("Results folder"), self._row(self.results_root, pick))
        self.run_button = QPushButton(self.tr("Run sweep"))
        self.run_button.setToolTip(self.tr("Run the sweep (Ctrl+R)"))
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setToolTip(
            self.tr("Stop after in-flight requests; keeps finished points (Esc)")
        )
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.settings_toggle = QToolButton()
        self.settings_toggle.setText(self.tr("Settings"))
        self.settings_toggle.setToolTip(self.tr("Show or hide the sweep settings"))
        self.settings_toggle.setCheckable(True)
        self.settings_toggle.setChecked(True)
        self.settings_toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.settings_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.settings_toggle.toggled.connect(self._show_settings)
        actions = QHBoxLayout()
        actions.setContentsMargins(0, 0, 0, 0)
        actions.addWidget(self.run_button)
        actions.addWidget(self.cancel_button)
        actions.addWidget(self.progress_bar, 1)
        actions.addWidget(self.settings_toggle)
        self.status = _WrappedLabel(self.tr("Ready."))
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.live = LiveCharts()
        self.curves = SweepCurves()
        set_chart_tooltips(self.curves, self.live)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.live, self.tr("Live"))
        self.tabs.addTab(self.curves, self.tr("Sweep curves"))
        self.table = QTableWidget(0, len(TABLE_COLUMNS))
        tips = metric_tooltips()
        for col, (key, header, _dec) in enumerate(TABLE_COLUMNS):
            item = QTableWidgetItem(QCoreApplication.translate("Metrics", header))
            item.setToolTip(tips.get(key, ""))
            self.table.setHorizontalHeaderItem(col, item)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setVisible(False)
        # Compact rows: a whole Experiment B (7 points) stays readable without scrolling.
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        charts = QSplitter(Qt.Orientation.Vertical)
        charts.addWidget(self.tabs)
        charts.addWidget(self.table)
        charts.setStretchFactor(0, 3)
        charts.setStretchFactor(1, 1)
        charts.setSizes([600, 190])
        charts.setChildrenCollapsible(False)
        self.tabs.setMinimumHeight(300)
        self.table.setMinimumHeight(110)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.settings_box)
        layout.addLayout(actions)
        layout.addWidget(self.status)
        layout.addWidget(charts, 1)
        self._dataset_changed()

    def _show_settings(self, shown: bool) -> None:
        self.settings_box.setVisible(shown)
        self.settings_toggle.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )

    @staticmethod
    def _row(*widgets: QWidget) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        for w in widgets:
            row.addWidget(w)
        return box

    def _connect_worker(self) -> None:
        w = self.worker
        w.runStarted.connect(self._on_run_started)
        w.pointStarted.connect(self._on_point_started)
        w.tokens.connect(lambda e: self.live.add_tokens(e["t_s"], e["itl_ms"]))
        w.request.connect(
            lambda e: self.live.add_request(e.get("tpot_ms")) if e.get("ok") else None
        )
        w.progress.connect(self._on_progress)
        w.pointFinished.connect(self._on_point_finished)
        w.serverMetrics.connect(self.serverMetrics)
        w.runFinished.connect(self._on_run_finished)
        w.errorMessage.connect(self._on_error)
        w.stopped.connect(self._on_stopped)

    # ---- form ---------------------------------------------------------------------------
    def apply_preset(self, key: str) -> None:
        """Fill the form from a preset: the demo, the field guide's experiments A and B."""
        index = self.preset.findData(key)
        if index >= 0:
            self.preset.setCurrentIndex(index)
        if key == "demo":
            self.rates.setText("inf")
            self.concurrencies.setText("8, 16, 32, 64")
            self.dataset.setCurrentIndex(self.dataset.findData("random"))
            self.input_len.setValue(128)
            self.output_len.setValue(32)
            self.num_prompts.setValue(64)
            self.label.setText("demo")
        elif key == "A":
            self.rates.setText("1, 2, 4, 8, 16, inf")
            self.concurrencies.setText("32")
            self.dataset.setCurrentIndex(self.dataset.findData("synthetic"))
            self.num_prompts.setValue(200)
            self.label.setText("expA")
        elif key == "B":
            self.rates.setText("inf")
            self.concurrencies.setText("1, 4, 8, 16, 32, 64, 128")
            self.dataset.setCurrentIndex(self.dataset.findData("synthetic"))
            self.num_prompts.setValue(200)
            self.label.setText("expB")

    def _dataset_changed(self) -> None:
        kind = self.dataset.currentData()
        self.dataset_row.setEnabled(kind in ("sharegpt", "prompts"))
        self.lengths_row.setEnabled(kind == "random")

    def _browse_dataset(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Choose a dataset file"))
        if path:
            self.dataset_path.setText(path)

    def _browse_results(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Choose the results folder"))
        if path:
            self.results_root.setText(path)

    def build_spec(self) -> SweepSpec:
        """The form as a SweepSpec (result_dir not yet set); ValueError with a readable message."""
        rates = parse_rates(self.rates.text())
        concs = parse_concurrencies(self.concurrencies.text())
        kind = self.dataset.currentData()
        path = self.dataset_path.text().strip()
        if kind in ("sharegpt", "prompts"):
            if not path:
                raise ValueError(self.tr("Choose a dataset file, or pick another dataset."))
            if not Path(path).is_file():
                raise ValueError(self.tr("The dataset file {0} does not exist.").format(path))
        if kind == "synthetic":
            kind, path = "sharegpt", str(resources_dir() / SYNTHETIC_DATASET)
        label = re.sub(r"[^A-Za-z0-9._-]+", "-", self.label.text().strip()).strip("-") or "sweep"
        if not self.results_root.text().strip():
            raise ValueError(self.tr("Choose a results folder."))
        return SweepSpec(
            request_rates=rates,
            max_concurrencies=concs,
            dataset=kind,
            dataset_path=path,
            random_input_len=self.input_len.value(),
            random_output_len=self.output_len.value(),
            num_prompts=self.num_prompts.value(),
            seed=self.seed.value(),
            ignore_eos=self.ignore_eos.isChecked(),
            label=label,
            extra_args=list(self.extra_args),
        )

    # ---- run / cancel -------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.worker.is_running()

    def run(self, *, argv: list[str] | None = None) -> bool:
        """Start the sweep from the form; False (and a message in the panel) if it cannot."""
        if self.is_running():
            return False
        try:
            spec = self.build_spec()
            target = self._target_provider()
            if not target.base_url:
                raise ValueError(self.tr("The selected endpoint has no base URL yet."))
            stamp = datetime.now().astimezone().strftime("%Y%m%d-%H%M%S")
            run_dir = Path(self.results_root.text().strip()).expanduser() / f"{spec.label}-{stamp}"
            run_dir.mkdir(parents=True, exist_ok=True)
        except (ValueError, OSError) as exc:
            self._set_status(str(exc), error=True)
            return False
        spec.result_dir = str(run_dir)
        self.run_dir = run_dir
        self.points.clear()
        self.table.setRowCount(0)
        self.live.clear()
        self.curves.set_series([])
        self.last_error = ""
        self._cancelled = False
        self._point_durations.clear()
        self._plan = [
            {"request_rate": r, "max_concurrency": c}
            for r in spec.request_rates
            for c in spec.max_concurrencies
        ]
        self._point_index = -1
        self._progress = {}
        self._run_over = False
        self._set_status(self.tr("Starting the benchmark worker…"))
        self.worker.start(spec, target, argv=argv)
        self._set_running(True)
        return True

    def cancel(self) -> None:
        if self.is_running():
            self._cancelled = True
            self.worker.cancel()
            self._set_status(self.tr("Cancelling: waiting for in-flight requests…"))

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if running:
            self.repaint_timer.start()
        else:
            self.repaint_timer.stop()
            self._repaint(full=True)
        self.runningChanged.emit(running)

    def _set_status(self, text: str, *, error: bool = False) -> None:
        if text == self.status.text() and error == bool(self.status.styleSheet()):
            return  # an unchanged label would still relayout the panel
        self.status.setText(text)
        self.status.setStyleSheet("color: #c0392b;" if error else "")

    # ---- worker events (data only; painting happens in _repaint) -------------------------
    def _on_run_started(self, event: dict[str, Any]) -> None:
        points = event.get("points")
        if isinstance(points, list) and points:
            self._plan = [p for p in points if isinstance(p, dict)]

    def _on_point_started(self, event: dict[str, Any]) -> None:
        self._point_index = int(event.get("point", self._point_index + 1))
        self._point_started = time.monotonic()
        self._progress = {}
        rate = "r=" + format_number(_as_rate(event.get("request_rate")))
        conc = event.get("max_concurrency")
        conc_text = f"c={conc if conc is not None else '∞'}"
        # Label only what varies across the sweep: short labels overlap less on short points.
        rates = {str(p.get("request_rate")) for p in self._plan}
        concs = {str(p.get("max_concurrency")) for p in self._plan}
        if len(rates) == 1 and len(concs) > 1:
            label = conc_text
        elif len(concs) == 1 and len(rates) > 1:
            label = rate
        else:
            label = f"{rate} {conc_text}"
        self.live.start_point(label)

    def _on_progress(self, event: dict[str, Any]) -> None:
        self._progress = event
        self.live.add_progress(
            float(event.get("elapsed_s") or 0.0),
            float(event.get("output_tok_s") or 0.0),
            float(event.get("in_flight") or 0.0),
        )

    def _on_point_finished(self, event: dict[str, Any]) -> None:
        summary = dict(event.get("summary") or {})
        if event.get("path"):
            summary["path"] = str(event["path"])
        summary.setdefault("point", event.get("point"))
        self.points.append(summary)
        self._point_durations.append(time.monotonic() - self._point_started)
        self._add_table_row(summary)
        self._curves_dirty = True
        self.pointFinished.emit(summary)

    def _on_run_finished(self, event: dict[str, Any]) -> None:
        self._run_over = True
        self.progress_bar.setValue(self.progress_bar.maximum())
        done = len(self.points)
        where = str(self.run_dir) if self.run_dir else ""
        if event.get("cancelled") or self._cancelled:
            text = self.tr("Cancelled: {0} finished point(s) kept in {1}.").format(done, where)
        else:
            text = self.tr("Done: {0} point(s) saved in {1}.").format(done, where)
        self._set_status(text)

    def _on_error(self, message: str) -> None:
        self._run_over = True
        self.last_error = message
        self._set_status(message, error=True)

    def _on_stopped(self) -> None:
        self._set_running(False)

    def _add_table_row(self, summary: dict[str, Any]) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        for col, (key, _header, decimals) in enumerate(TABLE_COLUMNS):
            item = QTableWidgetItem(cell_text(summary, key, decimals))
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, col, item)
        self.table.scrollToBottom()

    # ---- the one repaint path -------------------------------------------------------------
    def _repaint(self, *, full: bool = False) -> None:
        self.live.refresh(full=full)
        if self._curves_dirty:
            self._curves_dirty = False
            self.curves.set_series([Series(self.tr("this run"), self.points)])
        self._ticks += 1
        if self.is_running() and not self._run_over and (full or self._ticks % STATUS_EVERY == 0):
            self._update_progress()

    def _update_progress(self) -> None:
        total_points = max(1, len(self._plan))
        index = max(0, self._point_index)
        p = self._progress
        total = int(p.get("total") or 0)
        done = int(p.get("completed") or 0) + int(p.get("failed") or 0)
        fraction = (done / total) if total else 0.0
        overall = len(self.points) + (fraction if self._point_index >= len(self.points) else 0)
        self.progress_bar.setValue(int(1000 * min(1.0, overall / total_points)))
        if self._point_index < 0:
            return
        elapsed = float(p.get("elapsed_s") or 0.0)
        left_now = elapsed / fraction * (1 - fraction) if fraction > 0 else math.nan
        per_point = (
            sum(self._point_durations) / len(self._point_durations)
            if self._point_durations
            else (elapsed / fraction if fraction > 0 else math.nan)
        )
        remaining_points = max(0, total_points - index - 1)
        left = left_now + remaining_points * per_point
        text = self.tr("Point {0} of {1} · requests {2}/{3}").format(
            index + 1, total_points, done, total or "?"
        )
        if int(p.get("failed") or 0):
            text += " " + self.tr("({0} failed)").format(int(p["failed"]))
        if math.isfinite(left):
            text += " · " + self.tr("about {0} left").format(format_duration(left))
        self._set_status(text)

    def closeEvent(self, event: Any) -> None:
        self.cancel()
        super().closeEvent(event)


class _WrappedLabel(QLabel):
    """A word-wrapping label that grows its minimum height instead of using height-for-width.

    In the window's scroll area a height-for-width layout is given its preferred height, which
    made the charts taller than the tab and scrolled the table out of sight.
    """

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)

    def hasHeightForWidth(self) -> bool:
        return False  # QLabel turns it back on with every setText

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), self.heightForWidth(self.width())) if self.width() > 1 else hint

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        self.setMinimumHeight(self.heightForWidth(max(self.width(), 1)))


class _Columns(QWidget):
    """Two form columns side by side, stacked into one when the panel is too narrow."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.left = _form()
        self.right = _form()
        self._box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSpacing(10)
        self._box.addLayout(self.left, 1)
        self._box.addLayout(self.right, 1)

    def two_column_width(self) -> int:
        spacing = self._box.spacing()
        return self.left.minimumSize().width() + self.right.minimumSize().width() + spacing

    def minimumSizeHint(self) -> QSize:
        # The one-column width: the panel may get that narrow; resizeEvent then stacks.
        hint = super().minimumSizeHint()
        one = max(self.left.minimumSize().width(), self.right.minimumSize().width())
        return QSize(one, hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        wanted = (
            QBoxLayout.Direction.LeftToRight
            if event.size().width() >= self.two_column_width()
            else QBoxLayout.Direction.TopToBottom
        )
        if self._box.direction() != wanted:
            self._box.setDirection(wanted)
        super().resizeEvent(event)


def _form() -> QFormLayout:
    form = QFormLayout()
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    return form


def _as_rate(value: Any) -> float:
    if value in (None, "inf", "Infinity"):
        return math.inf
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.inf
