"""`tpotbench --screenshot` end to end, and switching the language rebuilds the window."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup import settings
from app.ui.app_setup_i18n import SETTINGS_KEY, Translations
from app.ui.app_setup_sim import SimulatorService
from app.ui.launch import WindowManager
from app.ui.main_window import AppContext


@pytest.mark.timeout(300)  # a hang guard: window, simulator and a probe start in a child
def test_screenshot_command_writes_a_png(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, "-m", "app", "--screenshot", str(out), "--lang", "zh_CN"],
        capture_output=True,
        text=True,
        timeout=240,  # took > 90 s on a 2-core machine at load ~20
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    # The probe ran against the built-in simulator and the history shows it.
    log = (Path(os.environ["TPOTBENCH_LOG_DIR"]) / "tpotbench.log").read_text()
    assert "built-in simulator at http://127.0.0.1:" in log


def test_sigterm_closes_the_window_cleanly_and_stops_the_simulator() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    log_file = Path(os.environ["TPOTBENCH_LOG_DIR"]) / "tpotbench.log"
    before = log_file.read_text() if log_file.exists() else ""
    proc = subprocess.Popen(
        [sys.executable, "-m", "app"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 90  # a hang guard: start-up is slow on a busy machine
        while time.monotonic() < deadline:  # wait until the built-in simulator is up
            text = log_file.read_text() if log_file.exists() else ""
            if "built-in simulator at http://127.0.0.1:" in text[len(before) :]:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the window never started its simulator")
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err.decode()[-2000:]
    assert b"Traceback" not in err
    fresh = text[len(before) :]
    port = int(re.search(r"built-in simulator at http://127\.0\.0\.1:(\d+)", fresh).group(1))
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_language_switch_is_in_place_and_persists(qtbot, qloop, sim, memory_keyring) -> None:
    service = SimulatorService()
    service.adopt(sim)
    ctx = AppContext(ProfileStore(), KeyStore(), settings(), service)
    translations = Translations(QApplication.instance())
    translations.install("en")
    manager = WindowManager(ctx, translations)
    first = manager.window
    qtbot.addWidget(first)
    first.show()
    try:
        manager.switch_language("zh_CN")
        assert manager.window is first  # retranslated, not rebuilt
        qtbot.waitUntil(lambda: first.tabs.tabText(0) == "探测", timeout=10_000)
        assert settings().value(SETTINGS_KEY) == "zh_CN"
    finally:
        translations.install("en")
        manager.window.close()
