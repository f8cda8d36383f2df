"""Run the simulator inside this process (a uvicorn thread) or as a `python -m app sim` child."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from types import TracebackType

from app.paths import cli_command
from app.sim.config import SimConfig

_START_TIMEOUT_S = 20.0


class SimStartError(RuntimeError):
    """The simulator did not come up; the message says why."""


class RunningSim:
    """A started simulator: `base_url` (with any path prefix), `port`, `stop()`, a child's `pid`."""

    def __init__(
        self, host: str, port: int, prefix: str, stopper: Callable[[], None], pid: int | None = None
    ) -> None:
        self.host = host
        self.port = port
        self.pid = pid
        self.root_url = f"http://{host}:{port}"
        self.base_url = self.root_url + prefix
        self._stopper: Callable[[], None] | None = stopper

    def stop(self) -> None:
        stop = self._stopper
        self._stopper = None
        if stop is not None:
            stop()

    def __enter__(self) -> RunningSim:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RunningSim(base_url={self.base_url!r})"


def _bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def start_sim_thread(
    config: SimConfig | None = None, host: str = "127.0.0.1", port: int = 0
) -> RunningSim:
    """uvicorn on a daemon thread with its own event loop; returns once it accepts requests."""
    import uvicorn

    from app.sim.server import build_app

    config = config or SimConfig()
    if config.spin_us is None:  # never busy-wait holding the host process's interpreter lock
        config = dataclasses.replace(config, spin_us=0.0)
    app = build_app(config)
    sock = _bind(host, port)
    actual_port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_level="warning",
            lifespan="on",
            loop="asyncio",
            http="h11",
            timeout_graceful_shutdown=2,
        )
    )
    errors: list[BaseException] = []

    def run() -> None:
        # Not asyncio.new_event_loop(): that follows the global loop policy, which a GUI host
        # may have pointed at its own (Qt) loop. uvicorn needs a plain selector loop here.
        loop = asyncio.SelectorEventLoop()
        try:
            loop.run_until_complete(server.serve(sockets=[sock]))
        except BaseException as exc:  # surfaced to the starting thread below
            errors.append(exc)
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    thread = threading.Thread(target=run, name=f"tpotbench-sim-{actual_port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not server.started:
        if errors or not thread.is_alive():
            sock.close()
            raise SimStartError(f"the simulator thread failed to start: {errors[:1]}")
        if time.monotonic() > deadline:
            server.should_exit = True
            thread.join(5)
            sock.close()
            raise SimStartError("the simulator thread did not start within 20 s")
        time.sleep(0.005)

    def stop() -> None:
        server.should_exit = True
        thread.join(10)
        sock.close()

    return RunningSim(host, actual_port, config.normalized_prefix, stop)


def start_sim_process(args: list[str], port: int = 0) -> RunningSim:
    """`tpotbench sim ARGS --port PORT` as a child process (its own GIL and core).

    The child watches the stdin pipe it gets from this process and exits when that pipe
    closes, so it never outlives its parent, even one that is killed outright.
    """
    host = "127.0.0.1"
    if port == 0:
        probe = _bind(host, 0)
        port = probe.getsockname()[1]
        probe.close()
    prefix = ""
    if "--path-prefix" in args:
        prefix = SimConfig(path_prefix=args[args.index("--path-prefix") + 1]).normalized_prefix
    cmd = [*cli_command(), "sim", *args, "--host", host, "--port", str(port), "--exit-on-stdin-eof"]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    # stderr goes to a file, not a pipe nobody drains: a chatty child must never block.
    errors = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 (closed by stop)
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors, env=env
    )

    def stop() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(OSError):
            proc.stdin.close()  # the child's cue to shut down cleanly
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        errors.close()

    deadline = time.monotonic() + _START_TIMEOUT_S
    while True:
        if proc.poll() is not None:
            errors.seek(0)
            message = errors.read().strip()
            stop()
            raise SimStartError(f"'tpotbench sim' exited with code {proc.returncode}: {message}")
        try:
            with socket.create_connection((host, port), timeout=0.2):
                break
        except OSError:
            if time.monotonic() > deadline:
                stop()
                raise SimStartError(
                    "'tpotbench sim' did not accept connections within 20 s"
                ) from None
            time.sleep(0.02)

    return RunningSim(host, port, prefix, stop, pid=proc.pid)
