"""After an early stop the next point waits (bounded) until the server's running gauge says
the dropped streams are gone: against the formula server, whose dropped streams stay counted
until released, as a server slow to notice them would."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bench.capacity.slo import parse_slos
from app.bench.datasets.prompts import SampleRequest
from app.bench.http.endpoint import resolve_endpoint
from app.bench.results.read import point_from_doc
from app.bench.schema.point_doc import point_json
from app.bench.serverstats.scrape import MetricsScraper
from app.bench.sweep.drain import wait_for_idle
from app.bench.sweep.early_stop import EarlyStop
from app.bench.sweep.plan import PointSpec
from app.bench.sweep.point import run_point
from app.bench.sweep.run_context import RunContext
from app.commands.sweep_console import format_summary
from tests.formula_server import FormulaServer, tpot_ms


@pytest.fixture
def server() -> Iterator[FormulaServer]:
    running = FormulaServer(tokens=20, metrics=True, hold_aborted=True).start()
    try:
        yield running
    finally:
        running.stop()


def _scraper(server: FormulaServer) -> MetricsScraper:
    return MetricsScraper(f"{server.base_url}/metrics")


def test_the_wait_ends_when_the_gauge_reaches_zero(server: FormulaServer) -> None:
    server.held = 2  # two dropped streams the server has not let go of yet

    async def scenario() -> object:
        waiting = asyncio.ensure_future(wait_for_idle(_scraper(server), limit_s=600))
        # it has seen them running, and still waits
        assert await asyncio.to_thread(server.wait_for_scrapes, 2)
        assert not waiting.done()
        server.release_aborted()
        return await waiting

    drain = asyncio.run(scenario())
    assert drain.idle and drain.running == 0 and drain.warning() is None


def test_the_wait_is_bounded_and_says_what_was_left(server: FormulaServer) -> None:
    server.held = 3
    ticks = itertools.count()  # a clock one second later at every reading

    drain = asyncio.run(
        wait_for_idle(_scraper(server), limit_s=5, poll_s=0, clock=lambda: float(next(ticks)))
    )
    assert drain is not None and not drain.idle and drain.running == 3 and drain.waited_s == 5
    assert "still ran 3 request(s) 5.0 s after the early stop" in (drain.warning() or "")


def test_no_gauge_no_wait() -> None:
    plain = FormulaServer().start()  # /metrics is 404
    try:
        assert asyncio.run(wait_for_idle(_scraper(plain), limit_s=600)) is None
    finally:
        plain.stop()


def test_an_early_stopped_point_ends_only_once_the_server_has_let_go(
    server: FormulaServer, tmp_path: Path
) -> None:
    # 8 requests, 4 at a time: TPOT at 4 streams is far over the limit, so the point stops
    # early and drops its in-flight streams, which the server holds until released.
    limit = tpot_ms(1) + 1
    config = RunContext(
        resolved=resolve_endpoint(server.base_url, "/v1/chat/completions", "chat", "formula"),
        model="formula",
        backend="openai-chat",
        samples=[SampleRequest("hello", 8, 20, f"r{i}") for i in range(8)],
        rates=[float("inf")],
        concurrencies=[4],
        result_dir=tmp_path,
        label="drain",
        slos=parse_slos([f"tpot:p99:{limit:g}"]),
    )
    early = EarlyStop(config.slos, 8)

    def release_once_seen() -> None:
        # The server lets go only after the client has looked at /metrics and seen them.
        if server.metrics_scrapes >= 1:
            server.release_aborted()
        else:
            server._loop.call_later(0.01, release_once_seen)

    server._loop.call_soon_threadsafe(release_once_seen)
    path, doc = asyncio.run(
        run_point(config, PointSpec(0, float("inf"), 4), [], asyncio.Event(), early_stop=early)
    )
    result = point_json(doc)
    block = result["tpotbench"]["early_stop"]
    assert block["reason"] and server.aborted > 0
    assert block["server_drain"]["idle"] is True and block["server_drain"]["running"] == 0
    assert server.in_flight == 0 and server.held == 0
    assert json.loads(Path(path).read_text())["tpotbench"]["early_stop"] == block
    assert "Warning: the server still ran" not in format_summary(point_from_doc(doc))
