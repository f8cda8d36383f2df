"""The built-in simulator service: a real `tpotbench sim` child, started off the GUI thread."""

from __future__ import annotations

import asyncio
import socket
import time

import httpx
import pytest

from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup import settings
from app.ui.app_setup_sim import SimulatorService, one_line
from app.ui.main_window import AppContext, MainWindow


def _refuses(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return False
    except OSError:
        return True


def test_starts_a_child_process_that_serves_and_stops(qtbot, qloop) -> None:
    service = SimulatorService()
    urls: list[str] = []
    service.started.connect(urls.append)
    task = asyncio.ensure_future(service.start())
    # The GUI thread keeps turning while the child boots: the coroutine is still pending here.
    assert not task.done()
    qtbot.waitUntil(task.done, timeout=30_000)
    url = task.result()
    assert url.startswith("http://127.0.0.1:")
    assert urls == [url]
    running = service._running
    proc_port = running.port
    try:
        models = httpx.get(f"{url}/v1/models", timeout=5).json()
        assert [m["id"] for m in models["data"]] == ["qwen2.5-7b"]
    finally:
        service.stop()
    assert service.base_url == ""
    deadline = time.monotonic() + 10
    while not _refuses(proc_port) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _refuses(proc_port)


def test_a_failed_start_is_one_line_in_the_status_bar(qtbot, qloop, memory_keyring) -> None:
    service = SimulatorService(args=["--block-size", "0"])  # the child rejects this and exits 2
    window = MainWindow(AppContext(ProfileStore(), KeyStore(), settings(), service))
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(service.failed, timeout=30_000) as blocker:
        task = asyncio.ensure_future(service.start())
    qtbot.waitUntil(task.done, timeout=5_000)
    assert task.result() == ""
    error = blocker.args[0]
    assert "\n" not in error
    assert "--block-size must be 8, 16 or 32, got 0" in error
    message = window.statusBar().currentMessage()
    assert message.startswith("The built-in simulator did not start: ")
    assert "--block-size must be 8, 16 or 32" in message
    assert "simulator failed to start" in window.status.endpoint.text()
    assert "Traceback" not in message


def test_stop_while_starting_stops_the_child_once_it_is_up(
    qtbot, qloop, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.ui.app_setup_sim as module

    children = []
    real_start = module._start

    submitted = []

    def recording(args: list[str]):
        submitted.append(args)
        running = real_start(args)
        children.append(running)
        return running

    monkeypatch.setattr(module, "_start", recording)
    service = SimulatorService()
    urls: list[str] = []
    service.started.connect(urls.append)
    task = asyncio.ensure_future(service.start())
    qtbot.waitUntil(lambda: bool(submitted))  # the start runs on its helper thread
    service.stop()  # the app quits before the child listens
    qtbot.waitUntil(task.done, timeout=30_000)
    assert task.result() == ""
    assert urls == []
    assert service.base_url == ""
    qtbot.waitUntil(lambda: bool(children), timeout=30_000)
    deadline = time.monotonic() + 10
    while not _refuses(children[0].port) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _refuses(children[0].port)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain reason", "plain reason"),
        (
            "'tpotbench sim' exited with code 1: Traceback\n  File x\nOSError: port busy",
            "'tpotbench sim' exited with code 1: OSError: port busy",
        ),
    ],
)
def test_one_line_keeps_the_reason(text: str, expected: str) -> None:
    assert one_line(RuntimeError(text)) == expected
