"""The roofline panel: measured TPOT against the bandwidth floor, MBU, and what-if tables."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.roofline.catalog import (
    GPU,
    CatalogError,
    add_custom_gpu,
    get_model,
    list_gpus,
    list_kv_dtypes,
    list_models,
    list_weight_formats,
)
from app.roofline.decode import kv_bytes_per_token, weight_bytes_resident
from app.roofline.scenario import BATCH_GRID, Scenario, WhatIf

DEFAULT = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16", "kv_dtype": "fp16"}
COLORS = {"floor": "#0072B2", "line": "#D55E00", "measured": "#009E73", "live": "#CC79A7"}
BYTES_COLORS = ("#0072B2", "#E69F00", "#009E73")


class Measured(NamedTuple):
    concurrency: int
    p50_ms: float
    p99_ms: float
    running: float | None

    @property
    def batch(self) -> float:
        """Where the point sits: the server's running batch when known, else the concurrency."""
        return self.running if self.running and self.running > 0 else float(self.concurrency)


def _gb(n: float) -> str:
    return f"{n / 1e9:.3f} GB"


def _ms(s: float) -> str:
    return f"{s * 1e3:.2f} ms"


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
            self.error.setText(self.tr("Give the GPU an id and say where the numbers come from."))
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
            self.error.setText(str(exc))
            return
        self.accept()


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
        self._updating = False
        self._scenario = Scenario.from_ids(**DEFAULT)
        self._build()
        self._fill_combos()
        self.set_context(**DEFAULT)

    # ---- building ----

    def _build(self) -> None:
        self.gpu_combo, self.model_combo = QComboBox(), QComboBox()
        self.fmt_combo, self.kv_combo = QComboBox(), QComboBox()
        self.context_spin = QSpinBox()
        self.context_spin.setRange(0, 1_048_576)
        self.context_spin.setSingleStep(256)
        self.context_spin.setValue(512)
        self.context_spin.setSuffix(self.tr(" tokens"))
        self.context_spin.setToolTip(self.tr("Tokens already in each sequence's KV cache"))
        # Small buttons: the panel usually lives in a narrow dock.
        self.load_config_button = QToolButton()
        self.load_config_button.setText("…")
        self.load_config_button.setToolTip(self.tr("Load a Hugging Face config.json"))
        self.add_gpu_button = QToolButton()
        self.add_gpu_button.setText("+")
        self.add_gpu_button.setToolTip(self.tr("Add a GPU that is not in the catalogue"))
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
            (self.tr("GPU"), self.gpu_combo, self.add_gpu_button),
            (self.tr("Model"), self.model_combo, self.load_config_button),
            (self.tr("Weights"), self.fmt_combo, None),
            (self.tr("KV cache"), self.kv_combo, None),
            (self.tr("Context"), self.context_spin, None),
        )
        for row, (label, widget, button) in enumerate(rows):
            selectors.addWidget(QLabel(label), row, 0)
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
        self.batch_plot = self._make_batch_plot()
        self.roof_plot = self._make_roof_plot()
        self.whatif = self._make_whatif()
        self.tabs.addTab(self.batch_plot, self.tr("TPOT vs batch"))
        self.tabs.addTab(self.roof_plot, self.tr("Roofline"))
        self.tabs.addTab(self.whatif, self.tr("What-if"))

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

    def sizeHint(self) -> QSize:
        return QSize(420, 760)

    def _make_batch_plot(self) -> pg.PlotWidget:
        plot = pg.PlotWidget()
        item = plot.getPlotItem()
        item.setLogMode(x=True, y=False)
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setLabel("left", self.tr("TPOT (ms)"))
        item.setLabel("bottom", self.tr("batch (running sequences)"))
        # Powers of two read better than pyqtgraph's log-axis minor labels, which collide.
        ticks = [(math.log10(2**k), str(2**k)) for k in range(11)]
        item.getAxis("bottom").setTicks([ticks, []])
        item.addLegend(offset=(10, 10))
        self.floor_curve = item.plot(
            [], [], pen=pg.mkPen(COLORS["floor"], width=2), name=self.tr("floor")
        )
        self.floor_line = pg.InfiniteLine(
            angle=0,
            movable=False,
            pen=pg.mkPen(COLORS["line"], width=1, style=Qt.PenStyle.DashLine),
            label="",
            labelOpts={"position": 0.5, "color": COLORS["line"], "anchors": [(0.5, 0), (0.5, 0)]},
        )
        item.addItem(self.floor_line)
        self.kv_line = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen("#999999", width=1, style=Qt.PenStyle.DotLine),
            label="",
            labelOpts={"position": 0.6, "color": "#999999", "anchors": [(0, 0.5), (0, 0.5)]},
        )
        item.addItem(self.kv_line)
        self.band_curve = item.plot(
            [],
            [],
            pen=pg.mkPen(COLORS["measured"], width=6),
            connect="pairs",
            name=self.tr("measured p50–p99"),
        )
        self.band_curve.setOpacity(0.45)
        self.measured_curve = item.plot(
            [],
            [],
            pen=None,
            symbol="o",
            symbolSize=9,
            symbolBrush=COLORS["measured"],
            symbolPen=None,
        )
        self.live_curve = item.plot(
            [],
            [],
            pen=None,
            symbol="d",
            symbolSize=11,
            symbolBrush=COLORS["live"],
            symbolPen=None,
            name=self.tr("live probe"),
        )
        self._mbu_texts: list[pg.TextItem] = []
        return plot

    def _make_roof_plot(self) -> pg.PlotWidget:
        plot = pg.PlotWidget()
        item = plot.getPlotItem()
        item.setLogMode(x=True, y=True)
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setLabel("left", self.tr("attainable TFLOP/s"))
        item.setLabel("bottom", self.tr("arithmetic intensity (FLOP/byte)"))
        item.addLegend(offset=(10, 10))
        self.roof_curve = item.plot(
            [], [], pen=pg.mkPen(COLORS["floor"], width=2), name=self.tr("roof")
        )
        self.decode_curve = item.plot(
            [],
            [],
            pen=None,
            symbol="o",
            symbolSize=6,
            symbolBrush="#777777",
            symbolPen=None,
            name=self.tr("decode floor, batch 1…1024"),
        )
        self.batch1_text = pg.TextItem(self.tr("batch 1"), color="#777777", anchor=(-0.15, 0.0))
        item.addItem(self.batch1_text)
        self.ridge_point = item.plot(
            [], [], pen=None, symbol="s", symbolSize=10, symbolBrush=COLORS["line"], symbolPen=None
        )
        self.ridge_text = pg.TextItem(color=COLORS["line"], anchor=(0.0, 1.2))
        item.addItem(self.ridge_text)
        self.roof_measured = item.plot(
            [],
            [],
            pen=None,
            symbol="o",
            symbolSize=9,
            symbolBrush=COLORS["measured"],
            symbolPen=None,
            name=self.tr("measured p50"),
        )
        return plot

    def _make_whatif(self) -> QWidget:
        box = QWidget()
        self.gain_label = QLabel()
        self.gain_label.setWordWrap(True)
        self.whatif_table = QTableWidget(0, 5)
        self.whatif_table.setHorizontalHeaderLabels(
            [
                self.tr("Setup"),
                self.tr("Floor TPOT"),
                self.tr("Best tok/s"),
                self.tr("KV capacity"),
                self.tr("vs now"),
            ]
        )
        self.whatif_table.verticalHeader().setVisible(False)
        rows = self.whatif_table.verticalHeader()
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.whatif_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        header = self.whatif_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in range(1, 5):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.gain_label)
        layout.addWidget(self.whatif_table, 1)
        return box

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

    def set_live_tpot_ms(self, ms: float) -> None:
        """The latest single-stream TPOT (a probe), shown at batch 1 with its MBU."""
        self._live_ms = ms if ms > 0 and math.isfinite(ms) else None
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
        floor = s.floor(1)
        step = s.step(1)
        flops = s.flops(1)
        bound = self.tr("memory-bound") if floor.bound == "memory" else self.tr("compute-bound")
        self.floor_label.setText(
            self.tr("Batch-1 floor: <b>{v:.2f} ms</b>").format(v=floor.seconds * 1e3)
        )
        self.floor_label.setToolTip(
            self.tr(
                "floor = max(bytes ÷ bandwidth, FLOPs ÷ peak)\n"
                "= max({b} ÷ {bw:.0f} GB/s, {f:.1f} GFLOP ÷ {p:.1f} TFLOP/s)\n"
                "= max({m}, {c}) → {bound}\n"
                "context {ctx} tokens; the input embedding is gathered, not read whole"
            ).format(
                b=_gb(step.total_bytes),
                bw=s.gpu.bandwidth_bytes_per_s / 1e9,
                f=flops / 1e9,
                p=s.peak_flops() / 1e12,
                m=_ms(floor.memory_s),
                c=_ms(floor.compute_s),
                bound=bound,
                ctx=s.context,
            )
        )
        self.speed_label.setText(
            self.tr("Best single stream: <b>{v:.1f} tok/s</b>").format(v=1 / floor.seconds)
        )
        self.speed_label.setToolTip(
            self.tr("best tok/s = 1 ÷ batch-1 floor = 1 ÷ {f}").format(f=_ms(floor.seconds))
        )
        cap = s.capacity()
        text = self.tr("KV capacity: <b>{t:,} tokens</b>").format(t=cap.tokens)
        if s.context > 0:
            text += self.tr(" ({n} seqs × {ctx})").format(n=s.max_batch(), ctx=s.context)
        self.capacity_label.setText(text)
        self.capacity_label.setToolTip(
            self.tr(
                "num_gpu_blocks = (memory × 0.987 visible × utilisation {u} − weights {w} − "
                "activation/non-torch reserve) ÷ (block {bs} × {kv:,.0f} B per token)\n"
                "= {blocks:,} blocks = {t:,} tokens; KV bytes per token = 2 × {L} layers × "
                "{h} KV heads × {d} head dim × {e:g} B"
            ).format(
                u=s.gpu_memory_utilization,
                w=_gb(self._resident()),
                bs=cap.block_size,
                kv=self._kv_per_token(),
                blocks=cap.num_gpu_blocks,
                t=cap.tokens,
                L=s.model.num_layers,
                h=s.model.num_kv_heads,
                d=s.model.head_dim,
                e=s.kv.bytes,
            )
        )
        self.ridge_label.setText(
            self.tr("Ridge: <b>{r:.0f} FLOP/B</b> (decode: {i:.1f})").format(
                r=s.ridge(), i=s.intensity(1)
            )
        )
        self.ridge_label.setToolTip(
            self.tr(
                "ridge = peak ÷ bandwidth = {p:.1f} TFLOP/s ÷ {bw:.0f} GB/s\n"
                "batch-1 decode intensity = {f:.1f} GFLOP ÷ {b} = {i:.2f} FLOP/byte"
            ).format(
                p=s.peak_flops() / 1e12,
                bw=s.gpu.bandwidth_bytes_per_s / 1e9,
                f=flops / 1e9,
                b=_gb(step.total_bytes),
                i=s.intensity(1),
            )
        )
        parts = [
            (self.tr("weights"), step.weights_bytes),
            (self.tr("LM head"), step.lm_head_bytes),
            (self.tr("KV"), step.kv_bytes),
        ]
        self.bytes_bar.set_parts(parts)
        self.bytes_label.setText(
            self.tr("Bytes per step {total}: ").format(total=_gb(step.total_bytes))
            + " · ".join(
                f"<span style='color:{c}'>■</span> {name} {_gb(v)}"
                for (name, v), c in zip(parts, BYTES_COLORS, strict=True)
            )
        )
        breakdown = self.tr(
            "weights: transformer layers in {fmt} ({bpp:.3f} B per weight incl. scales)\n"
            "LM head: {V:,} × {h:,} read whole every step\n"
            "KV: batch 1 × {ctx} tokens × {kv:,.0f} B per token"
        ).format(
            fmt=s.fmt.name,
            bpp=s.fmt.bytes_per_param,
            V=s.model.vocab_size,
            h=s.model.hidden_size,
            ctx=s.context,
            kv=self._kv_per_token(),
        )
        self.bytes_label.setToolTip(breakdown)
        self.bytes_bar.setToolTip(breakdown)
        self._refresh_batch_plot()
        self._refresh_roof_plot()
        self._refresh_measured()
        self._refresh_mbu_label()
        self._refresh_whatif()

    def _resident(self) -> float:
        return weight_bytes_resident(self._scenario.model, self._scenario.fmt)

    def _kv_per_token(self) -> float:
        return kv_bytes_per_token(self._scenario.model, self._scenario.kv)

    def _refresh_batch_plot(self) -> None:
        s = self._scenario
        max_batch = s.max_batch()
        # Past the KV capacity the floor is unreachable: draw a little beyond it, not to 1024.
        limit = max(64, 2 * max_batch, *(2 * m.batch for m in self._measured))
        curve = s.floor_curve(tuple(b for b in BATCH_GRID if b <= limit) or BATCH_GRID[:1])
        self.floor_curve.setData([b for b, _ in curve], [ms for _, ms in curve])
        floor_ms = curve[0][1]
        self.floor_line.setValue(floor_ms)
        self.floor_line.label.setFormat(self.tr("batch-1 floor {v:.1f} ms").format(v=floor_ms))
        self.floor_line.setToolTip(self.floor_label.toolTip())
        self.kv_line.setVisible(0 < max_batch <= BATCH_GRID[-1])
        if max_batch > 0:
            self.kv_line.setValue(math.log10(max_batch))
            self.kv_line.label.setFormat(self.tr("KV full\nat {n}").format(n=max_batch))

    def _refresh_roof_plot(self) -> None:
        s = self._scenario
        peak_t = s.peak_flops() / 1e12
        bw = s.gpu.bandwidth_bytes_per_s
        x = np.logspace(-1, 4, 200)
        self.roof_curve.setData(x, np.minimum(peak_t, x * bw / 1e12))
        pts = [
            (s.intensity(b), min(s.peak_flops(), s.flops(b) / s.floor(b).seconds) / 1e12)
            for b in BATCH_GRID
        ]
        self.decode_curve.setData([p[0] for p in pts], [p[1] for p in pts])
        self.batch1_text.setPos(math.log10(pts[0][0]), math.log10(pts[0][1]))
        ridge = s.ridge()
        self.ridge_point.setData([ridge], [peak_t])
        self.ridge_text.setText(self.tr("ridge {r:.0f} FLOP/B").format(r=ridge))
        self.ridge_text.setPos(math.log10(ridge), math.log10(peak_t))

    def _refresh_measured(self) -> None:
        s = self._scenario
        item = self.batch_plot.getPlotItem()
        for text in self._mbu_texts:
            item.removeItem(text)
        self._mbu_texts = []
        xs = [m.batch for m in self._measured]
        self.measured_curve.setData(xs, [m.p50_ms for m in self._measured])
        band_x: list[float] = []
        band_y: list[float] = []
        for m in self._measured:
            band_x += [m.batch, m.batch]
            band_y += [m.p50_ms, m.p99_ms]
            text = pg.TextItem(
                f"{s.mbu(m.batch, m.p50_ms) * 100:.0f}%",
                color=COLORS["measured"],
                anchor=(-0.1, 0.5),
            )
            text.setPos(math.log10(max(m.batch, 1e-3)), m.p50_ms)
            item.addItem(text)
            self._mbu_texts.append(text)
        self.band_curve.setData(band_x, band_y)
        if self._live_ms is not None:
            self.live_curve.setData([1.0], [self._live_ms])
        else:
            self.live_curve.setData([], [])
        # y from 0 so the floor's distance from zero is honest and its label fits below it
        _, ys = self.floor_curve.getData()
        top = max([*(ys if ys is not None else [1.0]), *band_y, self._live_ms or 0.0])
        item.setYRange(0, top * 1.08, padding=0)
        roof = [
            (s.intensity(max(1, round(m.batch))), s.achieved_flops(m.batch, m.p50_ms) / 1e12)
            for m in self._measured
        ]
        self.roof_measured.setData([r[0] for r in roof], [r[1] for r in roof])

    def _refresh_mbu_label(self) -> None:
        s = self._scenario
        latest: tuple[float, float, str] | None = None
        if self._live_ms is not None:
            latest = (1.0, self._live_ms, self.tr("live probe"))
        elif self._measured:
            first = min(self._measured, key=lambda m: m.batch)
            latest = (
                first.batch,
                first.p50_ms,
                self.tr("p50 at batch {b:g}").format(b=first.batch),
            )
        if latest is None:
            self.mbu_label.setText(self.tr("MBU: run a probe or sweep"))
            self.mbu_label.setToolTip(
                self.tr("MBU = bytes per step ÷ measured TPOT ÷ peak bandwidth")
            )
            return
        batch, ms, what = latest
        value = s.mbu(batch, ms)
        self.mbu_label.setText(
            self.tr("MBU: <b>{v:.1f} %</b> at {ms:.1f} ms ({what})").format(
                v=value * 100, ms=ms, what=what
            )
        )
        self.mbu_label.setToolTip(
            self.tr(
                "MBU = bytes per step ÷ measured TPOT ÷ peak bandwidth\n"
                "= {b} ÷ {ms:.2f} ms ÷ {bw:.0f} GB/s = {v:.1f} %\n"
                "MFU = {f:.1f} GFLOP ÷ {ms:.2f} ms ÷ {p:.1f} TFLOP/s = {u:.2f} %"
            ).format(
                b=_gb(s.step(max(1, round(batch))).total_bytes),
                ms=ms,
                bw=s.gpu.bandwidth_bytes_per_s / 1e9,
                v=value * 100,
                f=s.flops(max(1, round(batch))) / 1e9,
                p=s.peak_flops() / 1e12,
                u=s.achieved_flops(batch, ms) / s.peak_flops() * 100,
            )
        )

    def _refresh_whatif(self) -> None:
        s = self._scenario
        table = self.whatif_table
        table.setRowCount(0)
        fmt_rows = s.what_if_formats()
        gpu_rows = s.what_if_gpus()
        self._section(
            self.tr("{model} on {gpu}, every weight format").format(
                model=s.model.name, gpu=s.gpu.name
            )
        )
        for row in fmt_rows:
            self._whatif_row(row, row.fmt.name)
        self._section(
            self.tr("{model} in {fmt}, other GPUs").format(model=s.model.name, fmt=s.fmt.name)
        )
        for row in gpu_rows:
            self._whatif_row(row, row.gpu.name)
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
                x=_gb(bf16.step(1).total_bytes), y=_gb(int4.step(1).total_bytes)
            )
        )

    def _section(self, title: str) -> None:
        table = self.whatif_table
        r = table.rowCount()
        table.insertRow(r)
        item = QTableWidgetItem(title)
        font = item.font()
        font.setBold(True)
        item.setFont(font)
        table.setItem(r, 0, item)
        table.setSpan(r, 0, 1, 5)

    def _whatif_row(self, row: WhatIf, label: str) -> None:
        table = self.whatif_table
        r = table.rowCount()
        table.insertRow(r)
        bw = row.gpu.bandwidth_bytes_per_s / 1e9
        floor_tip = self.tr("floor = {b} per step ÷ {bw:.0f} GB/s ({fmt}, {gpu}, batch 1)").format(
            b=_gb(row.bytes_per_step), bw=bw, fmt=row.fmt.name, gpu=row.gpu.name
        )
        fits = row.kv_tokens > 0
        current = row.gpu.id == self._scenario.gpu.id and row.fmt.id == self._scenario.fmt.id
        cells = [
            (label, row.gpu.source if label == row.gpu.name else row.fmt.source),
            (f"{row.floor_ms:.2f} ms", floor_tip),
            (f"{row.tok_s:.0f}", self.tr("1000 ÷ {f:.2f} ms").format(f=row.floor_ms)),
            (
                f"{row.kv_tokens:,}" if fits else self.tr("does not fit"),
                self.tr("tokens of KV cache at gpu_memory_utilization {u}, block 16").format(
                    u=self._scenario.gpu_memory_utilization
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
            table.setItem(r, col, item)

    def whatif_rows(self) -> list[list[str]]:
        """The what-if table as text (section rows have one cell)."""
        rows = []
        for r in range(self.whatif_table.rowCount()):
            cells = [self.whatif_table.item(r, c) for c in range(5)]
            rows.append([c.text() for c in cells if c is not None])
        return rows
