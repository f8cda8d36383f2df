"""The Sweep form's values survive a restart: a panel made again (as at the next start of the
window) shows what the last one had and builds the same run; a run saves them; the settings
file never holds the endpoint's key; a stored value that no longer fits is left out."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.profiles import Target
from app.ui.app_setup import settings
from app.ui.panels.sweep.form_state import GROUP, form_fields, widget_value
from app.ui.panels.sweep.panel import SweepPanel

SECRET = "sk-form-state-secret-7"
TARGET = Target("lab", "http://127.0.0.1:9", "chat", "", api_key=SECRET)


def _panel(qtbot) -> SweepPanel:
    panel = SweepPanel(lambda: TARGET)
    qtbot.addWidget(panel)
    return panel


def _fill(qtbot, panel: SweepPanel, results: Path, conversations: Path) -> None:
    form = panel.form
    form.rates.clear()
    qtbot.keyClicks(form.rates, "2, 4")  # typed: the preset becomes Custom
    form.concurrencies.setText("3, 5")
    form.dataset.setCurrentIndex(form.dataset.findData("conversations"))
    form.dataset_path.setText(str(conversations))
    form.max_turns.setValue(3)
    form.think_time.setValue(1.5)
    form.think_stddev.setValue(0.25)
    form.num_prompts.setValue(48)
    form.seed.setValue(11)
    form.ignore_eos.setChecked(True)
    form.label.setText("mine")
    form.results_root.setText(str(results))
    form.advanced.burstiness.setValue(0.5)
    form.advanced.temperature.setValue(0.7)
    form.slo_summary.set_slos(["ttft:p99:900", "tpot:median:45"])


def test_the_form_comes_back_after_a_restart(qtbot, tmp_path: Path) -> None:
    conversations = tmp_path / "chats.json"
    conversations.write_text("[]", encoding="utf-8")
    first = _panel(qtbot)
    defaults = {name: widget_value(w) for name, w in form_fields(first.form).items()}
    _fill(qtbot, first, tmp_path / "out", conversations)
    before = first.build_spec()
    values = {name: widget_value(w) for name, w in form_fields(first.form).items()}
    assert values != defaults
    first.close()
    first.deleteLater()

    again = _panel(qtbot)
    assert {name: widget_value(w) for name, w in form_fields(again.form).items()} == values
    assert again.form.slo_summary.slos() == ["ttft:p99:900", "tpot:median:45"]
    assert again.form.preset.currentData() == "custom"  # a hand-edited grid stays custom
    assert again.form.max_turns.isVisibleTo(again)  # the chosen dataset's rows are shown
    assert dataclasses.asdict(again.build_spec()) == dataclasses.asdict(before)


def test_a_run_saves_the_form_and_never_the_key(qtbot, tmp_path: Path) -> None:
    panel = _panel(qtbot)
    panel.form.results_root.setText(str(tmp_path / "out"))
    panel.form.concurrencies.setText("2")
    store = settings()
    store.remove(GROUP)  # only what the run writes
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=60_000)  # nothing listens on :9
    store.sync()
    assert store.value(f"{GROUP}/concurrencies") == "2"
    assert store.value(f"{GROUP}/results_root") == str(tmp_path / "out")
    text = Path(store.fileName()).read_text(encoding="utf-8")
    assert SECRET not in text and "api_key" not in text.lower()


def test_a_stored_value_that_no_longer_fits_is_left_out(qtbot) -> None:
    store = settings()
    store.setValue(f"{GROUP}/dataset", "gone-dataset")
    store.setValue(f"{GROUP}/num_prompts", "-5")
    store.setValue(f"{GROUP}/think_time", "nan")
    store.setValue(f"{GROUP}/slos", "not json")
    store.setValue(f"{GROUP}/label", "kept")
    store.sync()
    panel = _panel(qtbot)
    assert panel.form.dataset.currentData() == "random"  # the demo preset's
    assert panel.form.num_prompts.value() == 64
    assert panel.form.think_time.value() == 0.0
    assert panel.form.slo_summary.slos() == []
    assert panel.form.label.text() == "kept"
