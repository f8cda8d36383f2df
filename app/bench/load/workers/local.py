"""Load workers as child processes of this program (`tpotbench _worker`), one per core."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence

from app.bench.load.workers import wire
from app.bench.load.workers.messages import WorkerFinished, WorkerJob, WorkerLost, WorkerMessage
from app.bench.load.workers.pool import ClockOffset, WorkerError
from app.paths import cli_command

_EXIT_WAIT_S = 10.0


class LocalPool:
    """Child processes on this machine: they share CLOCK_MONOTONIC with the driver, so their
    timestamps need no translation."""

    def __init__(self) -> None:
        self.messages: asyncio.Queue[WorkerMessage] = asyncio.Queue()
        self._procs: dict[int, asyncio.subprocess.Process] = {}
        self._readers: list[asyncio.Task[None]] = []

    async def start(self, jobs: Sequence[WorkerJob]) -> None:
        for job in jobs:
            try:
                proc = await asyncio.create_subprocess_exec(
                    *cli_command(),
                    "_worker",
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    limit=wire.MAX_FRAME,
                )
            except OSError as exc:
                await self.close()
                raise WorkerError(f"cannot start a load worker process: {exc}") from None
            self._procs[job.worker] = proc
            assert proc.stdin is not None
            proc.stdin.write(wire.encode(job))
            self._readers.append(asyncio.ensure_future(self._read(job.worker, proc)))

    async def _read(self, worker: int, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        reason = "the worker process ended before finishing its requests"
        try:
            while True:
                message = await wire.read_frame(proc.stdout)
                self.messages.put_nowait(message)
                if isinstance(message, WorkerFinished | WorkerLost):
                    return
        except EOFError:
            pass
        except wire.FrameError as exc:
            reason = f"the worker process sent a broken report ({exc})"
        code = await proc.wait()
        if code:
            reason += f" (exit code {code})"
        self.messages.put_nowait(WorkerLost(worker, reason))

    async def _send(self, command: tuple[object, ...]) -> None:
        for proc in self._procs.values():
            if proc.stdin is None or proc.stdin.is_closing():
                continue
            with contextlib.suppress(ConnectionError, RuntimeError):
                proc.stdin.write(wire.encode(command))
                await proc.stdin.drain()

    async def clock_offsets(self) -> dict[int, ClockOffset]:
        return {worker: ClockOffset() for worker in self._procs}

    async def go(self, start_ns: int) -> None:
        await self._send(("go", start_ns))

    async def cancel(self) -> None:
        await self._send(("cancel",))

    async def close(self) -> None:
        for proc in self._procs.values():
            if proc.stdin is not None and not proc.stdin.is_closing():
                proc.stdin.close()  # EOF: a worker still running cancels and exits
        for proc in self._procs.values():
            try:
                await asyncio.wait_for(proc.wait(), _EXIT_WAIT_S)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        for task in self._readers:
            task.cancel()
        await asyncio.gather(*self._readers, return_exceptions=True)
        self._readers.clear()
