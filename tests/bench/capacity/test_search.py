"""The capacity search's decisions, in virtual time: the replay engine (the simulator's
scheduler and cost model without HTTP) as the measure, and formula measures for the edges."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from app.bench.capacity.search import RunMeasurement, SearchSettings, decide, search
from app.bench.capacity.slo import SLOSet, evaluate, parse_slos
from app.bench.datasets.sharegpt import default_sharegpt_path, sample_sharegpt
from app.bench.schema.point_blocks import StatCheck
from app.bench.schema.search_doc import Violation
from app.sim.config import SimConfig
from app.sim.replay import percentile, replay
from app.sim.textgen import count_chat_tokens, count_tokens, request_seed

SLOS = parse_slos(["tpot:p99:50", "ttft:p99:2000"])
GRID = [1, 2, 4, 8, 16, 32, 64, 128]


class _SimTokenizer:
    def count(self, text: str) -> int:
        return count_tokens(text)


@pytest.fixture(scope="module")
def workload() -> list[tuple[int, int, int]]:
    samples = sample_sharegpt(default_sharegpt_path(), 200, _SimTokenizer(), seed=0)
    return [
        (count_chat_tokens([{"role": "user", "content": s.prompt}]), s.expected_output_len,
         request_seed(0, s.prompt))
        for s in samples
    ]  # fmt: skip


def replay_measure(
    workload: list[tuple[int, int, int]], slos: SLOSet, log: list[tuple[float, int]]
) -> Callable:
    async def measure(value: float, run: int, n: int) -> RunMeasurement:
        result = replay(SimConfig(), workload[:n], max_concurrency=int(value))
        stats = {
            "ttft": {"p99": percentile(result.ttft_s, 99) * 1000},
            "tpot": {"p99": percentile(result.tpot_s, 99) * 1000},
        }
        verdict = evaluate(slos, stats, completed=len(result.output_tokens), failed=0)
        log.append((value, n))
        return RunMeasurement(
            value, run, verdict.passed, list(verdict.checks), result.duration_s, n
        )

    return measure


def formula_measure(
    tpot: Callable[[float], float], log: list[float], limit: float = 50.0
) -> Callable:
    async def measure(value: float, run: int, n: int) -> RunMeasurement:
        figure = tpot(value) if run == 1 else tpot(value) * (1 + 0.02 * (run - 2))
        check = StatCheck("tpot:p99:50", "stat", figure, limit, figure <= limit)  # fmt: skip
        log.append(value)
        return RunMeasurement(value, run, figure <= limit, [check], 1.0, n)

    return measure


# A hang guard, not a speed claim: ~25 virtual-time replays of 200 requests are pure CPU, and on a
# 2-core machine shared with other work they took more than the default 120 s.
@pytest.mark.timeout(600)
def test_search_agrees_with_the_brute_force_grid(workload: list[tuple[int, int, int]]) -> None:
    visited: list[tuple[float, int]] = []
    settings = SearchSettings(num_prompts=200, early_stop=True)
    out = asyncio.run(search(settings, replay_measure(workload, SLOS, visited)))
    assert out.highest_pass is not None and out.lowest_fail == out.highest_pass + 1
    # The grid: experiment B (200 prompts at every point) plus every load the search visited.
    grid_values = sorted(set(GRID) | {int(v) for v, _ in visited})
    grid_log: list[tuple[float, int]] = []
    grid_measure = replay_measure(workload, SLOS, grid_log)
    passed = {v: asyncio.run(grid_measure(v, 1, 200)).passed for v in grid_values}
    first_fail = min(v for v in grid_values if not passed[v])
    grid_boundary = max(v for v in grid_values if v < first_fail)
    distance = abs(grid_values.index(grid_boundary) - grid_values.index(int(out.highest_pass)))
    assert distance <= 1, (out.highest_pass, grid_boundary, passed)


def test_exact_boundary_and_few_points() -> None:
    log: list[float] = []
    out = asyncio.run(search(SearchSettings(), formula_measure(lambda c: 10 + 2 * c, log)))
    assert (out.highest_pass, out.lowest_fail) == (20, 21)
    # 1..32 by doubling, bisection 16..32 in four steps, one growth step above the fail.
    assert log == [1, 2, 4, 8, 16, 32, 24, 20, 22, 21, 42]
    assert out.stop_reason == "converged" and not out.violations


def test_a_pass_above_a_fail_is_reported() -> None:
    log: list[float] = []
    # Fails at 32 but recovers at 64 (a server that batches better when full, or noise).
    out = asyncio.run(
        search(SearchSettings(), formula_measure(lambda c: 60 if c == 32 else 40, log))
    )
    assert out.violations == [Violation(32.0, 64.0)]
    assert out.highest_pass == 31 and "not monotonic" in out.stop_reason


def test_start_fails_and_max_passes() -> None:
    out = asyncio.run(search(SearchSettings(), formula_measure(lambda c: 99, [])))
    assert out.highest_pass is None and "even 1 stream fails" in out.stop_reason
    out = asyncio.run(search(SearchSettings(maximum=48), formula_measure(lambda c: 1, [])))
    assert out.highest_pass == 48 and out.lowest_fail is None
    assert [v.value for v in out.values] == [1, 2, 4, 8, 16, 32, 48]


def test_growth_stops_where_the_prompts_cannot_fill_the_streams() -> None:
    # 16 prompts cannot hold 32 or 64 streams in flight: a pass there would be a pass at a
    # load the server never saw, so growth stops at 16 and says why.
    settings = SearchSettings(num_prompts=16, min_prompts=8, prompts_per_unit=1, maximum=64)
    assert settings.fill_limit() == 16
    log: list[float] = []
    out = asyncio.run(search(settings, formula_measure(lambda c: 1, log)))
    assert [v.value for v in out.values] == [1, 2, 4, 8, 16]
    assert out.highest_pass == 16 and out.lowest_fail is None and out.fill_limited == 16
    assert "--num-prompts 16 cannot fill more streams" in out.stop_reason
    assert out.fill_limited == 16
    # A fail above the cap is never checked with an unfillable load either.
    out = asyncio.run(search(settings, formula_measure(lambda c: 99 if c >= 12 else 1, [])))
    assert max(v.value for v in out.values) <= 16 and out.highest_pass == 11
    # Enough prompts: no cap (the defaults fill up to 200 of --max 256).
    assert SearchSettings(maximum=48).fill_limit() is None
    assert SearchSettings().fill_limit() == 200
    assert SearchSettings(over="rate").fill_limit() is None


def test_rate_search_to_a_relative_resolution() -> None:
    settings = SearchSettings(over="rate", resolution=0.05, relative_resolution=True)
    out = asyncio.run(search(settings, formula_measure(lambda r: 5 + 3 * r, [])))
    assert out.highest_pass is not None and out.lowest_fail is not None
    assert out.highest_pass <= 15 < out.lowest_fail
    assert out.lowest_fail - out.highest_pass <= 0.05 * out.highest_pass


def test_runs_use_the_interval() -> None:
    # Three runs at 48.5, 49.5, 50.5 ms: mean 49.5 meets 50 but the 95 % interval reaches
    # past it: marginal, which counts as a fail.
    def run(value: float, figure: float, passed: bool) -> RunMeasurement:
        check = StatCheck("tpot:p99:50", "stat", figure, 50.0, passed)  # fmt: skip
        return RunMeasurement(value, 1, passed, [check], 1.0, 10)

    decision, failed, figures = decide(
        [run(8, 48.5, True), run(8, 49.5, True), run(8, 50.5, False)]
    )
    assert decision == "marginal" and failed == ["tpot:p99:50"]
    rep = figures["tpot:p99:50"]
    assert rep.mean == pytest.approx(49.5) and rep.low < 50 < rep.high and rep.cv is not None
    decision, _, _ = decide([run(8, 40.0, True), run(8, 40.5, True), run(8, 41.0, True)])
    assert decision == "pass"
    decision, _, _ = decide([run(8, 52.0, False), run(8, 51.0, False), run(8, 49.0, True)])
    assert decision == "fail"


def test_requests_per_load() -> None:
    settings = SearchSettings(num_prompts=200, min_prompts=64, prompts_per_unit=8)
    assert [settings.requests_for(c) for c in (1, 8, 16, 32)] == [64, 64, 128, 200]
    assert SearchSettings(prompts_per_unit=0).requests_for(1) == 200
    with pytest.raises(ValueError, match="--growth"):
        SearchSettings(growth=1).validate()
