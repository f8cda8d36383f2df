"""The roofline panel: measured TPOT against the bandwidth floor, MBU, and what-if tables."""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QLabel,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.roofline.catalog import (
    CatalogError,
    get_model,
    list_gpus,
    list_kv_dtypes,
    list_models,
    list_weight_formats,
)
from app.roofline.scenario import Scenario
from app.ui.panels.roofline import figures
from app.ui.panels.roofline.custom_gpu_dialog import CustomGpuDialog
from app.ui.panels.roofline.whatif import BytesBar, WhatIfView
from app.ui.plots.roofline import BatchPlot, Measured, RoofPlot
from app.ui.retranslate import is_language_change

DEFAULT = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16", "kv_dtype": "fp16"}


class _FillWidget(QWidget):
    """Scroll-area content that fills the viewport: with word-wrapped labels QScrollArea asks
    heightForWidth, which a layout answers with its preferred height and forces a scrollbar."""

    def heightForWidth(self, _width: int) -> int:
        return self.minimumSizeHint().height()


class RooflinePanel(QWidget):
    """Decode floor, MBU, roofline and what-if for one GPU + model + format + KV dtype.

    Signals:
        contextChanged(dict): the user picked another GPU/model/format/KV dtype/context;
            keys gpu_id, model_id, fmt, kv_dtype, context.
    """

    contextChanged = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._measured: list[Measured] = []
        self._live_ms: float | None = None
        self._live_batch = 1.0
        self._live_label = ""
        self._updating = False
        self._scenario = Scenario.from_ids(**DEFAULT)
        self._build()
        self._fill_combos()
        self.set_context(**DEFAULT)

    # ---- building ----

    def _build(self) -> None:
        # Long but flat: the widgets in the order they appear; one layout read top to bottom.
        self.gpu_combo, self.model_combo = QComboBox(), QComboBox()
        self.fmt_combo, self.kv_combo = QComboBox(), QComboBox()
        self.context_spin = QSpinBox()
        self.context_spin.setRange(0, 1_048_576)
        self.context_spin.setSingleStep(256)
        self.context_spin.setValue(512)
        # Small buttons: the panel usually lives in a narrow dock.
        self.load_config_button = QToolButton()
        self.load_config_button.setText("…")
        self.add_gpu_button = QToolButton()
        self.add_gpu_button.setText("+")
        for combo in (self.gpu_combo, self.model_combo, self.fmt_combo, self.kv_combo):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(10)
            combo.currentIndexChanged.connect(self._on_user_change)
        self.context_spin.valueChanged.connect(self._on_user_change)
        self.load_config_button.clicked.connect(self._load_config)
        self.add_gpu_button.clicked.connect(self._add_gpu)

        selectors = QGridLayout()
        rows = (
            (self.gpu_combo, self.add_gpu_button),
            (self.model_combo, self.load_config_button),
            (self.fmt_combo, None),
            (self.kv_combo, None),
            (self.context_spin, None),
        )
        self.selector_labels = [QLabel() for _ in rows]
        for row, (widget, button) in enumerate(rows):
            selectors.addWidget(self.selector_labels[row], row, 0)
            selectors.addWidget(widget, row, 1)
            if button is not None:
                selectors.addWidget(button, row, 2)
        selectors.setColumnStretch(1, 1)

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
        # The panel's callers and tests reach these items directly.
        self.floor_line = self.batch_plot.floor_line
        self.band_curve = self.batch_plot.band_curve
        self.measured_curve = self.batch_plot.measured_curve
        self.gain_label = self.whatif.gain_label
        self.whatif_table = self.whatif.table
        for page in (self.batch_plot, self.roof_plot, self.whatif):
            self.tabs.addTab(page, "")

        self.tabs.setMinimumHeight(300)
        content = _FillWidget()
        inner = QVBoxLayout(content)
        inner.addLayout(selectors)
        inner.addLayout(summary)
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
        """The fixed strings; the figures' sentences are made by _refresh."""
        self.context_spin.setSuffix(self.tr(" tokens"))
        self.context_spin.setToolTip(self.tr("Tokens already in each sequence's KV cache"))
        self.load_config_button.setToolTip(self.tr("Load a Hugging Face config.json"))
        self.add_gpu_button.setToolTip(self.tr("Add a GPU that is not in the catalogue"))
        names = (self.tr("GPU"), self.tr("Model"), self.tr("Weights"), self.tr("KV cache"))
        for label, text in zip(self.selector_labels, (*names, self.tr("Context")), strict=True):
            label.setText(text)
        for index, text in enumerate(
            (self.tr("TPOT vs batch"), self.tr("Roofline"), self.tr("What-if"))
        ):
            self.tabs.setTabText(index, text)

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self._words()
            self.batch_plot.retranslate()
            self.roof_plot.retranslate()
            self.whatif.retranslate()
            self._refresh()  # every sentence with a figure in it, in the new language
        super().changeEvent(event)

    def sizeHint(self) -> QSize:
        return QSize(420, 760)

    def _fill_combos(self) -> None:
        self._updating = True
        try:
            current_gpu = self.gpu_combo.currentData()
            self.gpu_combo.clear()
            for gpu in list_gpus():
                self.gpu_combo.addItem(gpu.name, gpu.id)
                self.gpu_combo.setItemData(
                    self.gpu_combo.count() - 1, gpu.source, Qt.ItemDataRole.ToolTipRole
                )
            if current_gpu:
                self.gpu_combo.setCurrentIndex(max(0, self.gpu_combo.findData(current_gpu)))
            if self.model_combo.count() == 0:
                for model in list_models():
                    self.model_combo.addItem(model.name, model.id)
                    self.model_combo.setItemData(
                        self.model_combo.count() - 1, model.source, Qt.ItemDataRole.ToolTipRole
                    )
                for fmt in list_weight_formats():
                    self.fmt_combo.addItem(fmt.name, fmt.id)
                    self.fmt_combo.setItemData(
                        self.fmt_combo.count() - 1, fmt.source, Qt.ItemDataRole.ToolTipRole
                    )
                for kv in list_kv_dtypes():
                    self.kv_combo.addItem(kv.name, kv.id)
        finally:
            self._updating = False

    # ---- public API ----

    def context(self) -> dict[str, Any]:
        return {
            "gpu_id": self._scenario.gpu.id,
            "model_id": self.model_combo.currentData(),
            "fmt": self._scenario.fmt.id,
            "kv_dtype": self._scenario.kv.id,
            "context": self._scenario.context,
        }

    def scenario(self) -> Scenario:
        return self._scenario

    def set_context(
        self,
        gpu_id: str | None = None,
        model_id: str | None = None,
        fmt: str | None = None,
        kv_dtype: str | None = None,
        context: int | None = None,
    ) -> None:
        """Select a GPU/model/format/KV dtype (None keeps the current one); CatalogError if bad."""
        now = self.context() if self.model_combo.currentData() else dict(DEFAULT, context=512)
        ids = {
            "gpu_id": gpu_id or now["gpu_id"],
            "model_id": model_id or now["model_id"],
            "fmt": fmt or now["fmt"],
            "kv_dtype": kv_dtype or now["kv_dtype"],
        }
        tokens = int(context if context is not None else now["context"])
        scenario = Scenario.from_ids(**ids, context=tokens)  # raises before anything changes
        self._updating = True
        try:
            self._select(self.gpu_combo, scenario.gpu.id)
            if self.model_combo.findData(ids["model_id"]) < 0:
                self._add_model_item(ids["model_id"], scenario.model.name, scenario.model.source)
            self._select(self.model_combo, ids["model_id"])
            self._select(self.fmt_combo, scenario.fmt.id)
            self._select(self.kv_combo, scenario.kv.id)
            self.context_spin.setValue(tokens)
        finally:
            self._updating = False
        self._scenario = scenario
        self._refresh()

    def add_measured_point(
        self,
        concurrency: int,
        tpot_p50_ms: float,
        tpot_p99_ms: float,
        running_batch: float | None = None,
    ) -> None:
        """Show one sweep point's TPOT p50 (and p99 band) at its concurrency or running batch."""
        if tpot_p50_ms <= 0 or not math.isfinite(tpot_p50_ms):
            return
        p99 = tpot_p99_ms if math.isfinite(tpot_p99_ms) else tpot_p50_ms
        self._measured.append(
            Measured(int(concurrency), tpot_p50_ms, max(p99, tpot_p50_ms), running_batch)
        )
        self._refresh_batch_plot()
        self._refresh_measured()
        self._refresh_mbu_label()

    def clear_measured(self) -> None:
        self._measured.clear()
        self._live_ms = None
        self._refresh_batch_plot()
        self._refresh_measured()
        self._refresh_mbu_label()

    def set_live_tpot_ms(self, ms: float, batch: float = 1.0, label: str = "") -> None:
        """The latest TPOT with its MBU: a probe's at batch 1, or a running sweep's rolling
        p50 at the server's running batch (or the point's concurrency), named by `label`."""
        self._live_ms = ms if ms > 0 and math.isfinite(ms) else None
        self._live_batch = batch if batch >= 1 and math.isfinite(batch) else 1.0
        self._live_label = label
        self._refresh_measured()
        self._refresh_mbu_label()

    # ---- reacting ----

    def _select(self, combo: QComboBox, data: str) -> None:
        index = combo.findData(data)
        if index >= 0:
            combo.setCurrentIndex(index)

    def _add_model_item(self, model_id: str, name: str, source: str) -> None:
        self.model_combo.addItem(name, model_id)
        self.model_combo.setItemData(
            self.model_combo.count() - 1, source, Qt.ItemDataRole.ToolTipRole
        )

    def _on_user_change(self, *_: object) -> None:
        if self._updating:
            return
        try:
            self._scenario = Scenario.from_ids(
                self.gpu_combo.currentData(),
                self.model_combo.currentData(),
                self.fmt_combo.currentData(),
                self.kv_combo.currentData(),
                self.context_spin.value(),
            )
        except CatalogError as exc:
            self.floor_label.setText(str(exc))
            return
        self._refresh()
        self.contextChanged.emit(self.context())

    def _load_config(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Hugging Face config.json"), "", self.tr("JSON files (*.json)")
        )
        if path:
            self.load_model_config(path)

    def load_model_config(self, path: str) -> bool:
        """Add a model from a config.json and select it; a bad file shows one line."""
        try:
            model = get_model(path)
        except CatalogError as exc:
            self.gain_label.setText(self.tr("Cannot use that file: {error}").format(error=exc))
            self.floor_label.setText(self.tr("Cannot use that file: {error}").format(error=exc))
            return False
        if self.model_combo.findData(path) < 0:
            self._add_model_item(path, model.name, model.source)
        self._select(self.model_combo, path)  # emits contextChanged through _on_user_change
        return True

    def _add_gpu(self) -> None:
        dialog = CustomGpuDialog(self)
        if dialog.exec() and dialog.gpu is not None:
            self._fill_combos()
            self._select(self.gpu_combo, dialog.gpu.id)

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
            latest = (self._live_batch, self._live_ms, self._live_label or self.tr("live probe"))
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
