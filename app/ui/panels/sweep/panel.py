"""The Sweep panel: set up a rate x concurrency sweep, run it in a worker, watch it live."""

from __future__ import annotations

import gc
import json
import math
import re
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
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

from app.bench.results.request_samples import RequestSamples, request_samples
from app.paths import resources_dir
from app.profiles import Target
from app.ui.exports.tables import TABLE_COLUMNS, cell_text, metric_tooltips, set_chart_tooltips
from app.ui.panels.sweep.advanced import AdvancedSettings
from app.ui.panels.sweep.layout import FormColumns, WrappedLabel
from app.ui.panels.sweep.point_notes import no_success_message
from app.ui.panels.sweep.slo_editor import DEFAULTS as SLO_DEFAULTS
from app.ui.panels.sweep.slo_editor import SloSummary
from app.ui.plots.capacity import (
    FAIL_BG,
    PASS_BG,
    Marks,
    capacity_text,
    draw_marks,
    load_text,
    slo_cell_colours,
    sweep_knees,
)
from app.ui.plots.distributions import DistributionsView
from app.ui.plots.live import LiveCharts, Series, SweepCurves, format_number, sweep_axis
from app.ui.retranslate import Message, TextSource, is_language_change
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
        pointStarted(str): a point started; its short label ("c=8", "r=4", "r=4 c=8").
        runningChanged(bool): a sweep started (True) or ended (False).
        serverMetrics(dict): server_metrics events from the worker, forwarded.
    """

    pointFinished = Signal(dict)
    pointStarted = Signal(str)
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
        self.search_doc: dict[str, Any] | None = None  # the last capacity search's summary
        self._marks = Marks()
        self._search_running = False
        # What the capacity line says, re-rendered on a language change.
        self._capacity_source: Callable[[], tuple[str, str]] | None = None
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
        self.settings_box = FormColumns()
        form = self.settings_box.left
        more = self.settings_box.right
        self.labels: dict[str, QLabel] = {}

        def row(layout: QFormLayout, key: str, field: QWidget) -> None:
            self.labels[key] = QLabel()
            layout.addRow(self.labels[key], field)

        self.preset = QComboBox()
        for key in ("demo", "A", "B", "capacity", "custom"):
            self.preset.addItem("", key)
        for combo in (self.preset,):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(12)
        self.preset.activated.connect(lambda _i: self.apply_preset(self.preset.currentData()))
        row(form, "preset", self.preset)
        self.rates = QLineEdit()
        row(form, "rates", self.rates)
        self.concurrencies = QLineEdit()
        row(form, "concurrencies", self.concurrencies)
        for edit in (self.rates, self.concurrencies):  # hand edits leave a grid preset
            edit.textEdited.connect(self._hand_edit)
        self.dataset = QComboBox()
        for key in ("synthetic", "conversations", "sharegpt", "random", "prompts"):
            self.dataset.addItem("", key)
        self.dataset.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.dataset.setMinimumContentsLength(12)
        self.dataset.currentIndexChanged.connect(self._dataset_changed)
        row(form, "dataset", self.dataset)
        self.dataset_path = QLineEdit()
        self.dataset_path.setMinimumWidth(90)
        self.browse_dataset_button = QPushButton()
        self.browse_dataset_button.clicked.connect(self._browse_dataset)
        self.dataset_row = self._row(self.dataset_path, self.browse_dataset_button)
        row(form, "dataset_file", self.dataset_row)
        self.input_len = QSpinBox(minimum=1, maximum=1_000_000, value=256)
        self.output_len = QSpinBox(minimum=1, maximum=1_000_000, value=64)
        self.in_label, self.out_label = QLabel(), QLabel()
        self.lengths_row = self._row(self.in_label, self.input_len, self.out_label, self.output_len)
        row(form, "random", self.lengths_row)
        self.num_prompts = QSpinBox(minimum=1, maximum=1_000_000, value=64)
        row(more, "prompts", self.num_prompts)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=0)
        row(more, "seed", self.seed)
        self.ignore_eos = QCheckBox()
        more.addRow("", self.ignore_eos)
        self.label = QLineEdit("sweep")
        row(more, "label", self.label)
        self.results_root = QLineEdit(str(default_results_root()))
        self.results_root.setMinimumWidth(90)
        self.browse_results_button = QPushButton()
        self.browse_results_button.clicked.connect(self._browse_results)
        row(more, "results", self._row(self.results_root, self.browse_results_button))
        self.advanced_toggle = QToolButton()
        self.advanced_toggle.setObjectName("advancedToggle")
        self.advanced_toggle.setCheckable(True)
        self.advanced_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.advanced_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.advanced_toggle.setAutoRaise(True)
        self.advanced = AdvancedSettings()
        self.advanced.setVisible(False)
        # The latency goals each point is judged against (and a capacity search aims at).
        self.slo_summary = SloSummary()
        self.slo_label = QLabel()
        self.advanced.form.addRow(self.slo_label, self.slo_summary)
        self.advanced_toggle.toggled.connect(self._show_advanced)
        more.addRow(self.advanced_toggle)
        more.addRow(self.advanced)
        self.run_button = QPushButton()
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton()
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.settings_toggle = QToolButton()
        self.settings_toggle.setObjectName("settingsToggle")
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
        self.status = WrappedLabel("")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # The capacity search's answer: boundary, failing SLO, the why (knees in the tooltip).
        self.capacity = WrappedLabel("")
        self.capacity.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.capacity.setVisible(False)
        self.message = Message(self._show_status)

        self.live = LiveCharts()
        self.curves = SweepCurves()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.live, "")
        self.tabs.addTab(self.curves, "")
        self.distributions = DistributionsView()
        self.tabs.addTab(self.distributions, "")
        self.table = QTableWidget(0, len(TABLE_COLUMNS))
        for col in range(len(TABLE_COLUMNS)):
            self.table.setHorizontalHeaderItem(col, QTableWidgetItem())
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setVisible(False)
        # Click a point: its distributions; Ctrl/Shift-click more points: overlaid.
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.itemSelectionChanged.connect(self._show_distributions)
        self.table.cellClicked.connect(
            lambda _r, _c: self.tabs.setCurrentWidget(self.distributions)
        )
        self._samples: dict[str, RequestSamples] = {}
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
        layout.addWidget(self.capacity)
        layout.addWidget(charts, 1)
        self._dataset_changed()
        self.retranslate()

    def retranslate(self) -> None:
        """Every fixed string and the status line in the UI language; the form keeps its values."""
        texts = {
            "preset": self.tr("Preset"),
            "rates": self.tr("Request rates"),
            "concurrencies": self.tr("Concurrencies"),
            "dataset": self.tr("Dataset"),
            "dataset_file": self.tr("Dataset file"),
            "random": self.tr("Random tokens"),
            "seed": self.tr("Seed"),
            "label": self.tr("Label"),
            "results": self.tr("Results folder"),
        }
        for key, text in texts.items():
            self.labels[key].setText(text)
        presets = (
            ("demo", self.tr("Quick demo (about 30 s)"), self.tr(
                "Rate inf, concurrency 8 … 64, 64 short random prompts per point.")),
            ("A", self.tr("Experiment A (rates)"), self.tr(
                "The field guide's experiment A: concurrency 32, rate 1, 2, 4, 8, 16, inf.")),
            ("B", self.tr("Experiment B (concurrencies)"), self.tr(
                "The field guide's experiment B: rate inf, concurrency 1 … 128.")),
            ("capacity", self.tr("Find capacity (SLO search)"), self.tr(
                "Rate inf: the highest concurrency that meets every SLO, found by doubling then "
                "bisecting (tpotbench search). Concurrencies: the first and the highest tried.")),
            ("custom", self.tr("Custom"), ""),
        )  # fmt: skip
        for key, text, tip in presets:
            index = self.preset.findData(key)
            self.preset.setItemText(index, text)
            self.preset.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        datasets = (
            ("synthetic", self.tr("Synthetic ShareGPT (shipped)")),
            ("conversations", self.tr("Conversations, multi-turn (shipped)")),
            ("sharegpt", self.tr("ShareGPT JSON file")),
            ("random", self.tr("Random lengths")),
            ("prompts", self.tr("Prompts file (text lines or JSONL)")),
        )
        for key, text in datasets:
            self.dataset.setItemText(self.dataset.findData(key), text)
        tips = metric_tooltips()
        self.rates.setToolTip(tips["request_rate"] + "\n" + self.tr("Comma-separated."))
        self.concurrencies.setToolTip(tips["max_concurrency"] + "\n" + self.tr("Comma-separated."))
        self.browse_dataset_button.setText(self.tr("Browse…"))
        self.browse_results_button.setText(self.tr("Browse…"))
        self.in_label.setText(self.tr("in"))
        self.out_label.setText(self.tr("out"))
        self._count_label()
        self.ignore_eos.setText(self.tr("Ignore EOS"))
        self.ignore_eos.setToolTip(self.tr("Always generate the requested output length."))
        self.label.setToolTip(self.tr("File names become LABEL_rateR_concC.json."))
        self.slo_label.setText(self.tr("SLOs"))
        self.slo_summary.setToolTip(
            self.tr("Latency goals: each point shows pass/fail per SLO and its goodput.")
        )
        if self._capacity_source is not None:
            self._show_capacity()
        self.advanced_toggle.setText(self.tr("Advanced settings"))
        self.advanced_toggle.setToolTip(
            self.tr("Burstiness, warm-up requests, temperature, load workers, request time-out")
        )
        self.run_button.setText(self.tr("Run sweep"))
        self.run_button.setToolTip(self.tr("Run the sweep (Ctrl+R)"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setToolTip(
            self.tr("Stop after in-flight requests; keeps finished points (Esc)")
        )
        self._name_settings_toggle()
        self.tabs.setTabText(0, self.tr("Live"))
        self.tabs.setTabText(1, self.tr("Sweep curves"))
        self.tabs.setTabText(2, self.tr("Distributions"))
        for col, (key, header, _dec) in enumerate(TABLE_COLUMNS):
            item = self.table.horizontalHeaderItem(col)
            item.setText(QCoreApplication.translate("Metrics", header))
            item.setToolTip(tips.get(key, ""))
        set_chart_tooltips(self.curves, self.live)
        if self.message.text():
            self.message.refresh()
        else:
            self._set_status(lambda: self.tr("Ready."))
        self._curves_dirty = True  # the curves' legend names ("this run") are words too

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def _show_settings(self, shown: bool) -> None:
        self.settings_box.setVisible(shown)
        self._name_settings_toggle()

    def _name_settings_toggle(self) -> None:
        shown = self.settings_toggle.isChecked()
        # Named for what a click does: the form can be folded away to give the charts room.
        self.settings_toggle.setText(
            self.tr("Hide sweep settings") if shown else self.tr("Show sweep settings")
        )
        self.settings_toggle.setToolTip(
            self.tr("Fold the sweep settings away so the charts get the room")
            if shown
            else self.tr("Show the sweep settings form")
        )
        self.settings_toggle.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )

    def _show_advanced(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        self.advanced_toggle.setArrowType(
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
        w.searchValue.connect(self._on_search_value)
        w.searchFinished.connect(self._on_search_finished)
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
        elif key == "capacity":
            self.rates.setText("inf")
            self.concurrencies.setText("1, 256")
            self.dataset.setCurrentIndex(self.dataset.findData("synthetic"))
            self.num_prompts.setValue(200)
            self.label.setText("capacity")
            if not self.slo_summary.slos():  # a search needs goals: the field guide's
                self.slo_summary.set_slos(
                    [f"{m}:{SLO_DEFAULTS[m][0]}:{SLO_DEFAULTS[m][1]:g}" for m in ("ttft", "tpot")]
                )
            self.advanced_toggle.setChecked(True)  # where the SLOs are edited

    def _hand_edit(self, _text: str) -> None:
        if self.preset.currentData() != "capacity":  # the search keeps its first/highest pair
            self.preset.setCurrentIndex(self.preset.findData("custom"))

    def _dataset_changed(self) -> None:
        kind = self.dataset.currentData()
        self.dataset_row.setEnabled(kind in ("sharegpt", "prompts"))
        self.lengths_row.setEnabled(kind == "random")
        self._count_label()

    def _count_label(self) -> None:
        """Prompts per point, or sessions per point for conversations (each sends every turn
        of one conversation with its history)."""
        if self.dataset.currentData() == "conversations":
            self.labels["prompts"].setText(self.tr("Sessions per point"))
            self.num_prompts.setToolTip(
                self.tr(
                    "Conversations run at each sweep point: each sends all its turns, every one "
                    "with the history so far. The request rate is the rate sessions start at."
                )
            )
        else:
            self.labels["prompts"].setText(self.tr("Prompts per point"))
            self.num_prompts.setToolTip(self.tr("Requests sent at each sweep point."))

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
        search = None
        if self.preset.currentData() == "capacity":
            if len(concs) != 2 or concs[0] > concs[1] or len(rates) != 1:
                raise ValueError(
                    self.tr(
                        "Find capacity: give one request rate and two concurrencies, the first "
                        "and the highest to try (e.g. 1, 256)."
                    )
                )
            if not self.slo_summary.slos():
                raise ValueError(self.tr("Find capacity: set at least one SLO."))
            if kind == "conversations":
                raise ValueError(
                    self.tr("Find capacity sends single prompts: choose another dataset.")
                )
            search = {"start": float(concs[0]), "max": float(concs[1])}
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
            extra_args=[*self.advanced.argv(), *self.extra_args],
            slos=self.slo_summary.slos(),
            search=search,
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
        # The charts get the room while it runs; the toggle brings the form back.
        self.settings_toggle.setChecked(False)
        spec.result_dir = str(run_dir)
        self.run_dir = run_dir
        self.points.clear()
        self._samples.clear()
        self.table.setRowCount(0)
        self.distributions.set_series([])
        self.live.clear()
        self.curves.set_series([])
        self.search_doc = None
        self._search_running = spec.search is not None
        self._marks = Marks(slos=list(spec.slos))
        self._capacity_source = None
        self.capacity.setVisible(False)
        self.last_error = ""
        self._cancelled = False
        self._point_durations.clear()
        self._plan = (
            []
            if spec.search is not None  # the loads are chosen as the search goes
            else [
                {"request_rate": r, "max_concurrency": c}
                for r in spec.request_rates
                for c in spec.max_concurrencies
            ]
        )
        self._point_index = -1
        self._progress = {}
        self._run_over = False
        self.progress_bar.setValue(0)
        self._set_status(lambda: self.tr("Starting the benchmark worker…"))
        self.worker.start(spec, target, argv=argv)
        self._set_running(True)
        return True

    def cancel(self) -> None:
        if self.is_running() and not self._cancelled:
            self._cancelled = True
            self.worker.cancel()
            self._show_draining()

    def _show_draining(self) -> None:
        """While a cancel drains: how many requests are still out, never a time left."""
        in_flight = int(self._progress.get("in_flight") or 0)
        if in_flight:
            self._set_status(
                lambda: self.tr(
                    "Cancelling: no new requests; waiting for {0} in-flight request(s) to finish…"
                ).format(in_flight)
            )
        else:
            self._set_status(lambda: self.tr("Cancelling: waiting for in-flight requests…"))

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if running:
            # What the window built so far outlives the run: kept out of the collector's full
            # passes, which walked all of it (~0.1 s of the GUI thread) in the middle of a run.
            gc.freeze()
            self.repaint_timer.start()
        else:
            self.repaint_timer.stop()
            gc.unfreeze()
            self._repaint(full=True)
        self.runningChanged.emit(running)

    def _set_status(self, text: TextSource, *, error: bool = False) -> None:
        self.message.set(text, error)

    def _show_status(self, text: str, error: bool) -> None:
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
        if self._search_running or (len(rates) == 1 and len(concs) > 1):
            label = conc_text
        elif len(concs) == 1 and len(rates) > 1:
            label = rate
        else:
            label = f"{rate} {conc_text}"
        self.live.start_point(label)
        self.pointStarted.emit(label)

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
        where = str(self.run_dir) if self.run_dir else ""
        if event.get("cancelled") or self._cancelled:
            # The bar stays where the run stopped: a cancelled sweep is not 100 % done.
            self._update_progress()
            full = sum(1 for p in self.points if not is_partial(p))
            partial = [p for p in self.points if is_partial(p)]

            def cancelled() -> str:
                text = self.tr("Cancelled: {0} complete point(s) kept in {1}.").format(full, where)
                for p in partial:
                    text += " " + self.tr(
                        "One partial point ({0} of {1} requests finished) saved as {2}."
                    ).format(
                        int(p.get("completed") or 0),
                        int(p.get("num_prompts") or 0) or "?",
                        Path(str(p.get("path") or "")).name,
                    )
                return text

            self._set_status(cancelled)
        elif self._search_running:
            self.progress_bar.setValue(self.progress_bar.maximum())
            done = len(self.points)
            self._set_status(
                lambda: self.tr("Search done: {0} point(s) saved in {1}.").format(done, where)
            )
        else:
            self.progress_bar.setValue(self.progress_bar.maximum())
            done = len(self.points)
            points = list(self.points)
            self._set_status(
                lambda: " ".join(
                    (
                        self.tr("Done: {0} point(s) saved in {1}.").format(done, where),
                        no_success_message(points),  # "" when every point had a success
                    )
                ).strip(),
                error=any(not p.get("completed") for p in points),
            )

    def _on_error(self, message: str) -> None:
        self._run_over = True
        self.last_error = message
        self._set_status(message, error=True)

    def _on_stopped(self) -> None:
        self._set_running(False)

    def current_concurrency(self) -> int | None:
        """The running point's concurrency limit (None: unlimited, or nothing running)."""
        if not self.is_running() or not 0 <= self._point_index < len(self._plan):
            return None
        value = self._plan[self._point_index].get("max_concurrency")
        return int(value) if isinstance(value, int | float) and value > 0 else None

    def point_label(self, summary: dict[str, Any]) -> str:
        rate = format_number(_as_rate(summary.get("request_rate")))
        conc = summary.get("max_concurrency")
        return f"r={rate} c={conc if conc is not None else '∞'}"

    def point_samples(self, summary: dict[str, Any]) -> RequestSamples | None:
        """The point's per-request data, read from its result file (cached)."""
        path = str(summary.get("path") or "")
        if not path:
            return None
        if path not in self._samples:
            try:
                doc = json.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            self._samples[path] = request_samples(doc if isinstance(doc, dict) else {})
        return self._samples[path]

    def _show_distributions(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        series = []
        for row in rows:
            if 0 <= row < len(self.points):
                samples = self.point_samples(self.points[row])
                if samples is not None:
                    series.append((self.point_label(self.points[row]), samples))
        self.distributions.set_series(series)

    def _on_search_value(self, event: dict[str, Any]) -> None:
        value = dict(event.get("value") or {})
        self._marks.highest_pass = event.get("highest_pass")
        self._marks.lowest_fail = event.get("lowest_fail")
        self._curves_dirty = True
        low, high = self._marks.highest_pass, self._marks.lowest_fail

        def text() -> tuple[str, str]:
            verdict = {
                "pass": self.tr("meets every SLO"),
                "fail": self.tr("fails"),
                "marginal": self.tr("is marginal"),
            }.get(str(value.get("decision")), str(value.get("decision")))
            line = self.tr("Search: {0}: {1}").format(
                load_text("concurrency", float(value.get("value") or 0)), verdict
            )
            failed = ", ".join(value.get("failed") or [])
            if failed:
                line += f" ({failed})"
            if low is not None and high is not None:
                line += " · " + self.tr("capacity between {0} and {1}").format(
                    f"{low:g}", f"{high:g}"
                )
            return line, ""

        self._capacity_source = text
        self._show_capacity()

    def _on_search_finished(self, event: dict[str, Any]) -> None:
        doc = dict(event.get("search") or {})
        self.search_doc = doc
        boundary = doc.get("boundary") or {}
        self._marks.highest_pass = boundary.get("highest_pass")
        self._marks.lowest_fail = boundary.get("lowest_fail")
        self._curves_dirty = True
        # The boundary and its why in the panel; the knees (drawn on the curves) as a tooltip.
        self._capacity_source = lambda: (capacity_text(doc, knees=False), capacity_text(doc))
        self._show_capacity()
        self.tabs.setCurrentWidget(self.curves)

    def _show_capacity(self) -> None:
        if self._capacity_source is None:
            return
        text, tip = self._capacity_source()
        self.capacity.setText(text)
        self.capacity.setToolTip(tip)
        self.capacity.setVisible(True)

    def _add_table_row(self, summary: dict[str, Any]) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        partial = is_partial(summary)
        colours = slo_cell_colours(summary)
        for col, (key, _header, decimals) in enumerate(TABLE_COLUMNS):
            text = cell_text(summary, key, decimals)
            if partial and key == "completed":
                text += f" / {summary.get('num_prompts', '?')}"
            item = QTableWidgetItem(text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if partial:
                font = QFont(item.font())
                font.setItalic(True)
                item.setFont(font)
                item.setToolTip(
                    self.tr("Partial point: the sweep was cancelled while it ran ({0}).").format(
                        Path(str(summary.get("path") or "")).name
                    )
                )
            if key in colours:  # pass/fail against the point's SLOs
                passed, tip = colours[key]
                item.setBackground(QColor(PASS_BG if passed else FAIL_BG))
                item.setForeground(QColor("#1b1b1b"))
                item.setToolTip(tip)
            self.table.setItem(row, col, item)
        self.table.scrollToBottom()

    # ---- the one repaint path -------------------------------------------------------------
    def _repaint(self, *, full: bool = False) -> None:
        self.live.refresh(full=full)
        if self._curves_dirty:
            self._curves_dirty = False
            # A point stopped early (its SLO failure proven) covers only its first requests:
            # it stays in the table but would bend the curves.
            whole = [p for p in self.points if not (p.get("tpotbench") or {}).get("early_stop")]
            series = [Series(self.tr("this run"), whole)]
            self.curves.set_series(series)
            self._marks.knees = sweep_knees(whole, sweep_axis(series))
            draw_marks(self.curves, series, self._marks)
        self._ticks += 1
        if self.is_running() and not self._run_over and (full or self._ticks % STATUS_EVERY == 0):
            self._update_progress()
            if self._cancelled:
                self._show_draining()
            else:
                self._show_eta()

    def _update_progress(self) -> None:
        """The bar: finished points plus the running point's share of its requests."""
        total_points = max(1, len(self._plan))
        p = self._progress
        total = int(p.get("total") or 0)
        done = int(p.get("completed") or 0) + int(p.get("failed") or 0)
        fraction = (done / total) if total else 0.0
        if self._search_running:  # the search's length is unknown: the bar is this point's
            self.progress_bar.setValue(int(1000 * min(1.0, fraction)))
            return
        complete = sum(1 for point in self.points if not is_partial(point))
        running = self._point_index >= len(self.points) or any(map(is_partial, self.points))
        overall = complete + (fraction if running else 0)
        self.progress_bar.setValue(int(1000 * min(1.0, overall / total_points)))

    def _show_eta(self) -> None:
        if self._point_index < 0:
            return
        if self._search_running:  # how many loads the search still needs is not known
            p = dict(self._progress)
            total = int(p.get("total") or 0)
            done = int(p.get("completed") or 0) + int(p.get("failed") or 0)
            index = self._point_index
            self._set_status(
                lambda: self.tr("Search point {0} · requests {1}/{2}").format(
                    index + 1, done, total or "?"
                )
            )
            return
        total_points = max(1, len(self._plan))
        index = max(0, self._point_index)
        p = dict(self._progress)
        total = int(p.get("total") or 0)
        done = int(p.get("completed") or 0) + int(p.get("failed") or 0)
        fraction = (done / total) if total else 0.0
        elapsed = float(p.get("elapsed_s") or 0.0)
        left_now = elapsed / fraction * (1 - fraction) if fraction > 0 else math.nan
        per_point = (
            sum(self._point_durations) / len(self._point_durations)
            if self._point_durations
            else (elapsed / fraction if fraction > 0 else math.nan)
        )
        remaining_points = max(0, total_points - index - 1)
        left = left_now + remaining_points * per_point
        failed = int(p.get("failed") or 0)

        def text() -> str:
            line = self.tr("Point {0} of {1} · requests {2}/{3}").format(
                index + 1, total_points, done, total or "?"
            )
            if failed:
                line += " " + self.tr("({0} failed)").format(failed)
            if math.isfinite(left):
                line += " · " + self.tr("about {0} left").format(format_duration(left))
            return line

        self._set_status(text)

    def closeEvent(self, event: Any) -> None:
        self.cancel()
        super().closeEvent(event)


def is_partial(summary: dict[str, Any]) -> bool:
    """A point cut short by a cancel (saved as NAME.partial.json)."""
    block = summary.get("tpotbench")
    cancelled = isinstance(block, dict) and bool(block.get("cancelled"))
    return cancelled or str(summary.get("path") or "").endswith(".partial.json")


def _as_rate(value: Any) -> float:
    if value in (None, "inf", "Infinity"):
        return math.inf
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.inf
