"""Where workers run: child processes on this machine, or actors on a Ray cluster. Both give
the driver the same small interface."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol

from app.bench.workers.messages import WorkerJob, WorkerMessage


class WorkerError(RuntimeError):
    """Workers could not be started (the message says what to do)."""


class WorkerPool(Protocol):
    """Starts one worker per job and relays what they report.

    `shared_clock` is True when the workers read the same monotonic clock as the driver
    (processes on this machine): the driver then gives them an absolute start time. Otherwise
    each worker starts when `go` reaches it and reports its own origin."""

    shared_clock: bool
    messages: asyncio.Queue[WorkerMessage]

    async def start(self, jobs: Sequence[WorkerJob]) -> None: ...
    async def go(self, start_ns: int | None) -> None: ...
    async def cancel(self) -> None: ...
    async def close(self) -> None: ...
