"""The roofline panel's selectors: GPU, model, weight format, KV cache dtype, context and the
number of GPUs (tensor parallel)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QLabel,
    QSpinBox,
    QToolButton,
    QWidget,
)

from app.roofline.catalog import list_gpus, list_kv_dtypes, list_models, list_weight_formats
from app.roofline.scenario import Scenario
from app.ui.panels.roofline.custom_gpu_dialog import CustomGpuDialog
from app.ui.retranslate import is_language_change


class ScenarioPicker(QWidget):
    """The catalogue's choices in combo boxes, plus a model from a config.json and a GPU the
    catalogue lacks.

    Signals:
        edited(): the user changed a choice (not show_scenario).
        configChosen(str): a Hugging Face config.json was picked with the … button.
    """

    edited = Signal()
    configChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._updating = False
        self.gpu_combo, self.model_combo = QComboBox(), QComboBox()
        self.fmt_combo, self.kv_combo = QComboBox(), QComboBox()
        self.context_spin = QSpinBox()
        self.context_spin.setRange(0, 1_048_576)
        self.context_spin.setSingleStep(256)
        self.context_spin.setValue(512)
        self.gpus_spin = QSpinBox()
        self.gpus_spin.setRange(1, 64)
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
        self.gpus_spin.valueChanged.connect(self._on_user_change)
        self.load_config_button.clicked.connect(self._load_config)
        self.add_gpu_button.clicked.connect(self._add_gpu)

        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        rows = (
            (self.gpu_combo, self.add_gpu_button),
            (self.model_combo, self.load_config_button),
            (self.fmt_combo, None),
            (self.kv_combo, None),
            (self.context_spin, None),
            (self.gpus_spin, None),
        )
        self.labels = [QLabel() for _ in rows]
        for row, (widget, button) in enumerate(rows):
            grid.addWidget(self.labels[row], row, 0)
            grid.addWidget(widget, row, 1)
            if button is not None:
                grid.addWidget(button, row, 2)
        grid.setColumnStretch(1, 1)
        self.retranslate()
        self.fill()

    def retranslate(self) -> None:
        self.context_spin.setSuffix(self.tr(" tokens"))
        self.context_spin.setToolTip(self.tr("Tokens already in each sequence's KV cache"))
        self.load_config_button.setToolTip(self.tr("Load a Hugging Face config.json"))
        self.add_gpu_button.setToolTip(self.tr("Add a GPU that is not in the catalogue"))
        self.gpus_spin.setToolTip(
            self.tr(
                "GPUs the model is split over (vLLM's --tensor-parallel-size): the Pareto chart "
                "shows output tokens/s per GPU"
            )
        )
        names = (self.tr("GPU"), self.tr("Model"), self.tr("Weights"), self.tr("KV cache"))
        words = (*names, self.tr("Context"), self.tr("GPUs (TP)"))
        for label, text in zip(self.labels, words, strict=True):
            label.setText(text)

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def fill(self) -> None:
        """The catalogue into the combo boxes (again after a GPU was added); the choice stays."""
        self._updating = True
        try:
            current_gpu = self.gpu_combo.currentData()
            self.gpu_combo.clear()
            for gpu in list_gpus():
                self._add_item(self.gpu_combo, gpu.id, gpu.name, gpu.source)
            if current_gpu:
                self.gpu_combo.setCurrentIndex(max(0, self.gpu_combo.findData(current_gpu)))
            if self.model_combo.count() == 0:
                for model in list_models():
                    self._add_item(self.model_combo, model.id, model.name, model.source)
                for fmt in list_weight_formats():
                    self._add_item(self.fmt_combo, fmt.id, fmt.name, fmt.source)
                for kv in list_kv_dtypes():
                    self.kv_combo.addItem(kv.name, kv.id)
        finally:
            self._updating = False

    def ids(self) -> tuple[str, str, str, str, int]:
        """GPU, model, format and KV dtype ids and the context length, as picked."""
        return (
            self.gpu_combo.currentData(),
            self.model_combo.currentData(),
            self.fmt_combo.currentData(),
            self.kv_combo.currentData(),
            self.context_spin.value(),
        )

    def tensor_parallel(self) -> int:
        return self.gpus_spin.value()

    def show_tensor_parallel(self, gpus: int) -> None:
        """Show a GPU count without signalling an edit."""
        self._updating = True
        try:
            self.gpus_spin.setValue(max(1, gpus))
        finally:
            self._updating = False

    def model_id(self) -> str | None:
        data = self.model_combo.currentData()  # the id _add_item stored
        return data if isinstance(data, str) else None

    def show_scenario(self, scenario: Scenario, model_id: str) -> None:
        """Show a scenario's choices without signalling an edit; `model_id` is the catalogue id
        or config.json path the scenario's model came from."""
        self._updating = True
        try:
            self._select(self.gpu_combo, scenario.gpu.id)
            if self.model_combo.findData(model_id) < 0:
                self._add_item(
                    self.model_combo, model_id, scenario.model.name, scenario.model.source
                )
            self._select(self.model_combo, model_id)
            self._select(self.fmt_combo, scenario.fmt.id)
            self._select(self.kv_combo, scenario.kv.id)
            self.context_spin.setValue(scenario.context)
        finally:
            self._updating = False

    def pick_model(self, model_id: str, name: str, source: str) -> None:
        """Add a model (a config.json) if new and pick it as the user would (edited fires)."""
        if self.model_combo.findData(model_id) < 0:
            self._add_item(self.model_combo, model_id, name, source)
        self._select(self.model_combo, model_id)

    def _add_item(self, combo: QComboBox, item_id: str, name: str, source: str) -> None:
        combo.addItem(name, item_id)
        combo.setItemData(combo.count() - 1, source, Qt.ItemDataRole.ToolTipRole)

    def _select(self, combo: QComboBox, data: str) -> None:
        index = combo.findData(data)
        if index >= 0:
            combo.setCurrentIndex(index)

    def _on_user_change(self, *_: object) -> None:
        if not self._updating:
            self.edited.emit()

    def _load_config(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Hugging Face config.json"), "", self.tr("JSON files (*.json)")
        )
        if path:
            self.configChosen.emit(path)

    def _add_gpu(self) -> None:
        dialog = CustomGpuDialog(self)
        if dialog.exec() and dialog.gpu is not None:
            self.fill()
            self._select(self.gpu_combo, dialog.gpu.id)
