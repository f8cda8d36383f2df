"""Application plumbing: the crash dialog names the log file, fonts, themes, keys stay out."""

from __future__ import annotations

import gc
import logging
import os
import threading
import weakref
from contextlib import AbstractContextManager
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QMessageBox

from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui import app_setup
from app.ui.app_setup import (
    CrashHandler,
    collect_on_gui_thread,
    freeze_long_lived,
    held_collections,
    settings,
    setup_logging,
)
from app.ui.app_setup_i18n import apply_font, choose_language, cjk_family
from app.ui.app_setup_sim import SimulatorService
from app.ui.main_window import AppContext, MainWindow
from app.ui.theme import apply_plot_theme, plot_colors


def test_crash_dialog_names_the_log_file(monkeypatch: pytest.MonkeyPatch, qapp) -> None:
    log_path = setup_logging()
    shown: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "critical", staticmethod(lambda _parent, _title, text: shown.append(text))
    )
    handler = CrashHandler(log_path)
    try:
        raise RuntimeError("boom in a slot")
    except RuntimeError as exc:
        handler(type(exc), exc, exc.__traceback__)
    assert len(shown) == 1
    assert str(log_path) in shown[0]
    assert "RuntimeError: boom in a slot" in shown[0]
    for h in logging.getLogger().handlers:
        h.flush()
    assert "Traceback" in log_path.read_text()  # the details go to the file, not the dialog
    assert "Traceback" not in shown[0]


def test_log_file_lives_in_the_log_dir() -> None:
    path = setup_logging()
    assert path.parent == Path(os.environ["TPOTBENCH_LOG_DIR"])
    assert app_setup.log_dir() == path.parent


def test_language_choice_order(qapp) -> None:
    s = settings()
    s.setValue("ui/language", "zh_CN")
    assert choose_language(None, s) == "zh_CN"
    assert choose_language("en", s) == "en"  # --lang wins over the menu choice
    s.setValue("ui/language", "")
    assert choose_language(None, s) in ("en", "zh_CN")  # the system locale decides


def test_cjk_font_is_a_fallback_family(qapp) -> None:
    family = cjk_family()
    if family is None:
        pytest.skip("no CJK font installed (apt-get install fonts-wqy-microhei)")
    before = QApplication.font()
    try:
        apply_font(qapp, "zh_CN")
        assert QApplication.font().families()[0] == family
        apply_font(qapp, "en")
        assert family in QApplication.font().families()[1:]
    finally:
        QApplication.setFont(before)


def test_plots_follow_the_palette(qtbot, qapp) -> None:
    before = QApplication.palette()
    dark = QPalette(before)
    dark.setColor(QPalette.ColorRole.Base, QColor("#202020"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#e0e0e0"))
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    try:
        QApplication.setPalette(dark)
        apply_plot_theme(plot)
        background, foreground = plot_colors()
        assert background.name() == "#202020"
        assert foreground.name() == "#e0e0e0"
        assert plot.backgroundBrush().color().name() == "#202020"
    finally:
        QApplication.setPalette(before)
        apply_plot_theme()


def test_key_never_reaches_settings_or_log(qtbot, qloop, memory_keyring, isolated_dirs) -> None:
    ctx = AppContext(ProfileStore(), KeyStore(), settings(), SimulatorService(), setup_logging())
    win = MainWindow(ctx)
    qtbot.addWidget(win)
    win.editor.select("TaoToken")
    win.editor.form.key_edit.setText("sk-must-not-leak-42")
    win.editor.form.model.combo.setEditText("some-model")
    assert win.editor.save_current()
    assert "sk-must-not-leak-42" not in repr(win.current_target())
    win.close()
    for h in logging.getLogger().handlers:
        h.flush()
    for path in isolated_dirs.rglob("*"):
        if path.is_file():
            assert b"sk-must-not-leak-42" not in path.read_bytes(), path


def test_garbage_is_collected_on_the_gui_thread_only(qtbot, qapp) -> None:
    """A thread that allocates never runs the collector (it would finalise Qt wrappers there:
    the crash and deadlock of the window tests); the GUI thread's timer collects instead."""
    collect_on_gui_thread(qapp)
    collectors: list[str] = []

    def watch(phase: str, _info: dict) -> None:
        if phase == "start":
            collectors.append(threading.current_thread().name)

    class Node:
        pass

    def cycle() -> weakref.ref[Node]:
        node = Node()
        node.self = node  # type: ignore[attr-defined]
        return weakref.ref(node)

    kept: list[list[list[int]]] = []
    gc.callbacks.append(watch)
    try:
        garbage = cycle()
        # Each batch alone passes the generation-0 threshold many times over.
        worker = threading.Thread(
            target=lambda: kept.extend([[] for _ in range(5_000)] for _ in range(10)),
            name="allocating",
        )
        worker.start()
        worker.join()
        assert "allocating" not in collectors
        qtbot.waitUntil(lambda: garbage() is None, timeout=5_000)
    finally:
        gc.callbacks.remove(watch)
    assert set(collectors) == {threading.main_thread().name}


def collected_while(
    collector: app_setup.GuiThreadCollector, hold: AbstractContextManager[object]
) -> tuple[list[int], list[int]]:
    """The generations `collector`'s timer check collected inside `hold`, the youngest
    generation's count made far past its threshold there, and at the check after it."""
    started: list[int] = []

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(watch)
    try:
        with hold:
            kept = [[] for _ in range(5_000)]  # the youngest generation's threshold passed
            assert gc.get_count()[0] > gc.get_threshold()[0]
            collector.check()
            during = list(started)
        collector.check()
    finally:
        gc.callbacks.remove(watch)
    assert len(kept) == 5_000
    return during, started[len(during) :]


def test_the_gui_threads_collector_waits_while_collections_are_held(qapp) -> None:
    """Work that makes millions of objects on another thread (a folder read) holds the
    collector: a collection of the youngest generation then walks all of them on the GUI
    thread. Held, the timer's check collects nothing however far past its threshold the count
    is; released, the next check collects."""
    during, after = collected_while(collect_on_gui_thread(qapp), held_collections())
    assert during == [] and after != []


def test_the_built_window_is_frozen_and_garbage_is_not() -> None:
    """Once the window is built (launch), what is alive is put out of the collector's reach,
    and what is garbage then is collected first, not frozen for good."""

    class Node:
        pass

    garbage = Node()
    garbage.self = garbage  # type: ignore[attr-defined]
    gone = weakref.ref(garbage)
    kept = Node()
    del garbage
    gc.unfreeze()
    try:
        freeze_long_lived()
        assert gone() is None
        # Frozen: no generation holds it, so no full pass walks it.
        assert gc.get_freeze_count() > 0
        assert not any(o is kept for o in gc.get_objects())
    finally:
        gc.unfreeze()
