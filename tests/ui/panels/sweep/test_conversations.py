"""The Sweep panel's conversation dataset: a multi-turn sweep against the simulator from the
window, its first- and later-turn TTFT columns live and in the Results tab, both languages."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTranslator

from app.bench.results.read import load_result
from app.commands.argv import SweepSpec, build_run_config
from app.paths import resources_dir
from app.profiles import Target
from app.ui.exports.tables import TABLE_COLUMNS, cell_text
from app.ui.panels.sweep.panel import SweepPanel
from app.ui.run_extras import RunExtras
from tests.documents import document
from tests.ui.rows import row_of

COL = {key: i for i, (key, _h, _d) in enumerate(TABLE_COLUMNS)}


def test_conversations_config_names_sessions_and_multi_turn() -> None:
    spec = SweepSpec(dataset="conversations", num_prompts=5, result_dir="out")
    data = build_run_config(spec, Target("sim", "http://127.0.0.1:9", "chat", "")).dataset
    assert (data.name, data.multi_turn, data.num_sessions) == ("sharegpt", True, 5)
    assert data.path is None  # the shipped conversations
    assert data.num_prompts is None  # the CLI refuses it with --multi-turn


def test_conversation_sweep_shows_first_and_later_turn_ttft(qtbot, sim, tmp_path: Path) -> None:
    short = RunExtras(flags=("--output-len", "6"))  # a short run
    panel = SweepPanel(
        lambda: Target("Built-in simulator", sim.base_url, "chat", ""), lambda: short
    )
    qtbot.addWidget(panel)
    panel.form.results_root.setText(str(tmp_path))
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("conversations"))
    assert panel.form.labels["prompts"].text() == "Sessions per point"
    assert not panel.form.lengths_row.isEnabled()
    # a conversations file may be chosen; empty runs the shipped one
    assert panel.form.dataset_row.isEnabled() and not panel.form.dataset_path.text()
    assert panel.form.dataset_path.placeholderText() == "Empty: the shipped conversations"
    panel.form.rates.setText("inf")
    panel.form.concurrencies.setText("2")
    panel.form.num_prompts.setValue(3)
    # the conversation's own settings, shown only for this dataset
    assert panel.form.max_turns.isVisibleTo(panel) and panel.form.think_time.isVisibleTo(panel)
    assert panel.form.max_turns.text() == "all"
    panel.form.max_turns.setValue(2)
    panel.form.think_time.setValue(0.05)
    panel.form.think_stddev.setValue(0.02)
    panel.form.label.setText("chat")
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=90_000)
    assert panel.last_error == ""
    (path,) = panel.run_dir.glob("chat_*.json")
    conv = document(path)["tpotbench"]["conversations"]
    assert (conv["sessions"], conv["turns_completed"]) == (3, 6)  # two turns each
    assert conv["think_time_s"] == {"mean": 0.05, "stddev": 0.02}
    row = [panel.table.item(0, c).text() for c in range(panel.table.columnCount())]
    first = conv["ttft_first_turn_ms"]["mean"]
    later = conv["ttft_later_turns_ms"]["mean"]
    assert row[COL["ttft_first_turn_ms"]] == f"{first:.1f}"
    assert row[COL["ttft_later_turns_ms"]] == f"{later:.1f}"
    # the Results tab reads the same figures from the file
    row = load_result(path).row
    assert cell_text(row, "ttft_later_turns_ms", 1) == f"{later:.1f}"
    # an ordinary point has no such figure: a dash, not a zero
    assert cell_text(row_of({"tpotbench": {}}), "ttft_first_turn_ms", 1) == "–"


def test_conversation_strings_in_chinese(qtbot, qapp) -> None:
    panel = SweepPanel(lambda: Target("sim", "http://127.0.0.1:9", "chat", ""))
    qtbot.addWidget(panel)
    translator = QTranslator()
    assert translator.load(str(resources_dir() / "i18n" / "tpotbench_zh_CN.qm"))
    qapp.installTranslator(translator)
    try:
        panel.retranslate()
        panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("conversations"))
        assert panel.form.dataset.currentText() == "多轮对话（内置）"
        assert panel.form.labels["prompts"].text() == "每点会话数"
        assert panel.form.labels["session"].text() == "每个会话"
        assert panel.form.max_turns.text() == "全部"
    finally:
        qapp.removeTranslator(translator)
        panel.retranslate()
