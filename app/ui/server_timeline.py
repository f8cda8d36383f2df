"""The server timeline's parts: the polling pace, sampled gauges as held steps, an m:ss axis."""

from __future__ import annotations

import asyncio

import numpy as np
import pyqtgraph as pg

IDLE_INTERVAL_S = 2.0
RUN_INTERVAL_S = 0.25
# A server without /metrics (a cloud gateway): ask again only every half minute.
BACKOFF_AFTER = 3
BACKOFF_INTERVAL_S = 30.0


def hold_steps(t: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each sample held until the next one: (t0, v0), (t1, v0), (t1, v1), (t2, v1), ..."""
    if len(t) < 2:
        return t.copy(), values.copy()
    x = np.repeat(t, 2)[1:]
    y = np.repeat(values, 2)[:-1]
    return x, y


class ElapsedAxis(pg.AxisItem):
    """Seconds on the axis written as m:ss (or h:mm:ss): the dock runs all day."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        out = []
        for v in values:
            total = round(v * scale)
            sign, total = ("-", -total) if total < 0 else ("", total)
            h, rest = divmod(total, 3600)
            m, sec = divmod(rest, 60)
            out.append(f"{sign}{h}:{m:02d}:{sec:02d}" if h else f"{sign}{m}:{sec:02d}")
        return out


class Poll:
    """What the polling task reads: kept apart from the widget so the task never holds it."""

    def __init__(self, idle_s: float, run_s: float) -> None:
        self.idle_s = idle_s
        self.run_s = run_s
        self.running = False
        self.paused = False
        self.wake = asyncio.Event()

    def interval(self, failures: int) -> float:
        if failures >= BACKOFF_AFTER:
            return BACKOFF_INTERVAL_S
        return self.run_s if self.running else self.idle_s
