"""Tokens leave on absolute deadlines: the stream's span is (n - 1) steps exactly, no drift."""

from __future__ import annotations

import asyncio
import itertools
import time

import httpx

from app.sim.config import SimConfig
from app.sim.embedded import start_sim_process
from app.sim.engine import Engine
from app.sim.sequence import Emission, SimRequest
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


class _DueSink:
    """Records the due time the engine hands each flush (its schedule, not the wall clock)."""

    def __init__(self) -> None:
        self.dues: list[int] = []

    def prepare(self, out: Emission) -> None:
        pass

    def flush(self, deadline_ns: int) -> None:
        self.dues.append(deadline_ns)

    def aborted(self, reason: str) -> None:
        pass


def test_a_steps_tokens_are_due_one_front_end_turn_apart() -> None:
    # Three streams decoding together in steps made 30 ms longer, 1 ms per token in the front
    # end, stepped in virtual time through the server's cost model: within each step the three
    # tokens are due exactly 1 ms apart, in the same order every step, and each stream's own
    # gaps are exactly the modelled step. (How close real clients get to this schedule on a
    # given machine is a timing figure: benchmarks/sim_frontend_spread.py prints it.)
    config = SimConfig(step_overhead_ms=30, frontend_us_per_token=1000)
    cost = StepCostModel(config)
    engine = Engine(
        step_seconds=cost.step_seconds,
        num_gpu_blocks=cost.num_gpu_blocks,
        block_size=config.block_size,
        max_num_seqs=config.max_num_seqs,
        max_num_batched_tokens=config.max_num_batched_tokens,
        frontend_ns=round(config.frontend_us_per_token * 1000),
    )
    reqs = [SimRequest(f"r{i}", 4, 12, "length", _DueSink(), seed=i) for i in range(3)]
    for req in reqs:
        engine.submit(req)
    # Deadlines in the past (virtual time starts at 0): the engine never waits on the clock.
    now_ns, steps = 0, []
    while engine.running or engine.waiting:
        outputs, work = engine.plan()
        now_ns += round(cost.step_seconds(work) * 1e9)
        engine._deliver(outputs, now_ns)
        steps.append((now_ns, [req.request_id for req in outputs], work))
    dues = [req.sink.dues for req in reqs]  # type: ignore[attr-defined]
    assert [len(d) for d in dues] == [12, 12, 12]
    for k, (end_ns, order, _) in enumerate(steps):
        assert order == ["r0", "r1", "r2"]  # the batch order holds every step
        assert [d[k] for d in dues] == [end_ns, end_ns + 1_000_000, end_ns + 2_000_000]
    for d in dues:
        gaps = [b - a for a, b in itertools.pairwise(d)]
        assert gaps == [b[0] - a[0] for a, b in itertools.pairwise(steps)]
    # ~47.6 ms a decode step: 17.6 ms of weights and KV plus the 30 ms overhead
    decode = steps[5][2]
    assert decode.decode_contexts == (8, 8, 8)
    assert abs(cost.step_seconds(decode) - 0.0476) < 0.0005


def test_the_simulator_process_keeps_one_modelled_step_between_tokens() -> None:
    # The same three streams against `tpotbench sim` in its own process with the flags: the
    # server's own inter-token record (deadline to deadline, so the machine's load does not
    # enter it) is one modelled step per token, 30 ms longer than without the overhead flag.
    args = ["--step-overhead-ms", "30", "--frontend-us-per-token", "1000"]
    body = {"model": "qwen2.5-7b", "prompt": "x", "max_tokens": 12, "ignore_eos": True}

    async def run(base_url: str) -> str:
        async with httpx.AsyncClient(timeout=60) as client:
            url = f"{base_url}/v1/completions"
            replies = await asyncio.gather(*(client.post(url, json=body) for _ in range(3)))
            assert [r.json()["usage"]["completion_tokens"] for r in replies] == [12, 12, 12]
            return (await client.get(f"{base_url}/metrics")).text

    with start_sim_process(args) as sim:
        text = asyncio.run(run(sim.base_url))
    itl = {
        line.split(" ", 1)[0].split("{", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("vllm:inter_token_latency_seconds_")
    }
    assert itl["vllm:inter_token_latency_seconds_count"] == 33
    step = StepCostModel(SimConfig(step_overhead_ms=30)).step_seconds(
        StepWork(decode_contexts=(8, 8, 8))
    )
    # Mostly three-sequence decode steps; a step with a request's prefill or one fewer
    # sequence, and a turn lost when an earlier stream finishes, move it by microseconds.
    mean = itl["vllm:inter_token_latency_seconds_sum"] / 33
    assert abs(mean - step) < 0.0005, (mean, step)
