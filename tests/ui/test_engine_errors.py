"""The engine's error lines said in the window's language: a real sweep against a port nothing
listens on, in Chinese, and the lines the engine's own functions write (so a changed engine
sentence that no longer matches its template fails here, not silently in English)."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTranslator

from app.bench.results.sweep_csv import refresh_sweep_csv
from app.bench.sweep.discovery import key_refused_message
from app.bench.sweep.runner import _stopped
from app.paths import resources_dir
from app.profiles import Target
from app.ui.engine_errors import engine_error
from app.ui.panels.sweep.panel import SweepPanel


@pytest.fixture
def chinese(qapp) -> Iterator[None]:
    translator = QTranslator()
    assert translator.load("tpotbench_zh_CN", str(resources_dir() / "i18n"))
    qapp.installTranslator(translator)
    yield
    qapp.removeTranslator(translator)


def _latin_words(text: str) -> list[str]:
    """English words left in a line: paths, URLs and numbers taken out first."""
    text = re.sub(r"\S*[/\\]\S*|\S+\.\S+", " ", text)
    return re.findall(r"[A-Za-z]{3,}", text)


def test_an_unreachable_endpoint_is_said_in_chinese(qtbot, tmp_path: Path, chinese) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    panel = SweepPanel(lambda: Target("sim", f"http://127.0.0.1:{port}", "chat", ""))
    qtbot.addWidget(panel)
    panel.form.results_root.setText(str(tmp_path))
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
    panel.form.rates.setText("inf")
    panel.form.concurrencies.setText("1")
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=60_000)
    assert panel.last_error.startswith("cannot reach")  # the engine's own line, English
    shown = panel.status.text()
    assert "无法连接" in shown and "无法建立连接" in shown, shown
    assert f"127.0.0.1:{port}" in shown
    assert _latin_words(shown) == [], shown


def test_the_engines_lines_match_their_templates(tmp_path: Path, chinese) -> None:
    url = "http://127.0.0.1:9/v1/models"
    folder = tmp_path / "ro"
    folder.mkdir()
    blocked = folder / "sweep.csv"
    blocked.mkdir()  # a folder where the file should go: the write fails with EISDIR
    csv_problem = refresh_sweep_csv(blocked, [])
    assert csv_problem is not None
    lines = {
        key_refused_message(401, url, None): "服务器需要 API 密钥",
        key_refused_message(403, url, "sk-x"): "服务器拒绝了 API 密钥",
        _stopped(csv_problem, 2, 5): "扫描在 5 个测试点中完成 2 个后停止",
    }
    for line, words in lines.items():
        shown = engine_error(line)
        assert words in shown, (line, shown)
        assert _latin_words(shown.replace("HTTP", "").replace("API", "")) == [], shown
    # The write failure inside "the sweep stopped": translated too, with the OS's reason.
    assert "无法写入" in engine_error(_stopped(csv_problem, 2, 5))
    assert engine_error(f"cannot write {blocked}: Read-only file system").endswith("只读文件系统")
    # A line no template knows is shown as it came.
    assert engine_error("something new went wrong") == "something new went wrong"


def test_in_english_the_window_says_what_to_change_where_the_user_is() -> None:
    line = key_refused_message(401, "http://127.0.0.1:9/v1/models", None)
    shown = engine_error(line)
    assert "API key field" in shown and "--api-key-env" not in shown
    assert engine_error("cannot reach http://h/v1/models (connect: cannot connect: refused)") == (
        "cannot reach http://h/v1/models (connect: cannot connect: refused)"
    )
