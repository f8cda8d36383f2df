"""Tokens leave on absolute deadlines: the stream's span is (n - 1) steps exactly, no drift."""

from __future__ import annotations

import time

import httpx

from app.sim.config import SimConfig
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
