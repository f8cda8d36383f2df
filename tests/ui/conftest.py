"""UI test fixtures: a qasync loop under pytest-qt, an in-memory keyring, isolated settings."""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import pytest

from tests.keyring_double import MemoryKeyring

os.environ.setdefault("QT_API", "pyside6")


@pytest.fixture(scope="session", autouse=True)
def gui_thread_gc(qapp) -> Iterator[None]:
    """As in the app: the cyclic collector runs on the GUI thread only (GuiThreadCollector).

    The `sim` and `make_sim` simulators serve from uvicorn threads in this process; a collection
    started there finalised the Qt wrappers of earlier plots off the GUI thread and crashed or
    deadlocked the tier.
    """
    from app.ui.app_setup import collect_on_gui_thread

    collector = collect_on_gui_thread(qapp)
    yield
    collector.uninstall()


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Profiles, QSettings and the log file go to the test's own folder, never the user's."""
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TPOTBENCH_LOG_DIR", str(tmp_path / "log"))
    return tmp_path


@pytest.fixture
def qloop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync loop riding on pytest-qt's event processing (qtbot.wait* drives its tasks).

    Never loop.stop(): on qasync it calls QApplication.exit(), which poisons every later
    QEventLoop.exec() in the session.
    """
    import qasync

    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    deadline = 200
    while any(not t.done() for t in pending) and deadline:
        qapp.processEvents()
        deadline -= 1
    asyncio.set_event_loop(None)
    # already_running=True registers the loop as *running* for this thread; left so, any later
    # test calling asyncio.run() fails with "cannot be called from a running event loop".
    asyncio.events._set_running_loop(None)


@pytest.fixture(autouse=True)
def no_leaked_windows(qapp) -> Iterator[None]:
    """Fail a test that leaves a parentless top-level widget alive (a forgotten window)."""
    from PySide6.QtCore import QCoreApplication, QEvent

    before = {id(w) for w in qapp.topLevelWidgets()}
    yield
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qapp.processEvents()
    leaked = [
        w
        for w in qapp.topLevelWidgets()
        if id(w) not in before and w.parent() is None and w.isVisible()
    ]
    for w in leaked:
        w.close()
        w.deleteLater()
    # Collect this test's Qt wrappers here, on the GUI thread, so each test starts clean (the
    # collector never runs on other threads: see gui_thread_gc).
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    assert not leaked, f"test left top-level widgets open: {[type(w).__name__ for w in leaked]}"


@pytest.fixture
def sim_window(qtbot, qloop, sim, memory_keyring):
    """The main window, shown, on the session's simulator (which the window does not stop)."""
    from app.profiles import ProfileStore
    from app.secrets import KeyStore
    from app.ui.app_setup import settings
    from app.ui.app_setup_sim import SimulatorService
    from app.ui.main_window import AppContext, MainWindow

    service = SimulatorService()
    service.adopt(sim)
    win = MainWindow(AppContext(ProfileStore(), KeyStore(), settings(), service))
    qtbot.addWidget(win)
    win.show()
    return win
