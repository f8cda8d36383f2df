"""The roofline panel's what-if table and the bar of bytes one decode step reads."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.roofline.scenario import Scenario, WhatIf

BYTES_COLORS = ("#0072B2", "#E69F00", "#009E73")


def gigabytes(n: float) -> str:
    return f"{n / 1e9:.3f} GB"


class BytesBar(QWidget):
    """A stacked bar of the bytes one decode step reads: weights, LM head, KV cache."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.parts: list[tuple[str, float]] = []
        self.setMinimumHeight(18)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_parts(self, parts: list[tuple[str, float]]) -> None:
        self.parts = parts
        self.update()

    def paintEvent(self, _event: object) -> None:
        total = sum(v for _, v in self.parts) or 1.0
        painter = QPainter(self)
        x = 0.0
        w = float(self.width())
        for (_, value), color in zip(self.parts, BYTES_COLORS, strict=False):
            width = w * value / total
            painter.fillRect(QRectF(x, 0, width, self.height()), QColor(color))
            x += width
        painter.end()


class WhatIfView(QWidget):
    """Batch-1 floors of the model in every weight format and on other GPUs, and the INT4 gain."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gain_label = QLabel()
        self.gain_label.setWordWrap(True)
        self.table = QTableWidget(0, 5)
        self.retranslate()
        self.table.verticalHeader().setVisible(False)
        # Whole names on two lines rather than "NVIDIA H20…" beside "NVIDIA H20".
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        rows = self.table.verticalHeader()
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        # Rows follow the Setup column's width, so a wrapped name always shows both lines.
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in range(1, 5):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.gain_label)
        layout.addWidget(self.table, 1)

    def retranslate(self) -> None:
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Setup"),
                self.tr("Floor TPOT"),
                self.tr("Best tok/s"),
                self.tr("KV capacity"),
                self.tr("vs now"),
            ]
        )

    def refresh(self, s: Scenario) -> None:
        """Fill the table and the gain line for the scenario the panel shows."""
        self.table.setRowCount(0)
        fmt_rows = s.what_if_formats()
        gpu_rows = s.what_if_gpus()
        self._section(
            self.tr("{model} on {gpu}, every weight format").format(
                model=s.model.name, gpu=s.gpu.name
            )
        )
        for row in fmt_rows:
            self._row(s, row, row.fmt.name)
        self._section(
            self.tr("{model} in {fmt}, other GPUs").format(model=s.model.name, fmt=s.fmt.name)
        )
        for row in gpu_rows:
            self._row(s, row, row.gpu.name)
        int4 = replace(s, fmt=next(r.fmt for r in fmt_rows if r.fmt.id == "awq-int4"))
        bf16 = replace(s, fmt=next(r.fmt for r in fmt_rows if r.fmt.id == "bf16"))
        a, b = int4.floor(1).seconds, bf16.floor(1).seconds
        self.gain_label.setText(
            self.tr(
                "AWQ INT4 vs BF16 on {gpu}: floor {a:.2f} ms vs {b:.2f} ms, {g:.1f}× faster "
                "({p:.0f} % of the BF16 floor). Measured INT4 TPOT usually gains less: the "
                "field guide expects it roughly halved."
            ).format(gpu=s.gpu.name, a=a * 1e3, b=b * 1e3, g=b / a, p=a / b * 100)
        )
        self.gain_label.setToolTip(
            self.tr("gain = BF16 bytes per step ÷ INT4 bytes per step = {x} ÷ {y}").format(
                x=gigabytes(bf16.step(1).total_bytes), y=gigabytes(int4.step(1).total_bytes)
            )
        )

    def rows(self) -> list[list[str]]:
        """The table as text (section rows have one cell)."""
        rows = []
        for r in range(self.table.rowCount()):
            cells = [self.table.item(r, c) for c in range(5)]
            rows.append([c.text() for c in cells if c is not None])
        return rows

    def _section(self, title: str) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        item = QTableWidgetItem(title)
        font = item.font()
        font.setBold(True)
        item.setFont(font)
        self.table.setItem(r, 0, item)
        self.table.setSpan(r, 0, 1, 5)

    def _row(self, s: Scenario, row: WhatIf, label: str) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        bw = row.gpu.bandwidth_bytes_per_s / 1e9
        floor_tip = self.tr("floor = {b} per step ÷ {bw:.0f} GB/s ({fmt}, {gpu}, batch 1)").format(
            b=gigabytes(row.bytes_per_step), bw=bw, fmt=row.fmt.name, gpu=row.gpu.name
        )
        fits = row.kv_tokens > 0
        current = row.gpu.id == s.gpu.id and row.fmt.id == s.fmt.id
        cells = [
            (label, row.gpu.source if label == row.gpu.name else row.fmt.source),
            (f"{row.floor_ms:.2f} ms", floor_tip),
            (f"{row.tok_s:.0f}", self.tr("1000 ÷ {f:.2f} ms").format(f=row.floor_ms)),
            (
                f"{row.kv_tokens:,}" if fits else self.tr("does not fit"),
                self.tr("tokens of KV cache at gpu_memory_utilization {u}, block 16").format(
                    u=s.gpu_memory_utilization
                ),
            ),
            (f"{row.speedup:.2f}×", self.tr("current floor ÷ this floor")),
        ]
        for col, (text, tip) in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(tip)
            if col:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if not fits:
                item.setForeground(QColor("#999999"))
            if current:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.table.setItem(r, col, item)
