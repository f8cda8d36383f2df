"""A load worker as a child process (`tpotbench _worker`): job in on stdin, reports out on
stdout, both as frames. Started by app.bench.load.workers.local; not a command for people."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time

from app.bench.http import client as client_mod
from app.bench.http.auth import redact
from app.bench.load.workers import wire
from app.bench.load.workers.core import pin_to_cpu, run_share
from app.bench.load.workers.messages import WorkerJob, WorkerLost, WorkerMessage

_FLUSH_TIMEOUT_S = 30.0


async def _serve(frames_out: int) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=wire.MAX_FRAME)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(0, "rb", buffering=0)
    )
    # A non-blocking writer: a busy parent must never stall this worker's timing loop.
    transport, _ = await loop.connect_write_pipe(
        asyncio.Protocol, os.fdopen(frames_out, "wb", buffering=0)
    )

    def emit(message: WorkerMessage) -> None:
        transport.write(wire.encode(message))

    job: WorkerJob = await wire.read_frame(reader)
    pin_to_cpu(job.cpu)
    cancel = asyncio.Event()
    go: asyncio.Future[int] = loop.create_future()

    async def commands() -> None:
        # ("go", start_ns) then maybe ("cancel",); the parent closing stdin (it died or
        # gave up) cancels too, so an orphaned worker never keeps loading the server.
        try:
            while True:
                command = await wire.read_frame(reader)
                if command[0] == "go" and not go.done():
                    go.set_result(command[1])
                elif command[0] == "cancel":
                    cancel.set()
        except (EOFError, wire.FrameError):
            cancel.set()
            if not go.done():
                go.set_result(time.perf_counter_ns())

    listener = asyncio.ensure_future(commands())
    try:
        await run_share(job, emit, cancel, go)
    except Exception as exc:
        emit(WorkerLost(job.worker, redact(f"{type(exc).__name__}: {exc}", job.api_key)[:300]))
    finally:
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listener
        # The last reports may still sit in the pipe's buffer when a busy parent reads
        # slowly: exiting now would lose them (and the parent would call the worker lost).
        deadline = time.monotonic() + _FLUSH_TIMEOUT_S
        while transport.get_write_buffer_size() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        transport.close()


def main() -> int:
    # Frames go to the original stdout; anything else printed lands on stderr, not in a frame.
    frames_out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        client_mod.run(_serve(frames_out))
    except KeyboardInterrupt:
        return 130
    return 0
