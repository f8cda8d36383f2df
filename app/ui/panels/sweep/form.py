"""The Sweep tab's settings form: presets, loads, dataset, prompts, results folder, and the
advanced settings with the SLOs; it builds the SweepSpec a run starts from."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
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

from app.paths import resources_dir
from app.ui.exports.tooltips import metric_tooltips
from app.ui.panels.sweep.advanced import AdvancedSettings
from app.ui.panels.sweep.layout import FormColumns
from app.ui.panels.sweep.slo_editor import DEFAULTS as SLO_DEFAULTS
from app.ui.panels.sweep.slo_editor import SloSummary
from app.ui.worker import SweepSpec, default_results_root, parse_concurrencies, parse_rates

SYNTHETIC_DATASET = "datasets/sharegpt_synthetic.json"


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
        for key in (
            "synthetic",
            "conversations",
            "prefix",
            "mooncake",
            "sharegpt",
            "random",
            "prompts",
        ):
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
        # The shared-prefix dataset: how many distinct prefixes, their length, each prompt's
        # unique suffix and the reply length (vLLM's prefix_repetition defaults).
        self.prefix_len = QSpinBox(minimum=1, maximum=1_000_000, value=256)
        self.suffix_len = QSpinBox(minimum=1, maximum=1_000_000, value=256)
        self.num_prefixes = QSpinBox(minimum=1, maximum=1_000_000, value=10)
        self.prefix_output_len = QSpinBox(minimum=1, maximum=1_000_000, value=128)
        self.prefix_label, self.suffix_label = QLabel(), QLabel()
        self.num_prefixes_label, self.prefix_out_label = QLabel(), QLabel()
        self.prefix_row = self._row(
            self.num_prefixes_label, self.num_prefixes, self.prefix_label, self.prefix_len
        )
        self.suffix_row = self._row(
            self.suffix_label, self.suffix_len, self.prefix_out_label, self.prefix_output_len
        )
        row(form, "prefix", self.prefix_row)
        row(form, "suffix", self.suffix_row)
        # Mooncake trace replay: the trace's clock sped up (the file is the dataset file).
        self.trace_speedup = QDoubleSpinBox(minimum=0.01, maximum=1000.0, value=1.0)
        self.trace_speedup.setDecimals(2)
        row(form, "speedup", self.trace_speedup)
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
        self._dataset_changed()
        self.apply_preset("demo")

    def retranslate(self) -> None:
        """The form's fixed strings in the UI language; its values are kept."""
        texts = {
            "preset": self.tr("Preset"),
            "rates": self.tr("Request rates"),
            "concurrencies": self.tr("Concurrencies"),
            "dataset": self.tr("Dataset"),
            "dataset_file": self.tr("Dataset file"),
            "random": self.tr("Random tokens"),
            "prefix": self.tr("Shared prefixes"),
            "suffix": self.tr("Per prompt"),
            "speedup": self.tr("Trace speed-up"),
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
            ("prefix", self.tr("Shared prefixes (prefix caching)")),
            ("mooncake", self.tr("Mooncake trace replay")),
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
        self.num_prefixes_label.setText(self.tr("count"))
        self.prefix_label.setText(self.tr("length"))
        self.suffix_label.setText(self.tr("suffix"))
        self.prefix_out_label.setText(self.tr("out"))
        self.num_prefixes.setToolTip(
            self.tr(
                "Distinct prefixes; the prompts take turns using them "
                "(vLLM: --prefix-repetition-num-prefixes)."
            )
        )
        self.prefix_len.setToolTip(
            self.tr(
                "Tokens in each shared prefix, which a prefix cache can reuse "
                "(--prefix-repetition-prefix-len)."
            )
        )
        self.suffix_len.setToolTip(
            self.tr(
                "Unique tokens after the prefix in every prompt (--prefix-repetition-suffix-len)."
            )
        )
        self.trace_speedup.setToolTip(
            self.tr(
                "Replay the trace this many times faster than its timestamps "
                "(--trace-speedup). Its timestamps replace the request rate."
            )
        )
        self.prefix_output_len.setToolTip(
            self.tr("Tokens requested per reply (--prefix-repetition-output-len).")
        )
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

    @staticmethod
    def _row(*widgets: QWidget) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        for w in widgets:
            row.addWidget(w)
        return box

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
        self.dataset_row.setEnabled(kind in ("sharegpt", "prompts", "mooncake"))
        self.dataset_path.setPlaceholderText(
            self.tr("Empty: the shipped synthetic trace") if kind == "mooncake" else ""
        )
        self.rates.setEnabled(kind != "mooncake")  # a trace sends on its own timestamps
        for widget in (self.trace_speedup, self.labels["speedup"]):
            widget.setVisible(kind == "mooncake")
        self.lengths_row.setEnabled(kind == "random")
        # The prefix rows only while that dataset is chosen: the usual form does not grow.
        for widget in (
            self.prefix_row,
            self.suffix_row,
            self.labels["prefix"],
            self.labels["suffix"],
        ):
            widget.setVisible(kind == "prefix")
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

    def build_spec(self, flags: Sequence[str] = ()) -> SweepSpec:
        """The form as a SweepSpec (result_dir not yet set), `flags` added to its worker flags;
        ValueError with a readable message."""
        rates = parse_rates(self.rates.text())
        concs = parse_concurrencies(self.concurrencies.text())
        kind = self.dataset.currentData()
        path = self.dataset_path.text().strip()
        if kind == "mooncake" and path and not Path(path).is_file():
            raise ValueError(self.tr("The dataset file {0} does not exist.").format(path))
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
            dataset=kind,
            dataset_path=path,
            random_input_len=self.input_len.value(),
            random_output_len=self.output_len.value(),
            prefix_len=self.prefix_len.value(),
            suffix_len=self.suffix_len.value(),
            num_prefixes=self.num_prefixes.value(),
            prefix_output_len=self.prefix_output_len.value(),
            trace_speedup=self.trace_speedup.value(),
            num_prompts=self.num_prompts.value(),
            seed=self.seed.value(),
            ignore_eos=self.ignore_eos.isChecked(),
            label=label,
            extra_args=[*self.advanced.argv(), *flags],
            slos=self.slo_summary.slos(),
            search=search,
        )
