"""The Sweep tab's settings form: presets, loads, dataset, prompts, results folder, and the
advanced settings with the SLOs; it builds the SweepSpec a run starts from."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QToolButton,
    QWidget,
)

from app.commands.argv import SweepSpec
from app.ui.exports.tooltips import metric_tooltips
from app.ui.panels.sweep.advanced import AdvancedSettings
from app.ui.panels.sweep.dataset_fields import DatasetFields, row_of
from app.ui.panels.sweep.form_values import parse_concurrencies, parse_rates
from app.ui.panels.sweep.layout import FormColumns
from app.ui.panels.sweep.presets import PRESET_KEYS, apply_preset, preset_texts
from app.ui.panels.sweep.slo_editor import SloSummary
from app.ui.results_root import default_results_root


class SweepForm(FormColumns):
    """The form in two columns (one when narrow); retranslate() is called by the panel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        # Long but flat: the widgets in the order they appear; one layout read top to bottom.
        super().__init__(parent)
        self.labels: dict[str, QLabel] = {}

        def row(layout: QFormLayout, key: str, field: QWidget) -> None:
            self.labels[key] = QLabel()
            layout.addRow(self.labels[key], field)

        form, more = self.left, self.right
        self.preset = QComboBox()
        for key in PRESET_KEYS:
            self.preset.addItem("", key)
        self.preset.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.preset.setMinimumContentsLength(12)
        self.preset.activated.connect(lambda _i: self.apply_preset(self.preset.currentData()))
        row(form, "preset", self.preset)
        self.rates = QLineEdit()
        row(form, "rates", self.rates)
        self.concurrencies = QLineEdit()
        row(form, "concurrencies", self.concurrencies)
        for edit in (self.rates, self.concurrencies):  # hand edits leave a grid preset
            edit.textEdited.connect(self._hand_edit)
        self.data = d = DatasetFields(form, row, self.labels, self)
        # The dataset widgets by name on the form too (the window's scripts and tests use them).
        self.dataset, self.dataset_path, self.dataset_row = d.dataset, d.dataset_path, d.dataset_row
        self.input_len, self.output_len, self.lengths_row = d.input_len, d.output_len, d.lengths_row
        self.prefix_len, self.suffix_len = d.prefix_len, d.suffix_len
        self.num_prefixes, self.prefix_output_len = d.num_prefixes, d.prefix_output_len
        self.prefix_row, self.suffix_row, self.trace_speedup = (
            d.prefix_row,
            d.suffix_row,
            d.trace_speedup,
        )
        self.max_turns, self.think_time, self.think_stddev = (
            d.max_turns,
            d.think_time,
            d.think_stddev,
        )
        self.dataset.currentIndexChanged.connect(self._dataset_changed)
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
        row(more, "results", row_of(self.results_root, self.browse_results_button))
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
        # The SLOs the capacity preset filled in (not the user's): dropped by other presets.
        self.preset_slos: list[str] = []
        self.slo_label = QLabel()
        self.advanced.form.addRow(self.slo_label, self.slo_summary)
        self.advanced_toggle.toggled.connect(self._show_advanced)
        # These settings as a shell command (the panel fills the clipboard: it knows the target).
        self.copy_button = QPushButton()
        toggle_row = row_of(self.advanced_toggle, self.copy_button)
        toggle_layout = toggle_row.layout()
        assert isinstance(toggle_layout, QHBoxLayout)  # row_of lays its widgets in a row
        toggle_layout.insertStretch(1)
        more.addRow(toggle_row)
        more.addRow(self.advanced)
        self._dataset_changed()
        self.apply_preset("demo")

    def retranslate(self) -> None:
        """The form's fixed strings in the UI language; its values are kept."""
        texts = {
            "preset": self.tr("Preset"),
            "rates": self.tr("Request rates"),
            "concurrencies": self.tr("Concurrencies"),
            "seed": self.tr("Seed"),
            "label": self.tr("Label"),
            "results": self.tr("Results folder"),
        }
        for key, text in texts.items():
            self.labels[key].setText(text)
        for key, text, tip in preset_texts():
            index = self.preset.findData(key)
            self.preset.setItemText(index, text)
            self.preset.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        tips = metric_tooltips()
        self.rates.setToolTip(tips["request_rate"] + "\n" + self.tr("Comma-separated."))
        self.concurrencies.setToolTip(tips["max_concurrency"] + "\n" + self.tr("Comma-separated."))
        self.browse_results_button.setText(self.tr("Browse…"))
        self.data.retranslate()
        self._count_label()
        self.ignore_eos.setText(self.tr("Ignore EOS"))
        self.ignore_eos.setToolTip(self.tr("Always generate the requested output length."))
        self.label.setToolTip(self.tr("File names become LABEL_rateR_concC.json."))
        self.slo_label.setText(self.tr("SLOs"))
        self.slo_summary.setToolTip(
            self.tr("Latency goals: each point shows pass/fail per SLO and its goodput.")
        )
        self.advanced_toggle.setText(self.tr("Advanced settings"))
        self.advanced_toggle.setToolTip(
            self.tr("Burstiness, warm-up requests, temperature, load workers, request time-out")
        )

    def _show_advanced(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        self.advanced_toggle.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )

    def apply_preset(self, key: str) -> None:
        """Fill the form from a preset: the demo, the field guide's experiments A and B, the
        capacity search."""
        apply_preset(self, key)

    def _hand_edit(self, _text: str) -> None:
        if self.preset.currentData() != "capacity":  # the search keeps its first/highest pair
            self.preset.setCurrentIndex(self.preset.findData("custom"))

    def _dataset_changed(self) -> None:
        self.rates.setEnabled(self.data.kind() != "mooncake")  # a trace sends on its own clock
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

    def _browse_results(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Choose the results folder"))
        if path:
            self.results_root.setText(path)

    def build_spec(self, extras: Mapping[str, Any] | None = None) -> SweepSpec:
        """The form as a SweepSpec (result_dir not yet set), with the advanced settings and
        `extras` (what the window adds: RunExtras.spec_fields); ValueError with a readable
        message."""
        rates = parse_rates(self.rates.text())
        concs = parse_concurrencies(self.concurrencies.text())
        data = self.data.spec_fields()
        kind = data["dataset"]
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
            if kind == "mooncake":
                raise ValueError(
                    self.tr(
                        "Find capacity sets the pace, a trace has its own: choose another dataset."
                    )
                )
            search = {"start": float(concs[0]), "max": float(concs[1])}
        return SweepSpec(
            request_rates=rates,
            max_concurrencies=concs,
            **data,
            num_prompts=self.num_prompts.value(),
            seed=self.seed.value(),
            ignore_eos=self.ignore_eos.isChecked(),
            label=label,
            slos=self.slo_summary.slos(),
            search=search,
            **self.advanced.values(),
            **(extras or {}),
        )
