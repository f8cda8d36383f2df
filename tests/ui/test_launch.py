"""`tpotbench --screenshot` end to end, and switching the language rebuilds the window."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup import settings
from app.ui.app_setup_i18n import SETTINGS_KEY, Translations
from app.ui.app_setup_sim import SimulatorService
from app.ui.launch import WindowManager
from app.ui.main_window import AppContext


def test_screenshot_command_writes_a_png(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, "-m", "app", "--screenshot", str(out), "--lang", "zh_CN"],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    # The probe ran against the built-in simulator and the history shows it.
    log = (Path(os.environ["TPOTBENCH_LOG_DIR"]) / "tpotbench.log").read_text()
    assert "built-in simulator at http://127.0.0.1:" in log


def test_language_switch_rebuilds_and_persists(qtbot, qloop, sim, memory_keyring) -> None:
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
        qtbot.addWidget(manager.window)
        assert manager.window is not first
        assert manager.window.tabs.tabText(0) == "探测"
        assert settings().value(SETTINGS_KEY) == "zh_CN"
    finally:
        translations.install("en")
        manager.window.close()
