"""The "Check connection" panel: a real doctor run against the simulator fills the checklist."""

from __future__ import annotations

import asyncio
import os
import select
import socket
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from pytestqt.qtbot import QtBot

from app.bench.doctor.run import CHECK_IDS
from app.profiles import Target
from app.sim.embedded import RunningSim
from app.ui.panels.doctor.panel import DoctorPanel


def shot_path(tmp_path: Path, name: str) -> str:
    """Screenshots go to $TPOTBENCH_SHOTS_DIR when set (to look at them), else the test's dir."""
    return os.path.join(os.environ.get("TPOTBENCH_SHOTS_DIR") or str(tmp_path), name)


def target(base_url: str, **kw: object) -> Target:
    values: dict = {"profile_name": "test", "base_url": base_url, "api": "chat"}
    values["model"] = "qwen2.5-7b"
    values.update(kw)
    return Target(**values)


def make_panel(qtbot: QtBot, provider: Callable[[], Target]) -> DoctorPanel:
    panel = DoctorPanel(provider)
    qtbot.addWidget(panel)
    panel.resize(900, 560)
    return panel


def test_renders_pending_checklist(qtbot: QtBot) -> None:
    panel = make_panel(qtbot, lambda: target("http://127.0.0.1:1"))
    assert panel.button.text() == "Check connection"
    assert list(panel.rows) == list(CHECK_IDS)
    assert set(panel.statuses().values()) == {"pending"}
    assert not panel.copy_button.isEnabled()


def test_check_against_simulator_fills_every_row(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, sim: RunningSim, tmp_path: Path
) -> None:
    panel = make_panel(qtbot, lambda: target(sim.base_url))
    running: list[bool] = []
    panel.runningChanged.connect(running.append)
    with qtbot.waitSignal(panel.finished, timeout=20_000) as blocker:
        qtbot.mouseClick(panel.button, Qt.MouseButton.LeftButton)
        assert panel.button.text() == "Cancel"
    report = blocker.args[0]
    assert report.ok is True
    assert set(panel.statuses().values()) == {"ok"}
    assert "5,306 blocks × 16 = 84,896 tokens; 20 requests" in panel.rows["metrics"].detail.text()
    assert panel.summary.text().startswith("All checks passed.")
    assert panel.button.text() == "Check connection"
    assert running == [True, False]
    assert panel.copy_button.isEnabled()
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.grab().save(shot_path(tmp_path, "doctor_panel_ok.png"))


def test_failures_show_their_fix(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    make_sim: Callable[..., RunningSim],
    tmp_path: Path,
) -> None:
    keyed = make_sim(api_key="sk-tpot-right-key-0123456789abcd", disable_metrics=True)
    panel = make_panel(qtbot, lambda: target(keyed.base_url, api_key="sk-tpot-wrong-key-00wxyz"))
    with qtbot.waitSignal(panel.finished, timeout=20_000):
        panel.start()
    st = panel.statuses()
    assert st["reachable"] == "ok" and st["auth"] == "fail" and st["metrics"] == "warn"
    assert {st[c] for c in ("path", "model", "body", "streaming")} == {"skip"}
    auth = panel.rows["auth"]
    assert "Bearer sk-…wxyz" in auth.detail.text()
    assert not auth.fix.isHidden() and "Send a valid key" in auth.fix.text()
    assert panel.rows["path"].fix.isHidden()
    assert panel.summary.text().startswith("1 check(s) failed")
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.grab().save(shot_path(tmp_path, "doctor_panel_fail.png"))


def _pending(mute: socket.socket) -> bool:
    """A connection waits in the listening socket's backlog (the check has connected)."""
    return bool(select.select([mute], [], [], 0)[0])


def test_cancel_stops_a_hanging_check(qtbot: QtBot, qloop: asyncio.AbstractEventLoop) -> None:
    # A socket that listens but never accepts: the kernel completes the handshake, the request
    # goes out, and no answer ever comes, so the first check hangs until cancelled.
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)
        port = mute.getsockname()[1]
        panel = make_panel(qtbot, lambda: target(f"http://127.0.0.1:{port}"))
        with qtbot.waitSignal(panel.finished, timeout=30_000) as blocker:
            panel.start()
            # the check's connection is waiting in the backlog: the request is out, unanswered
            qtbot.waitUntil(lambda: _pending(mute), timeout=20_000)
            assert panel.running and panel.statuses()["reachable"] == "running"
            panel.button.click()  # the button reads "Cancel" while a check runs
    assert blocker.args[0] is None
    assert panel.summary.text() == "Check cancelled."
    assert set(panel.statuses().values()) == {"skip"}
    assert panel.rows["auth"].detail.text() == "cancelled"
    assert panel.task is not None and panel.task.done()
    assert panel.button.text() == "Check connection"


def test_unusable_url_is_reported_not_raised(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    panel = make_panel(qtbot, lambda: target("localhost:8000"))
    with qtbot.waitSignal(panel.finished, timeout=5_000):
        panel.start()
    assert panel.summary.text().startswith("Cannot check this endpoint: base URL 'localhost:8000'")
    assert "http://localhost:8000" in panel.summary.text()
    assert not panel.running


def test_destroying_the_panel_cancels_its_check(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    with socket.socket() as mute:  # the check hangs here until cancelled
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)
        port = mute.getsockname()[1]
        panel = DoctorPanel(lambda: target(f"http://127.0.0.1:{port}"))
        panel.start()
        task = panel.task
        assert task is not None
        qtbot.waitUntil(lambda: _pending(mute), timeout=20_000)
        # How a closed window goes away in the app: a deferred delete, run by the event loop.
        panel.deleteLater()
        QCoreApplication.sendPostedEvents(panel, QEvent.Type.DeferredDelete)
        qtbot.waitUntil(task.done, timeout=3_000)
    assert task.cancelled()
