"""The built-in simulator as the window's default endpoint: a child process started off the GUI
thread, so painting and this process's interpreter lock never delay its token timing."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


class SimulatorService(QObject):
    """Owns the built-in simulator (`tpotbench sim` on a free loopback port).

    The child gets a pipe on its stdin and `--exit-on-stdin-eof`, so it goes away with this
    process even when the app is killed without a chance to stop it.

    Signals:
        started(str): the simulator's base URL.
        failed(str): a one-line reason it could not start.
    """

    started = Signal(str)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, args: list[str] | None = None) -> None:
        super().__init__(parent)
        self.args = list(args or [])  # extra `tpotbench sim` flags (tests use them)
        self._running: Any = None
        self._owned = False
        self._pending: concurrent.futures.Future[Any] | None = None
        self.error = ""

    @property
    def base_url(self) -> str:
        return str(self._running.base_url) if self._running is not None else ""

    @property
    def is_running(self) -> bool:
        return self._running is not None

    async def start(self) -> str:
        """Start it; waiting for the child to listen happens on a helper thread."""
        if self._running is not None:
            return self.base_url
        if self._pending is None:
            pool = concurrent.futures.ThreadPoolExecutor(1, "tpotbench-sim-start")
            self._pending = pool.submit(_start, self.args)
            pool.shutdown(wait=False)
        pending = self._pending
        try:
            running = await asyncio.wrap_future(pending)
        except asyncio.CancelledError:
            if self._pending is pending:  # abandoned half-way: stop the child once it is up
                self._pending = None
                pending.add_done_callback(_stop_result)
            raise
        except Exception as exc:  # any failure here leaves the app usable with other endpoints
            self._pending = None
            self.error = one_line(exc)
            log.error("the built-in simulator did not start: %s", exc)
            self.failed.emit(self.error)
            return ""
        if self._pending is not pending:
            return ""  # stop() came first and has the child stopped
        self._pending = None
        self._running = running
        self._owned = True
        self.error = ""
        log.info("built-in simulator at %s", self.base_url)
        self.started.emit(self.base_url)
        return self.base_url

    def adopt(self, running: Any) -> None:
        """Use a simulator someone else started (tests share one across windows)."""
        self._running = running
        self._owned = False
        self.started.emit(self.base_url)

    def stop(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.add_done_callback(_stop_result)
        running, self._running = self._running, None
        if running is not None and self._owned:
            running.stop()


def one_line(exc: BaseException) -> str:
    """The last meaningful line of a start failure (the child's stderr ends with its reason)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    head = lines[0].split(":", 1)[0] if ":" in lines[0] else ""
    last = lines[-1]
    # "'tpotbench sim' exited with code 2: usage: ..." keeps its first clause and the real reason.
    return f"{head}: {last}" if len(lines) > 1 and head and not last.startswith(head) else last


def _stop_result(future: concurrent.futures.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is None:
        future.result().stop()


def _start(args: list[str]) -> Any:
    from app.sim.embedded import start_sim_process

    return start_sim_process(args)
