"""The roofline selectors alone: the catalogue listed, a shown scenario is no edit, a user's is."""

from __future__ import annotations

from app.roofline.catalog import list_gpus
from app.roofline.scenario import Scenario
from app.ui.panels.roofline.picker import ScenarioPicker


def make_picker(qtbot) -> ScenarioPicker:
    picker = ScenarioPicker()
    qtbot.addWidget(picker)
    return picker


def test_the_catalogue_fills_the_lists(qtbot) -> None:
    picker = make_picker(qtbot)
    gpus = [picker.gpu_combo.itemData(i) for i in range(picker.gpu_combo.count())]
    assert gpus == [gpu.id for gpu in list_gpus()]
    assert picker.model_combo.findData("qwen2.5-7b") >= 0
    assert picker.fmt_combo.findData("awq-int4") >= 0


def test_showing_a_scenario_is_not_an_edit_but_picking_is(qtbot) -> None:
    picker = make_picker(qtbot)
    edits: list[None] = []
    picker.edited.connect(lambda: edits.append(None))
    scenario = Scenario.from_ids("rtx3090", "qwen2.5-7b", "awq-int4", "fp16", context=2048)
    picker.show_scenario(scenario, "qwen2.5-7b")
    assert edits == []
    assert picker.ids() == ("rtx3090", "qwen2.5-7b", "awq-int4", "fp16", 2048)
    picker.fmt_combo.setCurrentIndex(picker.fmt_combo.findData("bf16"))
    assert len(edits) == 1
    picker.context_spin.setValue(4096)
    assert len(edits) == 2 and picker.ids()[-1] == 4096


def test_a_picked_model_is_added_once_and_is_an_edit(qtbot) -> None:
    picker = make_picker(qtbot)
    edits: list[None] = []
    picker.edited.connect(lambda: edits.append(None))
    count = picker.model_combo.count()
    picker.pick_model("/models/tiny/config.json", "tiny", "config.json")
    picker.pick_model("/models/tiny/config.json", "tiny", "config.json")
    assert picker.model_combo.count() == count + 1
    assert picker.model_id() == "/models/tiny/config.json"
    assert len(edits) == 1  # the second pick changed nothing
