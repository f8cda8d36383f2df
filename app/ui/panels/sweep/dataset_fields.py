"""The Sweep form's dataset rows: which dataset, its file, and the settings of the chosen one
only (random lengths, shared prefixes, a trace's speed-up, a conversation's turns and think
time); they become the SweepSpec's dataset fields."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from app.bench.datasets.conversations import MAX_TURNS
from app.paths import resources_dir

SYNTHETIC_DATASET = "datasets/sharegpt_synthetic.json"
DATASET_KEYS = ("synthetic", "conversations", "prefix", "mooncake", "sharegpt", "random", "prompts")
# Datasets that read a file; the trace and the conversations have a shipped one.
FILE_DATASETS = ("sharegpt", "prompts", "mooncake", "conversations")
MAX_THINK_S = 3600.0


def row_of(*widgets: QWidget) -> QWidget:
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    for w in widgets:
        row.addWidget(w)
    return box


def _seconds(decimals: int = 2) -> QDoubleSpinBox:
    box = QDoubleSpinBox(minimum=0.0, maximum=MAX_THINK_S, value=0.0)
    box.setDecimals(decimals)
    box.setSingleStep(0.5)
    return box


class DatasetFields(QObject):
    """The dataset rows of the form's left column; `row(form, key, field)` adds a labelled
    row (its label in `labels[key]`)."""

    def __init__(
        self,
        form: QFormLayout,
        row: Callable[[QFormLayout, str, QWidget], None],
        labels: dict[str, QLabel],
        parent: QWidget,
    ) -> None:
        # Long but flat: the dataset rows in the order they appear.
        super().__init__(parent)
        self._parent = parent
        self.labels = labels
        self.dataset = QComboBox()
        for key in DATASET_KEYS:
            self.dataset.addItem("", key)
        self.dataset.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.dataset.setMinimumContentsLength(12)
        self.dataset.currentIndexChanged.connect(self.dataset_changed)
        row(form, "dataset", self.dataset)
        self.dataset_path = QLineEdit()
        self.dataset_path.setMinimumWidth(90)
        self.browse_dataset_button = QPushButton()
        self.browse_dataset_button.clicked.connect(self._browse_dataset)
        self.dataset_row = row_of(self.dataset_path, self.browse_dataset_button)
        row(form, "dataset_file", self.dataset_row)
        self.input_len = QSpinBox(minimum=1, maximum=1_000_000, value=256)
        self.output_len = QSpinBox(minimum=1, maximum=1_000_000, value=64)
        self.in_label, self.out_label = QLabel(), QLabel()
        self.lengths_row = row_of(self.in_label, self.input_len, self.out_label, self.output_len)
        row(form, "random", self.lengths_row)
        # The shared-prefix dataset: how many distinct prefixes, their length, each prompt's
        # unique suffix and the reply length (vLLM's prefix_repetition defaults).
        self.prefix_len = QSpinBox(minimum=1, maximum=1_000_000, value=256)
        self.suffix_len = QSpinBox(minimum=1, maximum=1_000_000, value=256)
        self.num_prefixes = QSpinBox(minimum=1, maximum=1_000_000, value=10)
        self.prefix_output_len = QSpinBox(minimum=1, maximum=1_000_000, value=128)
        self.prefix_label, self.suffix_label = QLabel(), QLabel()
        self.num_prefixes_label, self.prefix_out_label = QLabel(), QLabel()
        self.prefix_row = row_of(
            self.num_prefixes_label, self.num_prefixes, self.prefix_label, self.prefix_len
        )
        self.suffix_row = row_of(
            self.suffix_label, self.suffix_len, self.prefix_out_label, self.prefix_output_len
        )
        row(form, "prefix", self.prefix_row)
        row(form, "suffix", self.suffix_row)
        # Mooncake trace replay: the trace's clock sped up (the file is the dataset file).
        self.trace_speedup = QDoubleSpinBox(minimum=0.01, maximum=1000.0, value=1.0)
        self.trace_speedup.setDecimals(2)
        row(form, "speedup", self.trace_speedup)
        # Conversations, one row (the form must leave the charts room at 1280x720): turns per
        # session (the lowest value is "all": the CLI needs >= 2) and the user's think time
        # before each later turn, mean and spread.
        self.max_turns = QSpinBox(minimum=1, maximum=MAX_TURNS, value=1)
        self.think_time = _seconds()
        self.think_stddev = _seconds()
        self.turns_label, self.think_label, self.stddev_label = QLabel(), QLabel(), QLabel("±")
        self.session_row = row_of(
            self.turns_label,
            self.max_turns,
            self.think_label,
            self.think_time,
            self.stddev_label,
            self.think_stddev,
        )
        row(form, "session", self.session_row)

    def retranslate(self) -> None:
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
        texts = {
            "dataset": self.tr("Dataset"),
            "dataset_file": self.tr("Dataset file"),
            "random": self.tr("Random tokens"),
            "prefix": self.tr("Shared prefixes"),
            "suffix": self.tr("Per prompt"),
            "speedup": self.tr("Trace speed-up"),
            "session": self.tr("Each session"),
        }
        for key, text in texts.items():
            self.labels[key].setText(text)
        self.browse_dataset_button.setText(self.tr("Browse…"))
        self.in_label.setText(self.tr("in"))
        self.out_label.setText(self.tr("out"))
        self.num_prefixes_label.setText(self.tr("count"))
        self.prefix_label.setText(self.tr("length"))
        self.suffix_label.setText(self.tr("suffix"))
        self.prefix_out_label.setText(self.tr("out"))
        self.turns_label.setText(self.tr("turns"))
        self.think_label.setText(self.tr("think"))
        for box in (self.think_time, self.think_stddev):
            box.setSuffix(self.tr(" s"))
        self.max_turns.setSpecialValueText(self.tr("all"))
        self._tooltips()
        self.dataset_changed()

    def _tooltips(self) -> None:
        tips = (
            (self.num_prefixes, self.tr(
                "Distinct prefixes; the prompts take turns using them "
                "(vLLM: --prefix-repetition-num-prefixes).")),
            (self.prefix_len, self.tr(
                "Tokens in each shared prefix, which a prefix cache can reuse "
                "(--prefix-repetition-prefix-len).")),
            (self.suffix_len, self.tr(
                "Unique tokens after the prefix in every prompt "
                "(--prefix-repetition-suffix-len).")),
            (self.trace_speedup, self.tr(
                "Replay the trace this many times faster than its timestamps "
                "(--trace-speedup). Its timestamps replace the request rate.")),
            (self.prefix_output_len, self.tr(
                "Tokens requested per reply (--prefix-repetition-output-len).")),
            (self.max_turns, self.tr(
                "At most this many user turns (requests) of each conversation; 'all' sends "
                "every turn (--max-turns).")),
            (self.think_time, self.tr(
                "Mean seconds a user thinks before each turn after the first (--think-time; "
                "AIPerf: --conversation-turn-delay-mean, in ms).")),
            (self.think_stddev, self.tr(
                "Standard deviation of the think time, a normal cut at 0; 0 keeps it fixed "
                "(--think-time-stddev).")),
            (self.stddev_label, self.tr("Standard deviation of the think time")),
        )  # fmt: skip
        for widget, tip in tips:
            widget.setToolTip(tip)

    def kind(self) -> str:
        return str(self.dataset.currentData())

    def dataset_changed(self) -> None:
        kind = self.kind()
        self.dataset_row.setEnabled(kind in FILE_DATASETS)
        placeholders = {
            "mooncake": self.tr("Empty: the shipped synthetic trace"),
            "conversations": self.tr("Empty: the shipped conversations"),
        }
        self.dataset_path.setPlaceholderText(placeholders.get(kind, ""))
        self.lengths_row.setEnabled(kind == "random")
        # Each dataset's own rows only while it is chosen: the usual form does not grow.
        shown = {
            "prefix": (self.prefix_row, self.suffix_row),
            "mooncake": (self.trace_speedup,),
            "conversations": (self.session_row,),
        }
        owners = {"prefix": "prefix", "suffix": "prefix", "speedup": "mooncake"}
        owners |= {"session": "conversations"}
        for owner, widgets in shown.items():
            for widget in widgets:
                widget.setVisible(kind == owner)
        for key, owner in owners.items():
            self.labels[key].setVisible(kind == owner)

    def _browse_dataset(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self._parent, self.tr("Choose a dataset file"))
        if path:
            self.dataset_path.setText(path)

    def spec_fields(self) -> dict[str, Any]:
        """The SweepSpec's dataset fields; ValueError with a readable message."""
        kind = self.kind()
        path = self.dataset_path.text().strip()
        if kind in ("mooncake", "conversations") and path and not Path(path).is_file():
            raise ValueError(self.tr("The dataset file {0} does not exist.").format(path))
        if kind in ("sharegpt", "prompts"):
            if not path:
                raise ValueError(self.tr("Choose a dataset file, or pick another dataset."))
            if not Path(path).is_file():
                raise ValueError(self.tr("The dataset file {0} does not exist.").format(path))
        if kind == "synthetic":
            kind, path = "sharegpt", str(resources_dir() / SYNTHETIC_DATASET)
        elif kind not in FILE_DATASETS:
            path = ""
        turns = self.max_turns.value()
        return {
            "dataset": kind,
            "dataset_path": path,
            "random_input_len": self.input_len.value(),
            "random_output_len": self.output_len.value(),
            "prefix_len": self.prefix_len.value(),
            "suffix_len": self.suffix_len.value(),
            "num_prefixes": self.num_prefixes.value(),
            "prefix_output_len": self.prefix_output_len.value(),
            "trace_speedup": self.trace_speedup.value(),
            # the spin box's lowest value reads "all": no --max-turns
            "max_turns": 0 if turns == self.max_turns.minimum() else turns,
            "think_time_s": round(self.think_time.value(), self.think_time.decimals()),
            "think_stddev_s": round(self.think_stddev.value(), self.think_stddev.decimals()),
        }
