"""File > Export report… in the window: the HTML report of the run open in Results, in the
window's language, from result files of a real sweep against the simulator. The save dialog is
the one part replaced (a modal dialog cannot be typed into offscreen): it returns a typed name."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.bench.results.read import load_results
from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup import settings
from app.ui.app_setup_i18n import Translations
from app.ui.app_setup_sim import SimulatorService
from app.ui.exports import report as report_export
from app.ui.main_window import AppContext, MainWindow


@pytest.fixture
def ctx(sim, memory_keyring) -> AppContext:
    service = SimulatorService()
    service.adopt(sim)
    return AppContext(ProfileStore(), KeyStore(), settings(), service)


@pytest.fixture(scope="module")
def results_root(sim, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "sweep",
            "--base-url",
            sim.base_url,
            "--num-prompts",
            "4",
            "--max-concurrency",
            "1,2",
            "--output-len",
            "8",
            "--label",
            "expB",
            "--save-detailed",
            "--result-dir",
            str(root / "expB-run"),
            "--disable-tqdm",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return root


def _window(qtbot, ctx: AppContext) -> MainWindow:
    win = MainWindow(ctx)
    qtbot.addWidget(win)
    return win


def _answer_dialog(monkeypatch: pytest.MonkeyPatch, answer: Path) -> list[str]:
    asked: list[str] = []

    def fake(_parent: object, _title: str, start: str, _filter: str) -> tuple[str, str]:
        asked.append(start)
        return str(answer), "HTML report (*.html)"

    monkeypatch.setattr(report_export.QFileDialog, "getSaveFileName", fake)
    return asked


def test_export_report_of_the_open_run(
    qtbot, qloop, ctx, results_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    win = _window(qtbot, ctx)
    win.results.set_folder(results_root)
    win.results.show_runs(["expB-run"])
    asked = _answer_dialog(monkeypatch, tmp_path / "shared" / "for-the-team")  # no extension
    win.export_report_action.trigger()

    out = tmp_path / "shared" / "for-the-team.html"
    html = out.read_text(encoding="utf-8")
    assert asked == [str(results_root / "expB-run" / "expB-run.html")]  # starts beside the run
    points = {p.max_concurrency: p for p in load_results([results_root / "expB-run"])}
    assert f"{points[2].metric('tpot', 'median'):,.2f}" in html
    assert 'id="knee-tpot"' in html and 'id="cdf-itl"' in html and '<html lang="en">' in html
    assert "Report of 2 point(s) written to" in win.statusBar().currentMessage()
    # The next report starts in the folder this one went to.
    assert ctx.settings.value(report_export.SETTINGS_KEY) == str(tmp_path / "shared")


def test_report_follows_the_window_language(
    qtbot, qloop, ctx, results_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    translations = Translations(QApplication.instance())
    assert translations.install("zh_CN")
    try:
        win = _window(qtbot, ctx)
        assert win.export_report_action.text() == "导出报告(&R)…"
        win.results.set_folder(results_root)
        win.results.show_runs(["expB-run"])
        _answer_dialog(monkeypatch, tmp_path / "报告.html")
        win.export_report_action.trigger()
        html = (tmp_path / "报告.html").read_text(encoding="utf-8")
        assert '<html lang="zh-CN">' in html and "拐点曲线" in html and "并发 2" in html
        assert "已将 2 个测试点的报告写入" in win.statusBar().currentMessage()
    finally:
        translations.install("en")


def test_nothing_open_says_what_to_do(
    qtbot, qloop, ctx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    win = _window(qtbot, ctx)
    (tmp_path / "empty").mkdir()
    win.results.set_folder(tmp_path / "empty")
    asked = _answer_dialog(monkeypatch, tmp_path / "x.html")
    win.export_report_action.trigger()
    assert asked == [] and not (tmp_path / "x.html").exists()
    assert "open a run in the Results tab, or run a sweep" in win.statusBar().currentMessage()


def test_on_the_sweep_tab_the_last_sweep_is_reported(
    qtbot, qloop, ctx, results_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    win = _window(qtbot, ctx)
    solo = tmp_path / "other" / "solo"
    solo.mkdir(parents=True)
    shutil.copy(results_root / "expB-run" / "expB_rateinf_conc1.json", solo)
    win.results.set_folder(tmp_path / "other")
    win.results.show_runs(["solo"])  # one point open in Results ...
    assert len(win.results.shown[0].points) == 1
    win.sweep.run_dir = results_root / "expB-run"  # ... two in the last sweep (as a run sets)
    win.show_panel(win.sweep)
    _answer_dialog(monkeypatch, tmp_path / "last-sweep.html")
    win.export_report_action.trigger()
    html = (tmp_path / "last-sweep.html").read_text(encoding="utf-8")
    assert "conc 1" in html and "conc 2" in html
    assert "Report of 2 point(s) written to" in win.statusBar().currentMessage()
