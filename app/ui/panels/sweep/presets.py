"""The Sweep form's presets: the quick demo, the field guide's experiments A (rates) and B
(concurrencies), the capacity search; each fills the form's loads, dataset and label."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from app.ui.panels.sweep.slo_editor import DEFAULTS as SLO_DEFAULTS

if TYPE_CHECKING:
    from app.ui.panels.sweep.form import SweepForm

PRESET_KEYS = ("demo", "A", "B", "capacity", "custom")


def preset_texts() -> tuple[tuple[str, str, str], ...]:
    """(key, name, tooltip) of each preset in the UI language (the form's words, its context)."""
    return (
        (
            "demo",
            QCoreApplication.translate("SweepForm", "Quick demo (about 30 s)"),
            QCoreApplication.translate(
                "SweepForm", "Rate inf, concurrency 8 … 64, 64 short random prompts per point."
            ),
        ),
        (
            "A",
            QCoreApplication.translate("SweepForm", "Experiment A (rates)"),
            QCoreApplication.translate(
                "SweepForm",
                "The field guide's experiment A: concurrency 32, rate 1, 2, 4, 8, 16, inf.",
            ),
        ),
        (
            "B",
            QCoreApplication.translate("SweepForm", "Experiment B (concurrencies)"),
            QCoreApplication.translate(
                "SweepForm", "The field guide's experiment B: rate inf, concurrency 1 … 128."
            ),
        ),
        (
            "capacity",
            QCoreApplication.translate("SweepForm", "Find capacity (SLO search)"),
            QCoreApplication.translate(
                "SweepForm",
                "Rate inf: the highest concurrency that meets every SLO, found by doubling then "
                "bisecting (tpotbench search). Concurrencies: the first and the highest tried.",
            ),
        ),
        ("custom", QCoreApplication.translate("SweepForm", "Custom"), ""),
    )


def apply_preset(form: SweepForm, key: str) -> None:
    """Fill the form from a preset (a key of PRESET_KEYS; 'custom' changes nothing)."""
    index = form.preset.findData(key)
    if index >= 0:
        form.preset.setCurrentIndex(index)
    grids = {
        "demo": ("inf", "8, 16, 32, 64", "random", 64, "demo"),
        "A": ("1, 2, 4, 8, 16, inf", "32", "synthetic", 200, "expA"),
        "B": ("inf", "1, 4, 8, 16, 32, 64, 128", "synthetic", 200, "expB"),
        "capacity": ("inf", "1, 256", "synthetic", 200, "capacity"),
    }
    if key not in grids:
        return
    rates, concurrencies, dataset, prompts, label = grids[key]
    form.rates.setText(rates)
    form.concurrencies.setText(concurrencies)
    form.dataset.setCurrentIndex(form.dataset.findData(dataset))
    form.num_prompts.setValue(prompts)
    form.label.setText(label)
    if key == "demo":
        form.input_len.setValue(128)
        form.output_len.setValue(32)
    if key == "capacity":
        if not form.slo_summary.slos():  # a search needs goals: the field guide's
            form.slo_summary.set_slos(
                [f"{m}:{SLO_DEFAULTS[m][0]}:{SLO_DEFAULTS[m][1]:g}" for m in ("ttft", "tpot")]
            )
        form.advanced_toggle.setChecked(True)  # where the SLOs are edited
