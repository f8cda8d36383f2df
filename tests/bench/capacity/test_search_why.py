"""The capacity search and its why: the load that decides the boundary is measured to the end
when its search point was cut short, so the why reads a whole point, never a fragment; and
the search's own stop reasons give only advice that can apply."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.bench.capacity.search import RunMeasurement, SearchSettings, search
from app.bench.capacity.search_run import run_search
from app.bench.capacity.slo import parse_slos
from app.bench.datasets.synthetic import sample_random
from app.bench.http.endpoint import resolve_endpoint
from app.bench.results.read import load_results
from app.bench.schema.point_blocks import StatCheck
from app.bench.schema.point_doc import PointDoc, VllmKeys
from app.bench.sweep.roofline_point import check_roofline
from app.bench.sweep.run_context import RunContext
from tests.documents import document
from tests.why_scenarios import MODEL, SCENARIOS, serve


def test_the_boundary_why_is_read_from_a_full_run(tmp_path: Path) -> None:
    scenario = SCENARIOS["slots"]  # 2 slots: 3 streams already queue past 300 ms
    settings = SearchSettings(
        start=2, growth=4, maximum=16, num_prompts=32, min_prompts=16, prompts_per_unit=2
    )
    roofline = {"gpu_id": "rtx3090", "model_id": MODEL, "fmt": "bf16", "kv_dtype": "bf16"}
    with serve(scenario) as url:
        config = RunContext(
            resolved=resolve_endpoint(url, "/v1/completions", "completions", None),
            model=MODEL,
            backend="openai",
            samples=sample_random(32, input_len=32, output_len=24),
            rates=[float("inf")],
            concurrencies=[None],
            result_dir=tmp_path,
            ignore_eos=True,
            server_metrics=True,
            roofline=check_roofline({**roofline, "context": 44}),
            slos=parse_slos([scenario.slo]),
        )
        outcome, _, doc = asyncio.run(run_search(config, settings, []))
    assert (outcome.highest_pass, outcome.lowest_fail) == (2, 3)
    boundary = outcome.at(3)
    assert boundary is not None and boundary.runs[0].early_stop  # a fragment in the search
    full = doc.boundary_evidence
    assert full is not None
    assert full.value == 3 and full.num_requests == 16 and full.passed is False
    why = doc.boundary_why
    assert why is not None
    assert why.cause == "queue" and why.confidence in ("high", "medium"), why.text
    assert why.evidence["completed"] == 16  # the whole point, not the fragment
    # The full run's file is beside the fragment's; the fragment stays marked as such.
    at_three = [p for p in load_results([tmp_path]) if p.max_concurrency == 3]
    stops = sorted(bool(document(p)["tpotbench"].get("early_stop")) for p in at_three)
    assert stops == [False, True]
    # Knees come from whole points only.
    for knee in doc.knee.values():
        assert knee is None or knee.load in {v.value for v in outcome.values if not any(
            r.early_stop for r in v.runs)}  # fmt: skip


def _always_fails(value: float, run: int, n: int) -> RunMeasurement:
    check = StatCheck("ttft:p99:100", "stat", 500.0, 100.0, False)  # fmt: skip
    return RunMeasurement(
        value, run, False, [check], 1.0, n, result=PointDoc(VllmKeys(completed=n))
    )


def test_no_lower_start_advice_at_one_stream() -> None:
    async def measure(value: float, run: int, n: int) -> RunMeasurement:
        return _always_fails(value, run, n)

    out = asyncio.run(search(SearchSettings(start=1), measure))
    assert "lower --start" not in out.stop_reason
    assert "even 1 stream fails ttft:p99:100" in out.stop_reason
    # Where a lower start exists, the advice stands.
    out = asyncio.run(search(SearchSettings(start=4), measure))
    assert out.stop_reason.endswith("lower --start")
    out = asyncio.run(search(SearchSettings(over="rate", start=1), measure))
    assert out.stop_reason.endswith("lower --start")


def test_no_success_is_said_as_such() -> None:
    async def measure(value: float, run: int, n: int) -> RunMeasurement:
        got = _always_fails(value, run, n)
        got.result = PointDoc(VllmKeys(completed=0))
        return got

    out = asyncio.run(search(SearchSettings(start=1), measure))
    assert out.stop_reason.startswith("no request succeeded at 1")
