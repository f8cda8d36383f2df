"""Window identity (desktop file name, icon, names) matches packaging; About lists the versions."""

from __future__ import annotations

import importlib.util
import platform
from pathlib import Path

import PySide6
import pytest
from PySide6.QtCore import QTimer, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from app import __version__
from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup import DESKTOP_ID, DISPLAY_NAME, create_application, settings
from app.ui.app_setup_sim import SimulatorService
from app.ui.main_window import AppContext, MainWindow

ROOT = Path(__file__).resolve().parents[2]


def _packaging_icons():
    spec = importlib.util.spec_from_file_location("packaging_icons", ROOT / "packaging/icons.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_desktop_id_is_the_packaged_app_id() -> None:
    icons = _packaging_icons()
    assert DESKTOP_ID == icons.APP_ID == "io.github.tpotbench.TPOTBench"
    entry = ROOT / "packaging" / "linux" / f"{DESKTOP_ID}.desktop"
    assert f"Icon={DESKTOP_ID}" in entry.read_text(encoding="utf-8").splitlines()


def test_application_carries_names_desktop_file_and_icon(qapp: QApplication) -> None:
    app = create_application()
    assert app is qapp  # reused, not a second QApplication
    assert QGuiApplication.desktopFileName() == DESKTOP_ID
    assert QGuiApplication.applicationDisplayName() == DISPLAY_NAME
    assert not app.windowIcon().isNull()
    assert (ROOT / "resources" / "icons" / "app" / "tpotbench.svg").is_file()


@pytest.fixture
def window(qtbot, memory_keyring) -> MainWindow:
    win = MainWindow(AppContext(ProfileStore(), KeyStore(), settings(), SimulatorService()))
    qtbot.addWidget(win)
    return win


def test_about_dialog_lists_app_qt_pyside_python_and_keyring_versions(
    qtbot, window: MainWindow
) -> None:
    seen: list[str] = []

    def read_and_close() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, read_and_close)  # not shown yet
            return
        seen.append(box.windowTitle() + "\n" + box.text())
        box.accept()

    QTimer.singleShot(0, read_and_close)
    window.show_about()  # modal: returns once read_and_close accepted it
    assert len(seen) == 1
    text = seen[0]
    assert text.startswith("About TPOT Bench")
    assert f"TPOT Bench {__version__}" in text
    assert f"Qt {qVersion()}" in text
    assert f"PySide6 {PySide6.__version__}" in text
    assert f"Python {platform.python_version()}" in text
    # conftest's in-memory keyring counts as a secure backend; its class name is shown.
    backend = window.ctx.keys.status().backend
    assert backend
    assert f"Keyring backend: {backend}" in text
