"""Connection reuse that real servers accept: a server that retires a kept-alive connection (after
N requests, or after it sat idle) never turns into a failed request; the retry on a new
connection is counted in the record, the result file and the console, never hidden."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bench.http.client import make_client
from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.http.stream import send_request
from tests.hostile_server import HostileServer

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with HostileServer() as srv:
        yield srv


def _sequence(server: HostileServer, mode: str, transport: str, n: int) -> list[RequestRecord]:
    resolved = resolve_endpoint(server.url(mode), None, "chat", model="m")

    async def go() -> list[RequestRecord]:
        async with make_client(1, transport=transport) as client:
            return [
                await send_request(
                    client, resolved, RequestSpec("hi", 1, 4), clock=time.monotonic_ns
                )
                for _ in range(n)
            ]

    return asyncio.run(go())


@pytest.mark.parametrize("transport", ["native", "httpx"])
def test_a_connection_retired_under_a_request_is_retried_once_on_a_new_one(
    server, transport
) -> None:
    records = _sequence(server, "close-after-2", transport, 7)
    assert [r.error for r in records if not r.ok] == []
    assert all(r.output_tokens == 4 for r in records)
    retried = [i for i, r in enumerate(records) if r.retried]
    assert server.dropped == len(retried) >= 2
    # each retry names what happened to the first send
    assert all("disconnected" in records[i].retry_error.lower() for i in retried)
    # the retry's own send is the request's start: after the dropped send, before the answer
    events = [(what, t) for what, t, _ in server.log]
    for i in retried:
        rec = records[i]
        dropped = max(t for what, t in events if what == "dropped" and t < rec.end_ns)
        answered = min(t for what, t in events if what == "answered" and t > dropped)
        assert dropped < rec.send_ns <= answered
        assert rec.send_ns > rec.submit_ns


@pytest.mark.parametrize("transport", ["native", "httpx"])
def test_connection_close_is_honoured(server, transport) -> None:
    # the server says "Connection: close" and leaves the socket open: reusing it would hang
    records = _sequence(server, "conn-close", transport, 3)
    assert all(r.ok and not r.retried for r in records)
    assert server.connections == 3


def test_a_failure_on_a_new_connection_is_not_retried(server) -> None:
    # close-after-0 drops every request: the first send is on a new connection, so the
    # failure is real and reported, not hidden behind a retry
    (rec,) = _sequence(server, "close-after-0", "native", 1)
    assert not rec.ok and rec.error_kind == "connect" and not rec.retried
    assert server.dropped == 1


def _sweep(url: str, result_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        *(sys.executable, "-m", "app", "sweep", "--base-url", url, "--model", "m"),
        *("--endpoint", "/v1/chat/completions", "--dataset-name", "random"),
        *("--random-input-len", "8", "--output-len", "4", "--num-prompts", "20"),
        *("--result-dir", str(result_dir), "--disable-tqdm", *extra),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=100, env=env)


@pytest.mark.parametrize(
    ("mode", "extra"),
    [
        ("close-after-5", ("--max-concurrency", "1,2,4,3,5")),
        ("idle-close", ("--request-rate", "4", "--max-concurrency", "1,3")),
        # the load split over two worker processes: their records carry the retries
        ("close-after-5", ("--workers", "2", "--max-concurrency", "4,2")),
    ],
)
def test_a_multi_point_sweep_has_no_spurious_failures(tmp_path, server, mode, extra) -> None:
    done = _sweep(server.url(mode), tmp_path, *extra)
    assert done.returncode == 0, done.stderr
    results = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    results.sort(key=lambda r: r["tpotbench"]["point"]["index"])
    assert len(results) == len(extra[-1].split(","))
    assert [(r["completed"], r["failed"]) for r in results] == [(20, 0)] * len(results)
    retried = [r["tpotbench"]["retried_requests"] for r in results]
    assert sum(retried) == server.dropped > 0
    # the console says it, point by point
    shown = [line for line in done.stdout.splitlines() if "Retried on a new connection:" in line]
    assert [int(line.split()[-1]) for line in shown] == retried
