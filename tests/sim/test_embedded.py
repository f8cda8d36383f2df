"""The in-process simulator: base URL, clean start and stop even with a stream still open."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from app.paths import cli_command
from app.sim.config import SimConfig
from app.sim.embedded import start_sim_process, start_sim_thread


def test_thread_sim_context_manager_and_prefix() -> None:
    with start_sim_thread(SimConfig(path_prefix="api/")) as sim:
        assert sim.base_url == f"http://127.0.0.1:{sim.port}/api"
        assert httpx.get(f"{sim.base_url}/health").status_code == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{sim.base_url}/health")


def test_stop_with_an_open_stream_is_prompt() -> None:
    sim = start_sim_thread()
    body = {"prompt": "x", "max_tokens": 3000, "ignore_eos": True, "stream": True}
    url = f"{sim.base_url}/v1/completions"
    with httpx.Client(timeout=10) as client, client.stream("POST", url, json=body) as response:
        lines = response.iter_lines()
        assert next(lines).startswith("data: {")
        # A 3,000-token stream takes a minute; stop() cuts it (the client sees the connection
        # end mid-stream) rather than waiting for it to finish.
        sim.stop()
        with pytest.raises(httpx.RemoteProtocolError):
            for _ in lines:
                pass


def test_repr_hides_the_api_key() -> None:
    config = SimConfig(api_key="sk-secret-value")
    assert "sk-secret-value" not in repr(config)
    assert "api_key=<set>" in repr(config)


class _ForbiddingPolicy(asyncio.DefaultEventLoopPolicy):
    """A host (like qasync) whose policy hands out its own loops: the sim must not take one."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        raise AssertionError("the simulator thread asked the global policy for its loop")


def test_thread_sim_ignores_the_global_loop_policy() -> None:
    previous = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(_ForbiddingPolicy())
    try:
        with start_sim_thread() as sim:
            assert httpx.get(f"{sim.base_url}/health").status_code == 200
    finally:
        asyncio.set_event_loop_policy(previous)


def _refused_within(port: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                pass
        except OSError:
            return True
        time.sleep(0.05)
    return False


def test_sim_command_exits_when_stdin_closes() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cmd = [*cli_command(), "sim", "--port", str(port), "--exit-on-stdin-eof"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        assert _accepts_within(port, 20)
        assert proc.poll() is None
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _accepts_within(port: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False


_PARENT = """
import sys
from app.sim.embedded import start_sim_process
sim = start_sim_process([])
print(sim.port, flush=True)
sys.stdin.read()  # wait here until the test kills this process
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL to kill the parent")
def test_process_sim_dies_with_a_killed_parent() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        port = int(parent.stdout.readline())
        assert _accepts_within(port, 5)
        parent.send_signal(signal.SIGKILL)  # no cleanup code runs in the parent
        parent.wait(10)
        assert _refused_within(port, 10), "the simulator outlived its killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for stream in (parent.stdin, parent.stdout):
            if stream is not None:
                stream.close()


def test_process_sim_stop_and_base_url() -> None:
    with start_sim_process(["--path-prefix", "/api"]) as sim:
        assert sim.base_url == f"http://127.0.0.1:{sim.port}/api"
        assert httpx.get(f"{sim.base_url}/health").status_code == 200
    assert _refused_within(sim.port, 5)
