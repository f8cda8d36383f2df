"""The Sweep form's values kept across restarts: each written to QSettings when it changes (and
all of them when a run starts), read back when the panel is made. Only what the form shows:
loads, dataset and its settings, prompts, label, folder, the advanced settings and SLOs. No
key is among them (the endpoint and its key live in the profile and the keyring)."""

from __future__ import annotations

import json
import math
from typing import Any

from PySide6.QtCore import QSettings, SignalInstance
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox, QWidget

from app.ui.panels.sweep.form import SweepForm

GROUP = "sweep_form"
SLOS = "slos"


def form_fields(form: SweepForm) -> dict[str, QWidget]:
    """The widgets whose values are kept, by settings name. The preset comes first and the
    dataset before its own settings, so restoring in this order shows the right rows."""
    fields: dict[str, QWidget] = {
        "preset": form.preset,
        "rates": form.rates,
        "concurrencies": form.concurrencies,
        "dataset": form.dataset,
        "dataset_path": form.dataset_path,
        "input_len": form.input_len,
        "output_len": form.output_len,
        "prefix_len": form.prefix_len,
        "suffix_len": form.suffix_len,
        "num_prefixes": form.num_prefixes,
        "prefix_output_len": form.prefix_output_len,
        "trace_speedup": form.trace_speedup,
        "max_turns": form.max_turns,
        "think_time": form.think_time,
        "think_stddev": form.think_stddev,
        "num_prompts": form.num_prompts,
        "seed": form.seed,
        "ignore_eos": form.ignore_eos,
        "label": form.label,
        "results_root": form.results_root,
    }
    for key, field in form.advanced.fields.items():
        fields[f"advanced_{key}"] = field.widget
    return fields


def widget_value(widget: QWidget) -> Any:
    if isinstance(widget, QLineEdit):
        return widget.text()
    if isinstance(widget, QCheckBox):
        return widget.isChecked()
    if isinstance(widget, QComboBox):
        return widget.currentData()
    if isinstance(widget, QSpinBox | QDoubleSpinBox):
        return widget.value()
    raise TypeError(f"no stored value for a {type(widget).__name__}")


def set_widget_value(widget: QWidget, value: Any) -> None:
    """Show a stored value; one that no longer fits (a dataset renamed, a number out of range,
    a hand-edited file) is left out and the widget keeps its default."""
    try:
        if isinstance(widget, QLineEdit):
            widget.setText(str(value))
        elif isinstance(widget, QCheckBox):
            widget.setChecked(str(value).lower() in ("true", "1"))
        elif isinstance(widget, QComboBox):
            index = widget.findData(str(value))
            if index >= 0:
                widget.setCurrentIndex(index)
        elif isinstance(widget, QSpinBox):
            number = int(value)
            if widget.minimum() <= number <= widget.maximum():
                widget.setValue(number)
        elif isinstance(widget, QDoubleSpinBox):
            real = float(value)
            if math.isfinite(real) and widget.minimum() <= real <= widget.maximum():
                widget.setValue(real)
    except (TypeError, ValueError):
        return


def _changed(widget: QWidget) -> SignalInstance:
    if isinstance(widget, QLineEdit):
        return widget.textChanged
    if isinstance(widget, QCheckBox):
        return widget.toggled
    if isinstance(widget, QComboBox):
        return widget.currentIndexChanged
    if isinstance(widget, QSpinBox | QDoubleSpinBox):
        return widget.valueChanged
    raise TypeError(f"no change signal for a {type(widget).__name__}")


class FormState:
    """Keeps one form's values in `store` under GROUP."""

    def __init__(self, form: SweepForm, store: QSettings) -> None:
        self._form = form
        self._store = store
        self._fields = form_fields(form)

    def restore(self) -> None:
        """Show the stored values (none stored: the form keeps its defaults)."""
        for name, widget in self._fields.items():
            key = f"{GROUP}/{name}"
            if self._store.contains(key):
                set_widget_value(widget, self._store.value(key))
        slos = self._store.value(f"{GROUP}/{SLOS}")
        if slos is not None:
            try:
                loaded = json.loads(str(slos))
            except ValueError:
                loaded = None
            if isinstance(loaded, list) and all(isinstance(s, str) for s in loaded):
                self._form.slo_summary.set_slos(loaded)

    def watch(self) -> None:
        """From now on, write each value when it changes."""
        for name, widget in self._fields.items():
            _changed(widget).connect(lambda *_a, n=name, w=widget: self._save_one(n, w))
        self._form.slo_summary.changed.connect(lambda _s: self._save_slos())

    def save(self) -> None:
        """Write every value now (a run starts: what it ran with is what comes back)."""
        for name, widget in self._fields.items():
            self._save_one(name, widget)
        self._save_slos()
        self._store.sync()

    def _save_one(self, name: str, widget: QWidget) -> None:
        self._store.setValue(f"{GROUP}/{name}", widget_value(widget))

    def _save_slos(self) -> None:
        self._store.setValue(f"{GROUP}/{SLOS}", json.dumps(self._form.slo_summary.slos()))
