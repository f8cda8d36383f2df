"""View > Language retranslates the window in place: the whole session survives a switch."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup import settings
from app.ui.app_setup_i18n import Translations
from app.ui.app_setup_sim import SimulatorService
from app.ui.launch import WindowManager
from app.ui.main_window import AppContext


@pytest.fixture
def manager(qtbot, qloop, sim, memory_keyring):
    service = SimulatorService()
    service.adopt(sim)
    ctx = AppContext(ProfileStore(), KeyStore(), settings(), service)
    translations = Translations(QApplication.instance())
    translations.install("en")
    manager = WindowManager(ctx, translations)
    qtbot.addWidget(manager.window)
    manager.window.resize(1400, 900)
    manager.window.show()
    yield manager
    translations.install("en")
    manager.window.close()


def _session(qtbot, manager: WindowManager, tmp_path: Path) -> None:
    """A probe, a two-point sweep, a Results selection, the doctor, and unsaved sweep settings."""
    win = manager.window
    win.probe.max_tokens.setValue(8)
    with qtbot.waitSignal(win.probe.probeFinished, timeout=60_000):
        win.probe.start()
    sweep = win.sweep
    sweep.form.results_root.setText(str(tmp_path / "runs"))
    sweep.form.dataset.setCurrentIndex(sweep.form.dataset.findData("random"))
    sweep.form.input_len.setValue(16)
    sweep.form.output_len.setValue(8)
    sweep.form.num_prompts.setValue(4)
    sweep.form.rates.setText("inf")
    sweep.form.concurrencies.setText("1, 2")
    sweep.form.label.setText("lang")
    with qtbot.waitSignal(sweep.runningChanged, timeout=10_000):
        assert sweep.run()
    qtbot.waitUntil(lambda: not sweep.is_running(), timeout=120_000)
    assert len(sweep.points) == 2, sweep.status.text()
    # Settings typed after the run and never used: they must survive too.
    sweep.form.num_prompts.setValue(48)
    sweep.form.concurrencies.setText("4, 16, 32")
    sweep.form.advanced_toggle.setChecked(True)
    sweep.form.advanced.warmups.setValue(3)
    win.results.set_folder(tmp_path / "runs")
    [run] = [r.name for r in win.results.runs]
    win.results.show_runs([run])
    win.results._select(win.results.shown)
    with qtbot.waitSignal(win.doctor.finished, timeout=60_000):
        win.doctor.start()


def _state(manager: WindowManager) -> dict:
    win = manager.window
    return {
        "probes": len(win.probe.history),
        "probe_rows": win.probe.history_list.count(),
        "probe_tokens": win.probe.readouts.tokens.value.text(),
        "sweep_points": len(win.sweep.points),
        "sweep_rows": win.sweep.table.rowCount(),
        "curve_items": len(win.sweep.curves.tpot.getPlotItem().listDataItems()),
        "num_prompts": win.sweep.form.num_prompts.value(),
        "concurrencies": win.sweep.form.concurrencies.text(),
        "warmups": win.sweep.form.advanced.warmups.value(),
        "results_shown": [r.name for r in win.results.shown],
        "results_selected": [i.text(0) for i in win.results.tree.selectedItems()],
        "results_rows": win.results.table.rowCount(),
        "doctor": win.doctor.statuses(),
        "roofline_points": len(win.roofline._measured),
    }


def test_language_switch_keeps_the_session_and_translates_it(
    qtbot, manager: WindowManager, tmp_path: Path
) -> None:
    win = manager.window
    _session(qtbot, manager, tmp_path)
    before = _state(manager)
    assert before["probes"] == 1 and before["sweep_rows"] == 2
    assert before["roofline_points"] == 2
    assert before["doctor"]["streaming"] == "ok"
    assert before["results_selected"] == before["results_shown"] != []

    # What a running sweep labels once a second (the live floor's batch, the dock's live dot).
    win.sweep.live.set_floor(15.0, partial(win.links._batch_source, 32.0))
    win.roofline.set_live_tpot_ms(20.0, 32.0, partial(win.links._live_label, 32.0))
    assert win.sweep.live.floor_source == "batch 32 (/metrics)"
    assert [label for _t, label in win.metrics.marks()] == ["sweep", "c=1", "c=2"]

    manager.switch_language("zh_CN")
    assert manager.window is win  # nothing rebuilt
    qtbot.waitUntil(lambda: win.tabs.tabText(1) == "扫描", timeout=10_000)
    assert _state(manager) == before
    # Labels made while the run was on follow the switch; so do the probe chart's units.
    assert [label for _t, label in win.metrics.marks()] == ["扫描", "并发=1", "并发=2"]
    assert [line.label.format for line in win.sweep.live._point_lines] == ["并发=1", "并发=2"]
    assert win.sweep.live.floor_source == "批次 32（/metrics）"
    assert "实时扫描，批次 32" in win.roofline.mbu_label.text()
    assert "decode" not in win.roofline.ridge_label.text()
    left = win.probe.plot.getPlotItem().getAxis("left").labelText
    assert "毫秒" in left and "ms" not in left
    # Fixed strings and the messages that carry figures are in Chinese now.
    assert win.sweep.run_button.text() == "开始扫描"
    assert "完成" in win.sweep.status.text()
    if sys.platform == "linux":
        assert "内核接收时间戳" in win.sweep.status.text()
    assert "TTFT" in win.probe.history_list.item(0).text()
    assert "内置模拟器" in win.probe.history_list.item(0).text()
    assert "服务可达" in win.doctor.rows["reachable"].title.text()
    assert "通过" in win.doctor.rows["streaming"].title.text()
    assert "内置模拟器" in win.windowTitle()
    assert "内置模拟器" in win.status.endpoint.text()
    assert win.sweep.form.labels["prompts"].text() != "Prompts per point"
    assert win.menuBar().actions()[0].text().startswith("文件")

    manager.switch_language("en")
    qtbot.waitUntil(lambda: win.tabs.tabText(1) == "Sweep", timeout=10_000)
    assert _state(manager) == before
    assert win.sweep.status.text().startswith("Done:")
    assert win.sweep.run_button.text() == "Run sweep"
    assert "Built-in simulator" in win.windowTitle()
