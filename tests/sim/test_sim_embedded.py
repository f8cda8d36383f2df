"""The in-process simulator: base URL, clean start and stop even with a stream still open."""

from __future__ import annotations

import time

import httpx
import pytest

from app.sim.config import SimConfig
from app.sim.embedded import start_sim_thread


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
        start = time.perf_counter()
        sim.stop()
        assert time.perf_counter() - start < 5
        with pytest.raises(httpx.RemoteProtocolError):
            for _ in lines:
                pass


def test_repr_hides_the_api_key() -> None:
    config = SimConfig(api_key="sk-secret-value")
    assert "sk-secret-value" not in repr(config)
    assert "api_key=<set>" in repr(config)
