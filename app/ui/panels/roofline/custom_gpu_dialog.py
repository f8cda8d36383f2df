"""The dialog that adds a GPU from its datasheet numbers to the user's catalogue."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from app.roofline.catalog import GPU, CatalogError, add_custom_gpu


class CustomGpuDialog(QDialog):
    """Asks for a GPU's datasheet numbers and saves it to the user's gpus.json."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Add a GPU"))
        self.gpu: GPU | None = None
        self.id_edit, self.name_edit, self.source_edit = QLineEdit(), QLineEdit(), QLineEdit()
        self.source_edit.setPlaceholderText(self.tr("datasheet name or URL"))
        self.memory = self._spin(1, 4096, 24, self.tr(" GiB"))
        self.bandwidth = self._spin(1, 100_000, 936, self.tr(" GB/s"))
        self.tflops = self._spin(0.1, 100_000, 71, self.tr(" TFLOPS"))
        self.error = QLabel()
        self.error.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow(self.tr("Id"), self.id_edit)
        form.addRow(self.tr("Name"), self.name_edit)
        form.addRow(self.tr("Memory"), self.memory)
        form.addRow(self.tr("Bandwidth"), self.bandwidth)
        form.addRow(self.tr("Dense BF16/FP16 tensor"), self.tflops)
        form.addRow(self.tr("Source"), self.source_edit)
        form.addRow(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    @staticmethod
    def _spin(low: float, high: float, value: float, suffix: str) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(low, high)
        spin.setDecimals(1)
        spin.setValue(value)
        spin.setSuffix(suffix)
        return spin

    def save(self) -> None:
        gpu_id, source = self.id_edit.text().strip(), self.source_edit.text().strip()
        if not gpu_id or not source:
            self._say(self.tr("Give the GPU an id and say where the numbers come from."))
            return
        try:
            self.gpu = add_custom_gpu(
                gpu_id,
                self.name_edit.text().strip() or gpu_id,
                self.memory.value(),
                self.bandwidth.value(),
                self.tflops.value(),
                source,
            )
        except (CatalogError, OSError) as exc:
            self._say(str(exc))
            return
        self.accept()

    def _say(self, text: str) -> None:
        """The problem under the fields; the dialog grows to show all of it (a wrapped line
        in a dialog of fixed height was cut after its first line)."""
        self.error.setText(text)
        self.error.setMinimumHeight(self.error.heightForWidth(max(self.error.width(), 200)))
        self.adjustSize()
