"""An asyncio loop on virtual time: timers fire in order at once, and `loop.time()` jumps to
each one's due time, so schedules are tested exactly, whatever the machine's load."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """Never sleeps: when nothing is ready, the clock advances to the next timer.
    `advance(s)` moves the clock by hand (a callback that hogs the loop for s seconds)."""

    def __init__(self) -> None:
        super().__init__()
        self._now = 1000.0  # a clock reading of 0 means "never stamped" in records
        real_select = self._selector.select  # type: ignore[attr-defined]

        def select(timeout: float | None = None) -> Any:
            events = real_select(0)
            if not events:
                if timeout is None:
                    raise RuntimeError("the virtual-time loop has nothing left to wait for")
                self._now += timeout
            return events

        self._selector.select = select  # type: ignore[attr-defined]

    def time(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    def clock_ns(self) -> int:
        return round(self._now * 1e9)


def run_virtual(make: Any) -> Any:
    """Run `make(loop)` (a coroutine) to completion on a fresh VirtualTimeLoop."""
    loop = VirtualTimeLoop()
    try:
        coro: Coroutine[Any, Any, Any] = make(loop)
        return loop.run_until_complete(coro)
    finally:
        loop.close()
