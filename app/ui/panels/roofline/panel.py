"""The roofline panel: measured TPOT against the bandwidth floor, MBU, and what-if tables."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TypedDict

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.roofline.catalog import (
    CatalogError,
    get_model,
)
from app.roofline.context import RooflineContext
from app.roofline.pareto import hardware_frontier, measured_point
from app.roofline.scenario import Scenario
from app.ui.panels.roofline import figures
from app.ui.panels.roofline.picker import ScenarioPicker
from app.ui.panels.roofline.whatif import BytesBar, WhatIfView
from app.ui.plots.pareto import HardwareFrontier, ParetoPlot, ParetoRun, hardware_name
from app.ui.plots.roofline import COLORS, BatchPlot, Measured, RoofPlot
from app.ui.retranslate import TextSource, is_language_change, text_of


class RooflineIds(TypedDict):
    """A scenario's catalogue ids (Scenario.from_ids' arguments)."""

    gpu_id: str
    model_id: str
    fmt: str
    kv_dtype: str


DEFAULT: RooflineIds = {
    "gpu_id": "rtx3090",
    "model_id": "qwen2.5-7b",
    "fmt": "bf16",
    "kv_dtype": "fp16",
}


class _FillWidget(QWidget):
    """Scroll-area content that fills the viewport: with word-wrapped labels QScrollArea asks
    heightForWidth, which a layout answers with its preferred height and forces a scrollbar."""

    def heightForWidth(self, _width: int) -> int:
        return self.minimumSizeHint().height()


class RooflinePanel(QWidget):
    """Decode floor, MBU, roofline and what-if for one GPU + model + format + KV dtype.

    Signals:
        contextChanged(RooflineContext): the user picked another GPU/model/format/KV
            dtype/context/GPU count.
    """

    contextChanged = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The session's sweeps, each its points; the chart shows the latest or all of them.
        self._runs: list[list[Measured]] = []
        self._live_ms: float | None = None
        self._live_batch = 1.0
        self._live_label: TextSource = ""
        self._scenario = Scenario.from_ids(**DEFAULT)
        self._build()
        self.set_context(**DEFAULT)

    # ---- building ----

    def _build(self) -> None:
        self.picker = ScenarioPicker()
        self.picker.edited.connect(self._on_user_change)
        self.picker.configChosen.connect(self.load_model_config)
        self.floor_label = QLabel()
        self.speed_label = QLabel()
        self.mbu_label = QLabel()
        self.capacity_label = QLabel()
        self.ridge_label = QLabel()
        self.bytes_label = QLabel()
        self.bytes_bar = BytesBar()
        summary = QVBoxLayout()
        summary.setSpacing(2)
        for label in (
            self.floor_label,
            self.speed_label,
            self.mbu_label,
            self.capacity_label,
            self.ridge_label,
        ):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setWordWrap(True)
            summary.addWidget(label)
        summary.addWidget(self.bytes_bar)
        summary.addWidget(self.bytes_label)
        self.bytes_label.setWordWrap(True)

        self.tabs = QTabWidget()
        self.batch_plot = BatchPlot()
        self.roof_plot = RoofPlot()
        self.whatif = WhatIfView()
        self.pareto_plot = ParetoPlot()
        # The panel's callers and tests reach these items directly.
        self.floor_line = self.batch_plot.floor_line
        self.band_curve = self.batch_plot.band_curve
        self.measured_curve = self.batch_plot.measured_curve
        self.gain_label = self.whatif.gain_label
        self.whatif_table = self.whatif.table
        for page in (self.batch_plot, self.roof_plot, self.pareto_plot, self.whatif):
            self.tabs.addTab(page, "")

        # Which runs' points the charts show: a session's sweeps piled up on one chart.
        self.runs_label = QLabel()
        self.runs_combo = QComboBox()
        self.runs_combo.addItem("", "latest")
        self.runs_combo.addItem("", "all")
        self.runs_combo.currentIndexChanged.connect(lambda _i: self._show_runs())
        self.clear_button = QPushButton()
        self.clear_button.clicked.connect(self.clear_measured)
        runs_row = QHBoxLayout()
        runs_row.setContentsMargins(0, 0, 0, 0)
        runs_row.addWidget(self.runs_label)
        runs_row.addWidget(self.runs_combo, 1)
        runs_row.addWidget(self.clear_button)

        self.tabs.setMinimumHeight(300)
        content = _FillWidget()
        inner = QVBoxLayout(content)
        inner.addWidget(self.picker)
        inner.addLayout(summary)
        inner.addLayout(runs_row)
        inner.addWidget(self.tabs, 1)
        # A short dock scrolls instead of squashing the plots to nothing.
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)

        self._words()

    def _words(self) -> None:
        """The tab titles (the picker has its own words); the figures' sentences are made by
        _refresh."""
        for index, text in enumerate(
            (self.tr("TPOT vs batch"), self.tr("Roofline"), self.tr("Pareto"), self.tr("What-if"))
        ):
            self.tabs.setTabText(index, text)
        self.runs_label.setText(self.tr("Points"))
        self.runs_combo.setItemText(0, self.tr("latest sweep"))
        self.runs_combo.setItemText(1, self.tr("all sweeps this session"))
        self.runs_combo.setToolTip(self.tr("Which sweeps' points the charts show."))
        self.clear_button.setText(self.tr("Clear"))
        self.clear_button.setToolTip(self.tr("Remove every measured point from the charts."))

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self._words()
            self.batch_plot.retranslate()
            self.roof_plot.retranslate()
            self.whatif.retranslate()
            self._refresh_pareto()
            self._refresh()  # every sentence with a figure in it, in the new language
        super().changeEvent(event)

    def sizeHint(self) -> QSize:
        return QSize(420, 760)

    # ---- public API ----

    def context(self) -> RooflineContext:
        """The dock's settings as a run takes them and set_context gives them back."""
        return RooflineContext(
            gpu_id=self._scenario.gpu.id,
            model_id=self.picker.model_id(),
            fmt=self._scenario.fmt.id,
            kv_dtype=self._scenario.kv.id,
            context=self._scenario.context,
            tensor_parallel=self.picker.tensor_parallel(),
        )

    def scenario(self) -> Scenario:
        return self._scenario

    def set_context(
        self,
        gpu_id: str | None = None,
        model_id: str | None = None,
        fmt: str | None = None,
        kv_dtype: str | None = None,
        context: int | None = None,
        tensor_parallel: int | None = None,
    ) -> None:
        """Select a GPU/model/format/KV dtype, context and GPU count (None keeps the current
        one); CatalogError if bad."""
        now = self.context()
        if not self.picker.model_id():
            now = replace(now, **DEFAULT, context=512)
        ids: RooflineIds = {
            "gpu_id": gpu_id or now.gpu_id,
            "model_id": model_id or now.model_id or DEFAULT["model_id"],
            "fmt": fmt or now.fmt,
            "kv_dtype": kv_dtype or now.kv_dtype,
        }
        tokens = int(context if context is not None else now.context)
        scenario = Scenario.from_ids(**ids, context=tokens)  # raises before anything changes
        self.picker.show_scenario(scenario, ids["model_id"])
        if tensor_parallel is not None:
            self.picker.show_tensor_parallel(int(tensor_parallel))
        self._scenario = scenario
        self._refresh()

    def add_measured_point(
        self,
        concurrency: int,
        tpot_p50_ms: float,
        tpot_p99_ms: float,
        running_batch: float | None = None,
        output_tok_s: float | None = None,
    ) -> None:
        """Show one sweep point's TPOT p50 (and p99 band) at its concurrency or running batch,
        and with its output throughput on the Pareto tab."""
        if tpot_p50_ms <= 0 or not math.isfinite(tpot_p50_ms):
            return
        p99 = tpot_p99_ms if math.isfinite(tpot_p99_ms) else tpot_p50_ms
        if not self._runs:
            self._runs.append([])
        self._runs[-1].append(
            Measured(
                int(concurrency), tpot_p50_ms, max(p99, tpot_p50_ms), running_batch, output_tok_s
            )
        )
        self._show_runs()

    def start_run(self) -> None:
        """A new sweep starts: its points form a run of their own (the latest)."""
        if not self._runs or self._runs[-1]:
            self._runs.append([])
        self._show_runs()

    @property
    def _measured(self) -> list[Measured]:
        """The points the charts show: the latest sweep's, or every sweep's of the session."""
        if self.runs_combo.currentData() == "all":
            return [m for run in self._runs for m in run]
        return list(self._runs[-1]) if self._runs else []

    def clear_measured(self) -> None:
        self._runs.clear()
        self._live_ms = None
        self._show_runs()

    def _show_runs(self) -> None:
        self.clear_button.setEnabled(any(self._runs))
        self._refresh_pareto()
        self._refresh_batch_plot()
        self._refresh_measured()
        self._refresh_mbu_label()

    def set_live_tpot_ms(self, ms: float, batch: float = 1.0, label: TextSource = "") -> None:
        """The latest TPOT with its MBU: a probe's at batch 1, or a running sweep's rolling
        p50 at the server's running batch (or the point's concurrency), named by `label`."""
        self._live_ms = ms if ms > 0 and math.isfinite(ms) else None
        self._live_batch = batch if batch >= 1 and math.isfinite(batch) else 1.0
        self._live_label = label
        self._refresh_measured()
        self._refresh_mbu_label()

    # ---- reacting ----

    def _on_user_change(self) -> None:
        try:
            self._scenario = Scenario.from_ids(*self.picker.ids())
        except CatalogError as exc:
            self.floor_label.setText(str(exc))
            return
        self._refresh()
        self.contextChanged.emit(self.context())

    def load_model_config(self, path: str) -> bool:
        """Add a model from a config.json and select it; a bad file shows one line."""
        try:
            model = get_model(path)
        except CatalogError as exc:
            self.gain_label.setText(self.tr("Cannot use that file: {error}").format(error=exc))
            self.floor_label.setText(self.tr("Cannot use that file: {error}").format(error=exc))
            return False
        self.picker.pick_model(path, model.name, model.source)  # contextChanged follows
        return True

    # ---- drawing ----

    def _refresh(self) -> None:
        s = self._scenario
        for label, (text, tip) in (
            (self.floor_label, figures.floor(s)),
            (self.speed_label, figures.best_speed(s)),
            (self.capacity_label, figures.kv_capacity(s)),
            (self.ridge_label, figures.ridge(s)),
        ):
            label.setText(text)
            label.setToolTip(tip)
        parts, text, tip = figures.step_bytes(s)
        self.bytes_bar.set_parts(parts)
        self.bytes_label.setText(text)
        self.bytes_label.setToolTip(tip)
        self.bytes_bar.setToolTip(tip)
        self._refresh_batch_plot()
        self.roof_plot.show_roof(self._scenario)
        self._refresh_measured()
        self._refresh_mbu_label()
        self.whatif.refresh(self._scenario)
        self._refresh_pareto()

    def _refresh_pareto(self) -> None:
        """The hardware's frontier for this GPU, model, format and GPU count, and each measured
        point with a throughput (a sweep's; a probe has none)."""
        s, gpus = self._scenario, self.picker.tensor_parallel()
        points = [
            found
            for m in self._measured
            if (
                found := measured_point(
                    self.tr("c{c}").format(c=m.concurrency),
                    m.p50_ms,
                    m.output_tok_s,
                    gpus,
                    m.batch,
                    s,
                )
            )
            is not None
        ]
        hardware = HardwareFrontier(
            hardware_name(s.gpu.name, gpus, s.fmt.id), hardware_frontier(s, gpus), gpus
        )
        run = ParetoRun(self.tr("measured"), COLORS["measured"], points)
        self.pareto_plot.show_runs([run], [hardware])

    def _refresh_batch_plot(self) -> None:
        self.batch_plot.show_floor(self._scenario, self._measured, self.floor_label.toolTip())

    def _refresh_measured(self) -> None:
        self.batch_plot.show_measured(
            self._scenario, self._measured, self._live_ms, self._live_batch
        )
        self.roof_plot.show_measured(self._scenario, self._measured)

    @property
    def _mbu_texts(self) -> list[pg.TextItem]:
        # The MBU labels live on the batch plot; kept reachable from the panel as before.
        return self.batch_plot.mbu_texts

    def _refresh_mbu_label(self) -> None:
        latest: tuple[float, float, str] | None = None
        if self._live_ms is not None:
            latest = (
                self._live_batch,
                self._live_ms,
                text_of(self._live_label) or self.tr("live probe"),
            )
        elif self._measured:
            first = min(self._measured, key=lambda m: m.batch)
            latest = (
                first.batch,
                first.p50_ms,
                self.tr("p50 at batch {b:g}").format(b=round(first.batch, 2)),
            )
        text, tip = figures.mbu(self._scenario, latest)
        self.mbu_label.setText(text)
        self.mbu_label.setToolTip(tip)

    def whatif_rows(self) -> list[list[str]]:
        """The what-if table as text (section rows have one cell)."""
        return self.whatif.rows()
