"""The main window against the real simulator: probe, panels wired, language, saved state."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from app.bench.schema.point_doc import read_point_doc
from app.bench.sweep.contract import PointFinished
from app.profiles import ProfileStore
from app.roofline.context import RooflineContext
from app.secrets import KeyStore
from app.ui.app_setup import settings
from app.ui.app_setup_i18n import Translations
from app.ui.app_setup_sim import SimulatorService
from app.ui.main_window import AppContext, MainWindow


@pytest.fixture
def ctx(sim, memory_keyring) -> AppContext:
    service = SimulatorService()
    service.adopt(sim)  # the session's simulator; the window does not stop it
    return AppContext(ProfileStore(), KeyStore(), settings(), service)


@pytest.fixture
def window(qtbot, qloop, ctx) -> MainWindow:
    win = MainWindow(ctx)
    qtbot.addWidget(win)
    win.show()
    return win


def run_probe(qtbot, win: MainWindow, max_tokens: int) -> None:
    win.probe.max_tokens.setValue(max_tokens)
    with qtbot.waitSignal(win.probe.probeFinished, timeout=60_000):
        win.run_action.trigger()  # Ctrl+R on the Probe tab


def test_first_run_selects_the_simulator(window: MainWindow, sim) -> None:
    target = window.current_target()
    assert target.base_url == sim.base_url
    assert target.model == "qwen2.5-7b"
    assert "simulator running at" in window.status.endpoint.text()


def test_probe_fills_chart_and_readouts(qtbot, window: MainWindow) -> None:
    run_probe(qtbot, window, 32)
    probe = window.probe
    # 32 tokens, one per chunk from the simulator: 31 gaps on the chart.
    assert probe.readouts.tokens.value.text() == "32"
    x, y = probe.plot.curve.getData()
    assert len(x) == 31
    # In time order; two chunks that arrive in one socket read share a stamp (a busy machine).
    assert np.all(np.diff(x) >= 0) and x[-1] > x[0]
    # The chart's gaps and the readouts come from the probe process's own stamps: the mean gap
    # is the TPOT readout ((E2EL - TTFT) / 31) and tok/s is 32 tokens / (TTFT + 31 * TPOT).
    # How close they come to the simulator's 19.7 ms depends on the machine's load (the
    # simulator's own ITL record is held to it in tests/sim).
    tpot = float(probe.readouts.tpot.value.text())
    ttft = float(probe.readouts.ttft.value.text())
    assert np.all(y >= 0)
    assert float(np.mean(y)) == pytest.approx(tpot, abs=0.01)
    assert float(probe.readouts.tps.value.text()) == pytest.approx(
        32e3 / (ttft + 31 * tpot), rel=0.01
    )
    assert float(probe.readouts.ttft.value.text()) > 0
    assert probe.history_list.count() == 1
    assert "TPOT" in probe.history_list.item(0).text()
    assert not probe.running


def test_unreachable_endpoint_is_a_readable_message(qtbot, window: MainWindow) -> None:
    editor = window.editor
    editor.select("Local vLLM")
    editor.form.url_edit.setText("http://127.0.0.1:9")  # nothing listens on the discard port
    assert editor.save_current()
    run_probe(qtbot, window, 8)
    text = window.probe.status.text()
    assert "connection refused" in text.lower()
    assert "Traceback" not in text
    assert window.probe.history_list.count() == 1


def test_roofline_context_is_stored_on_the_profile(window: MainWindow, ctx) -> None:
    if window.roofline is None:
        pytest.skip("the roofline panel is not in this tree yet")
    context = RooflineContext("rtx3090", "qwen2.5-7b", "fp8", "fp16", 2048, 2)
    window.roofline.contextChanged.emit(context)
    assert ProfileStore().simulator().roofline == {  # the profile file's keys, in this order
        "gpu_id": "rtx3090",
        "model_id": "qwen2.5-7b",
        "fmt": "fp8",
        "kv_dtype": "fp16",
        "context": 2048,
        "tensor_parallel": 2,
    }


def _finish_point(window: MainWindow, summary: dict) -> None:
    """A sweep's point_finished event as the worker gives it (its summary typed)."""
    doc = read_point_doc({"completed": 1, "request_rate": "inf", **summary}, strict=True)
    window.sweep.worker.pointFinished.emit(PointFinished(0, None, doc))


def test_sweep_points_reach_the_roofline(window: MainWindow) -> None:
    if window.roofline is None or window.sweep is None:
        pytest.skip("sweep or roofline panel not in this tree yet")
    seen: list[tuple] = []
    window.roofline.add_measured_point = lambda *a: seen.append(a)  # observe the wiring only
    _finish_point(window, {"max_concurrency": 16, "median_tpot_ms": 21.5, "p99_tpot_ms": 30.0})
    # The output throughput goes along for the Pareto tab (None when the summary has none).
    _finish_point(
        window,
        {"max_concurrency": 4, "median_tpot_ms": 20.0, "p99_tpot_ms": 22.0,
         "output_throughput": 190.5},
    )  # fmt: skip
    assert seen == [(16, 21.5, 30.0, None, None), (4, 20.0, 22.0, None, 190.5)]


def test_state_is_remembered(qtbot, qloop, ctx) -> None:
    first = MainWindow(ctx)
    qtbot.addWidget(first)
    first.editor.select("TaoToken")
    first.probe.max_tokens.setValue(77)
    first.close()  # closeEvent saves
    second = MainWindow(ctx)
    qtbot.addWidget(second)
    assert second.editor.current_name() == "TaoToken"
    assert second.probe.max_tokens.value() == 77


def test_about_names_versions_and_backend(window: MainWindow) -> None:
    import PySide6

    from app import __version__

    text = window.about_text("keyring double MemoryKeyring")
    assert __version__ in text
    assert PySide6.__version__ in text
    assert "keyring double MemoryKeyring" in text


def test_chinese_locale_shows_chinese_labels(qtbot, qloop, ctx) -> None:
    translations = Translations(QApplication.instance())
    assert translations.install("zh_CN")
    try:
        win = MainWindow(ctx)
        qtbot.addWidget(win)
        tabs = [win.tabs.tabText(i) for i in range(win.tabs.count())]
        assert tabs[0] == "探测"
        assert win.probe.run_button.text() == "运行"
        assert win.endpoints_dock.windowTitle() == "端点"
        assert win.menuBar().actions()[0].text() == "文件(&F)"
        assert "内置模拟器" in win.editor.profile_list.list.item(0).text()
    finally:
        translations.install("en")


def test_rate_point_uses_peak_concurrency_and_running_batch(window: MainWindow) -> None:
    if window.roofline is None or window.sweep is None:
        pytest.skip("sweep or roofline panel not in this tree yet")
    seen: list[tuple] = []
    window.roofline.add_measured_point = lambda *a: seen.append(a)
    _finish_point(
        window,
        {
            "max_concurrency": None,
            "max_concurrent_requests": 9,
            "median_tpot_ms": 20.0,
            "p99_tpot_ms": 25.0,
            "tpotbench": {"server_metrics": {"running": {"mean": 7.5, "max": 9}}},
        },
    )
    assert seen == [(9, 20.0, 25.0, 7.5, None)]
    assert window.sweep.build_spec().server_metrics


def test_cancel_stops_a_running_probe(qtbot, window: MainWindow) -> None:
    probe = window.probe
    probe.max_tokens.setValue(4000)  # ~80 s at 20 ms per token: only Cancel ends it in time
    with qtbot.waitSignal(probe.runningChanged, timeout=5_000):
        window.run_action.trigger()
    qtbot.waitUntil(lambda: probe.live.count > 5, timeout=30_000)
    with qtbot.waitSignal(probe.runningChanged, timeout=10_000) as blocker:
        window.cancel_action.trigger()  # Esc / Ctrl+.
    assert blocker.args == [False]
    assert probe.status.text() == "Stopped."
    assert probe.history_list.count() == 0
    assert probe.run_button.isEnabled()


def test_list_models_asks_the_simulator(qtbot, window: MainWindow) -> None:
    editor = window.editor
    combo = editor.form.model.combo
    combo.setEditText("")
    qtbot.mouseClick(editor.form.model.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: editor.message.text() == "1 model(s) found.", timeout=10_000)
    assert [combo.itemText(i) for i in range(combo.count())] == ["qwen2.5-7b"]
    assert combo.currentText() == "qwen2.5-7b"


def test_list_models_on_a_dead_port_says_so(qtbot, window: MainWindow) -> None:
    editor = window.editor
    editor.select("Local vLLM")
    editor.form.url_edit.setText("http://127.0.0.1:9")
    qtbot.mouseClick(editor.form.model.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Could not reach" in editor.message.text(), timeout=10_000)
    assert "http://127.0.0.1:9/v1/models" in editor.message.text()


def test_closing_mid_sweep_keeps_finished_points(qtbot, window: MainWindow, tmp_path) -> None:
    sweep = window.sweep
    if sweep is None:
        pytest.skip("the sweep panel is not in this tree yet")
    window.show_panel(sweep)
    sweep.form.apply_preset("demo")
    sweep.form.results_root.setText(str(tmp_path / "results"))
    sweep.form.concurrencies.setText("4, 8")
    sweep.form.num_prompts.setValue(8)
    sweep.form.output_len.setValue(64)
    with qtbot.waitSignal(sweep.pointFinished, timeout=60_000):
        window.run_action.trigger()
    with qtbot.waitSignal(sweep.runningChanged, timeout=30_000) as stopped:
        window.close()  # what the user does; the app then waits for this signal
    assert stopped.args == [False]
    saved = sorted(p.name for p in (tmp_path / "results").rglob("*.json"))
    assert any("conc4" in name for name in saved), saved


def test_menu_actions_reach_the_panels_by_explicit_calls(window: MainWindow) -> None:
    # Run and Cancel on each tab are the panel's own methods; Export is the Results tab's.
    assert window.tab_actions[window.probe].run == window.probe.start
    assert window.tab_actions[window.sweep].run == window.sweep.run
    assert window.tab_actions[window.doctor].cancel == window.doctor.cancel
    assert window.results not in window.tab_actions  # nothing to run there
    seen: list[str] = []
    window.results.export_dialog = lambda: seen.append("export")
    window.show_panel(window.probe)
    window.export_current()
    assert seen == ["export"] and window.current_panel() is window.results
    window.run_current()  # the Results tab runs nothing: no error, nothing started
    assert not window.is_busy()


def test_esc_asks_before_cancelling_a_sweep_and_the_form_is_locked(
    qtbot, window: MainWindow, tmp_path, monkeypatch
) -> None:
    sweep = window.sweep
    window.show_panel(sweep)
    sweep.form.apply_preset("demo")
    sweep.form.results_root.setText(str(tmp_path / "results"))
    sweep.form.concurrencies.setText("4, 8")
    sweep.form.num_prompts.setValue(8)
    sweep.form.output_len.setValue(2000)  # ~40 s a request: only a cancel ends it in time
    with qtbot.waitSignal(sweep.runningChanged, timeout=10_000):
        window.run_action.trigger()
    assert not sweep.form.isEnabled()  # settings cannot change under a running sweep
    asked: list[str] = []

    def answer(reply):
        def question(_parent, title, _text, *_args):
            asked.append(title)
            return reply

        return question

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.No))
    window.cancel_action.trigger()  # Esc, then "No"
    assert asked == ["Cancel the sweep?"]
    assert sweep.is_running() and not sweep.run_model.cancelled
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Yes))
    with qtbot.waitSignal(sweep.runningChanged, timeout=30_000) as stopped:
        window.cancel_action.trigger()  # Esc, then "Yes"
    assert stopped.args == [False] and len(asked) == 2
    assert sweep.form.isEnabled()


def test_a_refused_language_switch_leaves_the_menu_on_the_current_language(
    qtbot, window: MainWindow, monkeypatch
) -> None:
    probe = window.probe
    probe.max_tokens.setValue(4000)  # a long probe: the window is busy while we switch
    with qtbot.waitSignal(probe.runningChanged, timeout=5_000):
        window.run_action.trigger()
    told: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda _p, _t, text: told.append(text))
    requested: list[str] = []
    window.languageRequested.connect(requested.append)
    before = next(code for code, a in window.language_actions.items() if a.isChecked())
    window.language_actions["zh_CN"].trigger()  # what a click in View > Language does
    assert told == ["Stop the running measurement first, then switch."] and requested == []
    checked = [code for code, a in window.language_actions.items() if a.isChecked()]
    assert checked == [before]
    with qtbot.waitSignal(probe.runningChanged, timeout=10_000):
        probe.stop()
    window.language_actions["zh_CN"].trigger()  # idle: the switch goes through
    assert requested == ["zh_CN"] and window.language_actions["zh_CN"].isChecked()


def test_doctor_says_a_typed_key_is_typed_and_advises_the_window_fields(
    qtbot, window: MainWindow, make_sim
) -> None:
    keyed = make_sim(api_key="sk-tpot-right-key-0123456789abcd", disable_metrics=True)
    editor = window.editor
    editor.select("Local vLLM")
    editor.form.url_edit.setText(keyed.base_url)
    editor.form.key_edit.setText("sk-tpot-typed-wrong-key-00wxyz")  # typed, never saved
    window.show_panel(window.doctor)
    with qtbot.waitSignal(window.doctor.finished, timeout=30_000):
        window.run_action.trigger()
    auth = window.doctor.rows["auth"]
    assert "(typed in the API key field, not saved)" in auth.detail.text()
    assert "from the profile" not in auth.detail.text()
    assert "API key field" in auth.fix.text() and "--api-key-env" not in auth.fix.text()
    editor.save_current()  # saved: now it is the endpoint's own key
    with qtbot.waitSignal(window.doctor.finished, timeout=30_000):
        window.run_action.trigger()
    assert "(from the profile)" in window.doctor.rows["auth"].detail.text()


def test_a_sweep_refused_for_its_key_names_the_window_fields(
    qtbot, window: MainWindow, make_sim, tmp_path
) -> None:
    keyed = make_sim(api_key="sk-tpot-right-key-0123456789abcd", disable_metrics=True)
    window.editor.select("Local vLLM")
    window.editor.form.url_edit.setText(keyed.base_url)
    window.editor.form.key_edit.setText("")
    sweep = window.sweep
    sweep.form.results_root.setText(str(tmp_path / "results"))
    sweep.form.concurrencies.setText("1")
    with qtbot.waitSignal(sweep.runningChanged, timeout=10_000):
        window.show_panel(sweep)
        window.run_action.trigger()
    qtbot.waitUntil(lambda: not sweep.is_running(), timeout=30_000)
    text = sweep.status.text()
    assert "API key" in text, text
    assert "--api-key-env" not in text and "tpotbench doctor" not in text


def test_an_empty_probe_chart_says_so_instead_of_showing_a_0_to_1_s_axis(
    qtbot, window: MainWindow
) -> None:
    chart = window.probe.plot
    bottom = chart.getPlotItem().getAxis("bottom")
    assert chart.is_empty() and not bottom.style["showValues"]
    assert "Run a probe" in chart.empty_text.toPlainText()
    run_probe(qtbot, window, 16)
    assert not chart.is_empty() and bottom.style["showValues"]


def test_no_chart_offers_pyqtgraphs_own_export(window: MainWindow) -> None:
    # pyqtgraph's right-click "Export..." wrote files straight to any path (a FIFO, a device),
    # past the checks of the window's exports; every chart of the window goes without it.
    import pyqtgraph as pg

    charts = window.findChildren(pg.PlotWidget)
    assert len(charts) >= 15  # probe, live, sweep curves, results, roofline dock, /metrics
    offered = [type(c).__name__ for c in charts if c.scene().contextMenu]
    assert offered == []
