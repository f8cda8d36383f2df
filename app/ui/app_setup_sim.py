"""The built-in simulator as the window's default endpoint: started off the GUI thread."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


class SimulatorService(QObject):
    """Owns the embedded simulator (a uvicorn thread on a free loopback port).

    Signals:
        started(str): the simulator's base URL.
        failed(str): a one-line reason it could not start.
    """

    started = Signal(str)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._running: Any = None
        self._owned = False
        self.error = ""
        self._task: asyncio.Future[Any] | None = None

    @property
    def base_url(self) -> str:
        return str(self._running.base_url) if self._running is not None else ""

    @property
    def is_running(self) -> bool:
        return self._running is not None

    async def start(self) -> str:
        """Start it (importing uvicorn and binding take a few hundred ms, so not on this thread)."""
        if self._running is not None:
            return self.base_url
        loop = asyncio.get_running_loop()
        try:
            self._task = loop.run_in_executor(None, _start)
            self._running = await self._task
            self._owned = True
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # any failure here leaves the app usable with other endpoints
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("the built-in simulator did not start")
            self.failed.emit(self.error)
            return ""
        log.info("built-in simulator at %s", self.base_url)
        self.started.emit(self.base_url)
        return self.base_url

    def adopt(self, running: Any) -> None:
        """Use a simulator someone else started (tests share one across windows)."""
        self._running = running
        self._owned = False
        self.started.emit(self.base_url)

    def stop(self) -> None:
        running, self._running = self._running, None
        if running is not None and self._owned:
            running.stop()


def _start() -> Any:
    from app.sim.embedded import start_sim_thread

    return start_sim_thread()
