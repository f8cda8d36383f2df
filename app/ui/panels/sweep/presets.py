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
            QCoreApplication.translate("SweepForm", "Find capacity (about 2 min)"),
            QCoreApplication.translate(
                "SweepForm",
                "Rate inf: the highest concurrency that meets every SLO (TTFT p99 2 s, TPOT p99 "
                "50 ms unless you set others), found by doubling from 4 then bisecting "
                "(tpotbench search), with 256-token prompts and 64-token replies. "
                "Concurrencies: the first and the highest tried.",
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
        # Short random requests from 4 streams up: about 2 minutes on the built-in simulator
        # (11 loads, 121 s measured) where ShareGPT replies from 1 stream took over 3.
        "capacity": ("inf", "4, 256", "random", 128, "capacity"),
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
        form.input_len.setValue(256)
        form.output_len.setValue(64)
        if not form.slo_summary.slos():  # a search needs goals: the field guide's
            defaults = [
                f"{m}:{SLO_DEFAULTS[m][0]}:{SLO_DEFAULTS[m][1]:g}" for m in ("ttft", "tpot")
            ]
            form.slo_summary.set_slos(defaults)
            form.preset_slos = defaults
        form.advanced_toggle.setChecked(True)  # where the SLOs are edited
    elif form.slo_summary.slos() and form.slo_summary.slos() == form.preset_slos:
        # The search's own goals, never chosen by the user: they do not follow into a grid
        # preset, where they would judge every point from inside a folded section.
        form.slo_summary.set_slos([])
    elif form.slo_summary.slos():
        form.advanced_toggle.setChecked(True)  # the user's goals stay, in view
