"""Tokens leave on absolute deadlines: the stream's span is (n - 1) steps exactly, no drift."""

from __future__ import annotations

import asyncio
import itertools
import time

import httpx

from app.sim.config import SimConfig
from app.sim.embedded import start_sim_process
from app.sim.timing import StepCostModel, StepWork


def test_stream_span_matches_the_cost_model(make_sim) -> None:  # type: ignore[no-untyped-def]
    config = SimConfig(step_overhead_ms=5.0)
    sim = make_sim(step_overhead_ms=5.0)
    body = {
        "model": "qwen2.5-7b",
        "prompt": "x",
        "max_tokens": 60,
        "ignore_eos": True,
        "stream": True,
    }
    arrivals: list[float] = []
    with httpx.stream("POST", f"{sim.base_url}/v1/completions", json=body) as response:
        for line in response.iter_lines():
            if line.startswith("data: {"):
                arrivals.append(time.perf_counter())
    assert len(arrivals) == 60
    # Every decode step after the first token has one sequence of context 1..59; the step
    # times differ only by KV bytes (a few microseconds), so their mean is the context-30 step.
    step = StepCostModel(config).step_seconds(StepWork(decode_contexts=(30,)))
    # Residual of each arrival against an ideal clock of one step per token. A late write
    # only raises one residual; with absolute deadlines the earliest residuals at the end of
    # the stream match those at its start. Deadlines chained from the previous (late) write
    # would drift upward by every wake-up delay, 59 of them.
    residual = [t - i * step for i, t in enumerate(arrivals)]
    drift = min(residual[-15:]) - min(residual[:15])
    assert abs(drift) < 0.002, (drift, step)


def test_metrics_itl_equals_model_step(make_sim) -> None:  # type: ignore[no-untyped-def]
    config = SimConfig()
    sim = make_sim()
    body = {"model": "qwen2.5-7b", "prompt": "x", "max_tokens": 11, "ignore_eos": True}
    httpx.post(f"{sim.base_url}/v1/completions", json=body)
    text = httpx.get(f"{sim.base_url}/metrics").text
    line = next(
        x for x in text.splitlines() if x.startswith("vllm:inter_token_latency_seconds_sum")
    )
    total = float(line.rsplit(" ", 1)[1])
    step = StepCostModel(config).step_seconds(StepWork(decode_contexts=(6,)))
    # the server's own ITL record is deadline-to-deadline: exactly the modelled steps
    assert abs(total / 10 - step) < 1e-5


def test_a_steps_tokens_reach_clients_one_front_end_turn_apart() -> None:
    # The simulator in its own process (where it may spin to hit microsecond deadlines),
    # three streams decoding together in steps made 30 ms longer, 1 ms per token in the
    # front end: within each step the three tokens arrive about 1 ms apart, in the same order
    # every step, and each stream's own gaps stay one step long.
    args = ["--step-overhead-ms", "30", "--frontend-us-per-token", "1000"]
    body = {"model": "qwen2.5-7b", "prompt": "x", "max_tokens": 12, "ignore_eos": True}

    async def one(client: httpx.AsyncClient, url: str, ready: asyncio.Barrier) -> list[float]:
        await ready.wait()
        arrivals: list[float] = []
        async with client.stream("POST", url, json={**body, "stream": True}) as response:
            async for line in response.aiter_lines():
                if line.startswith("data: {"):
                    arrivals.append(time.perf_counter())
        return arrivals

    async def run(base_url: str) -> list[list[float]]:
        async with httpx.AsyncClient(timeout=30) as client:
            ready = asyncio.Barrier(3)
            url = f"{base_url}/v1/completions"
            return list(await asyncio.gather(*(one(client, url, ready) for _ in range(3))))

    with start_sim_process(args) as sim:
        streams = asyncio.run(run(sim.base_url))
    assert [len(s) for s in streams] == [12, 12, 12]
    # The requests reach the engine a little apart, so their first tokens fall in different
    # steps; group every arrival by step (steps are ~48 ms apart, a step's tokens within ~2 ms)
    # and look at the steps in which all three streams got a token.
    arrivals = sorted((t, i) for i, s in enumerate(streams) for t in s)
    steps: list[list[tuple[float, int]]] = [[arrivals[0]]]
    for item in arrivals[1:]:
        if item[0] - steps[-1][-1][0] > 0.010:
            steps.append([])
        steps[-1].append(item)
    full = [step for step in steps if len(step) == 3]
    assert len(full) >= 8, [len(step) for step in steps]
    spreads = sorted(step[-1][0] - step[0][0] for step in full)
    orders = [tuple(i for _, i in step) for step in full]
    assert 0.0015 < spreads[len(spreads) // 2] < 0.004, spreads  # two turns of 1 ms
    assert len(set(orders)) <= 2, orders  # the batch order holds (client noise may swap one)
    step = StepCostModel(SimConfig(step_overhead_ms=30)).step_seconds(
        StepWork(decode_contexts=(8, 8, 8))
    )  # ~47.6 ms: 17.6 ms of weights and KV plus the 30 ms overhead
    for s in streams:
        gaps = sorted(b - a for a, b in itertools.pairwise(s[3:]))
        assert abs(gaps[len(gaps) // 2] - step) < 0.003, (gaps, step)
