"""The Sweep tab's advanced run settings: each one a form row and the SweepSpec fields it sets.

A setting is an `AdvancedField`: a widget, its label and tooltip (functions, so a language
switch can re-make them) and a function from the widget's value to SweepSpec fields (typed:
a field the run does not have is a TypeError where the spec is built, not a worker that stops
on an unknown flag). New settings are added with `AdvancedSettings.add_field`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QSpinBox, QWidget

from app.ui.retranslate import is_language_change


@dataclass
class AdvancedField:
    """One advanced setting: its widget, words (made in the UI language) and the SweepSpec
    fields it sets ({} where the engine's default applies)."""

    key: str
    widget: QWidget
    label: Callable[[], str]
    tooltip: Callable[[], str]
    values: Callable[[], dict[str, Any]]
    reset: Callable[[], None]


def _double(lo: float, hi: float, value: float, decimals: int, step: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(lo, hi)
    box.setDecimals(decimals)
    box.setSingleStep(step)
    box.setValue(value)
    return box


class AdvancedSettings(QWidget):
    """A form of advanced sweep settings; `values()` is what they set in the SweepSpec."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.fields: dict[str, AdvancedField] = {}
        self._labels: dict[str, QLabel] = {}
        self._add_traffic_fields()
        self._add_client_fields()
        self.retranslate()

    def _add_traffic_fields(self) -> None:
        """What is sent: the arrivals' shape, warm-up requests, the sampling temperature."""
        self.burstiness = _double(0.01, 100.0, 1.0, 2, 0.1)
        self.add_field(
            AdvancedField(
                "burstiness",
                self.burstiness,
                lambda: self.tr("Burstiness"),
                lambda: self.tr(
                    "Shape of the gaps between arrivals at a finite request rate (a gamma "
                    "process, as vllm bench serve's --burstiness): 1 = Poisson, below 1 burstier, "
                    "above 1 more regular. No effect at rate inf."
                ),
                lambda: (
                    {} if self.burstiness.value() == 1.0 else {"burstiness": _num(self.burstiness)}
                ),
                lambda: self.burstiness.setValue(1.0),
            )
        )
        self.warmups = QSpinBox(minimum=0, maximum=10_000, value=0)
        self.add_field(
            AdvancedField(
                "warmups",
                self.warmups,
                lambda: self.tr("Warm-up requests"),
                lambda: self.tr(
                    "Requests sent before each point and left out of its figures (fills caches, "
                    "compiles kernels)."
                ),
                lambda: {"num_warmups": self.warmups.value()},
                lambda: self.warmups.setValue(0),
            )
        )
        # -0.01 is "not sent": the server's own default temperature applies.
        self.temperature = _double(-0.01, 2.0, -0.01, 2, 0.1)
        self.add_field(
            AdvancedField(
                "temperature",
                self.temperature,
                lambda: self.tr("Temperature"),
                lambda: self.tr(
                    "Sampling temperature sent with every request; 'server default' sends none. "
                    "0 is greedy decoding."
                ),
                lambda: (
                    {} if self.temperature.value() < 0 else {"temperature": _num(self.temperature)}
                ),
                lambda: self.temperature.setValue(-0.01),
            )
        )

    def _add_client_fields(self) -> None:
        """How the client sends it: load worker processes, the per-request time-out."""
        self.workers = QSpinBox(minimum=1, maximum=64, value=1)
        self.add_field(
            AdvancedField(
                "workers",
                self.workers,
                lambda: self.tr("Load workers"),
                lambda: self.tr(
                    "Processes that send each point's requests (one core each; Ray actors when "
                    "the endpoint names a Ray cluster). One process is enough below a few hundred "
                    "streams; more keep the timing exact at thousands."
                ),
                lambda: {"workers": self.workers.value()} if self.workers.value() > 1 else {},
                lambda: self.workers.setValue(1),
            )
        )
        # 0 is "not sent": the engine's own default deadline applies.
        self.request_timeout = _double(0.0, 86_400.0, 0.0, 0, 30.0)
        self.add_field(
            AdvancedField(
                "request_timeout",
                self.request_timeout,
                lambda: self.tr("Request time-out"),
                lambda: self.tr(
                    "Longest one request may take, first byte sent to last byte read: a server "
                    "that drips bytes is cut off and the request counted as failed (timeout). "
                    "'engine default' sends none."
                ),
                lambda: (
                    {"request_timeout_s": _num(self.request_timeout)}
                    if self.request_timeout.value() > 0
                    else {}
                ),
                lambda: self.request_timeout.setValue(0.0),
            )
        )

    def add_field(self, field: AdvancedField) -> None:
        """Append a setting to the form (its label and tooltip follow the UI language)."""
        label = QLabel()
        label.setBuddy(field.widget)
        self.fields[field.key] = field
        self._labels[field.key] = label
        self.form.addRow(label, field.widget)
        self._translate(field)

    def values(self) -> dict[str, Any]:
        """The SweepSpec fields of every setting that differs from the engine's default."""
        return {
            key: value for field in self.fields.values() for key, value in field.values().items()
        }

    def reset(self) -> None:
        for field in self.fields.values():
            field.reset()

    def retranslate(self) -> None:
        self.temperature.setSpecialValueText(self.tr("server default"))
        self.request_timeout.setSpecialValueText(self.tr("engine default"))
        self.request_timeout.setSuffix(self.tr(" s"))
        for field in self.fields.values():
            self._translate(field)

    def _translate(self, field: AdvancedField) -> None:
        self._labels[field.key].setText(field.label())
        tip = field.tooltip()
        self._labels[field.key].setToolTip(tip)
        field.widget.setToolTip(tip)

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)


def _num(box: QDoubleSpinBox) -> float:
    """The value shown (the box's decimals), not the float behind it."""
    return round(box.value(), box.decimals())
