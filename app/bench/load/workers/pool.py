"""Where workers run: child processes on this machine, or actors on a Ray cluster. Both give
the driver the same small interface."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from app.bench.load.workers.messages import WorkerJob, WorkerMessage


@dataclass(frozen=True)
class ClockOffset:
    """driver clock = worker clock + offset_ns, known to within rtt_ns / 2."""

    offset_ns: int = 0
    rtt_ns: int = 0


class WorkerError(RuntimeError):
    """Workers could not be started (the message says what to do)."""


class WorkerPool(Protocol):
    """Starts one worker per job and relays what they report.

    `clock_offsets` says, per worker, what to add to its monotonic clock readings to get the
    driver's, and how uncertain that is (a round-trip time; 0 for processes on this machine,
    which read the same CLOCK_MONOTONIC). `go(start_ns)` releases every worker at that time on
    the driver's clock."""

    messages: asyncio.Queue[WorkerMessage]

    async def start(self, jobs: Sequence[WorkerJob]) -> None: ...
    async def clock_offsets(self) -> dict[int, ClockOffset]: ...
    async def go(self, start_ns: int) -> None: ...
    async def cancel(self) -> None: ...
    async def close(self) -> None: ...
