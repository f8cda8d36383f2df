"""A deterministic capacity search for the search document's tests: a formula measure (no
server, no clock) that gives every branch of search.json something to write: repeated runs
with intervals, a marginal value, an early stop, a pass above a fail, points with results
(knees and whys) and a boundary evidence run."""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path
from typing import Any

from app.bench.capacity.search import RunMeasurement, SearchOutcome, SearchSettings, search
from app.bench.capacity.search_run import search_document, search_json
from app.bench.capacity.slo import parse_slos
from app.bench.http.endpoint import resolve_endpoint
from app.bench.schema.point_blocks import StatCheck
from app.bench.schema.point_doc import read_point_doc
from app.bench.schema.search_doc import SearchEndpoint
from app.bench.sweep.run_context import RunContext

SLOS = parse_slos(["tpot:p99:50", "ttft:p99:2000"])
SETTINGS = SearchSettings(start=1, maximum=64, growth=2, runs=2, num_prompts=64, min_prompts=8)
ENDPOINT = SearchEndpoint("http://127.0.0.1:9/v1/completions", "m", "completions")


def _tpot(value: float, run: int) -> float:
    if value == 50:  # a pass above the boundary: the monotonic check reports it
        return 20.0
    return 10.0 + value * 1.37 + (0.9 if run == 2 else 0.0) + (value % 3) * 0.71


@functools.cache
def _recorded() -> list[dict[str, Any]]:
    """Result documents of the scenario servers (why_golden.json): their blocks give the
    whys real causes (a queue, the KV cache, bandwidth with its estimate, ruled-out prefill)."""
    text = Path(__file__).with_name("why_golden.json").read_text(encoding="utf-8")
    return [case["result"] for case in json.loads(text)["cases"] if "tpotbench" in case["result"]]


def _result(value: float, n: int, tpot: float, recorded: bool = False) -> dict[str, Any]:
    base = _recorded()[int(value) % len(_recorded())] if recorded else {}
    return {
        **base,
        "completed": n,
        "failed": 0,
        "num_prompts": n,
        "max_concurrency": int(value),
        "p99_tpot_ms": tpot,
        "p99_ttft_ms": 100.0 + value * 3.3,
        "mean_tpot_ms": tpot * 0.8,
    }


async def _measure(value: float, run: int, n: int, recorded: bool = False) -> RunMeasurement:
    tpot = _tpot(value, run)
    checks = [
        StatCheck("tpot:p99:50", "stat", tpot, 50.0, tpot <= 50),
        StatCheck("ttft:p99:2000", "stat", 100.0 + value * 3.3, 2000.0, True),
    ]  # fmt: skip
    stop = "tpot:p99:50 proven" if value == 32 else None
    return RunMeasurement(
        value, run, tpot <= 50, checks, 0.1234567 * value + run / 7, n, stop,
        f"c{int(value)}_run{run}.json",
        read_point_doc(_result(value, n, tpot, recorded), strict=False),
    )  # fmt: skip


def case(recorded: bool = False) -> tuple[RunContext, SearchOutcome, RunMeasurement]:
    """The context, the finished search and an evidence run at its lowest fail (`recorded`:
    each run's result built on a scenario server's recorded one, for whys that name causes)."""
    config = RunContext(
        resolved=resolve_endpoint(ENDPOINT.url, "/v1/completions", "completions", None),
        model="m",
        backend="openai",
        samples=[],
        rates=[float("inf")],
        concurrencies=[None],
        result_dir=Path("."),
        slos=SLOS,
    )
    measure = functools.partial(_measure, recorded=recorded)
    outcome = asyncio.run(search(SETTINGS, measure))
    assert outcome.lowest_fail is not None
    evidence = asyncio.run(measure(outcome.lowest_fail, 1, 32))
    return config, outcome, evidence


def document_text(recorded: bool = False) -> str:
    """search.json of the case, as run_search writes it."""
    config, outcome, evidence = case(recorded)
    return search_json(search_document(config, outcome, ENDPOINT, evidence))
