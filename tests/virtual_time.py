"""An asyncio event loop on a virtual clock, for tests of code that sleeps and stamps times.

Whenever the loop would block waiting for its next timer and no socket is ready, the clock jumps
to that timer instead of the machine waiting for it. Timers still fire in the order of their
deadlines, so a schedule's outcome is exact and the machine's load cannot change it:

    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        runner.run(scenario())

Code under test that stamps with its own clock takes `virtual_ns` (the loop's time in ns).
"""

from __future__ import annotations

import asyncio
import selectors


class _VirtualSelector(selectors.DefaultSelector):
    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        events = super().select(0)
        if events or timeout == 0:
            return events
        if timeout is None:  # no timer pending: only I/O (or another thread) can wake the loop
            return super().select(None)
        self.now += timeout
        return []


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self._virtual = _VirtualSelector()
        super().__init__(self._virtual)

    def time(self) -> float:
        return self._virtual.now


def virtual_ns() -> int:
    """The running loop's clock in nanoseconds (a `clock` for code that takes one)."""
    return round(asyncio.get_running_loop().time() * 1e9)
