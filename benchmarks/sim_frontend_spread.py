"""How far apart a step's tokens reach real clients, and how long each stream's gaps are.

The simulator in its own process (where it may spin to hit microsecond deadlines), three
streams decoding together in steps made 30 ms longer, 1 ms per token in the front end. The
schedule says: within each step the three tokens are due 1 ms apart (spread 2 ms), in the same
order every step, and each stream's gaps are one modelled step (~47.6 ms);
tests/sim/test_precision.py proves that schedule in virtual time. This script prints what
clients on this machine actually see: on a quiet 2-core machine the median spread was within
1.5-4 ms; on a busy one the client's own wake-ups blur it (0.35-0.77 ms was seen at load 10),
which is why it is a figure here and not a test.

    .venv/bin/python benchmarks/sim_frontend_spread.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import time

import httpx

from app.sim.config import SimConfig
from app.sim.embedded import start_sim_process
from app.sim.timing import StepCostModel, StepWork

ARGS = ["--step-overhead-ms", "30", "--frontend-us-per-token", "1000"]
BODY = {"model": "qwen2.5-7b", "prompt": "x", "max_tokens": 12, "ignore_eos": True}


async def _one(client: httpx.AsyncClient, url: str, ready: asyncio.Barrier) -> list[float]:
    await ready.wait()
    arrivals: list[float] = []
    async with client.stream("POST", url, json={**BODY, "stream": True}) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: {"):
                arrivals.append(time.perf_counter_ns() / 1e9)
    return arrivals


async def _streams(base_url: str) -> list[list[float]]:
    async with httpx.AsyncClient(timeout=30) as client:
        ready = asyncio.Barrier(3)
        url = f"{base_url}/v1/completions"
        return list(await asyncio.gather(*(_one(client, url, ready) for _ in range(3))))


def _figures(streams: list[list[float]]) -> tuple[float, int, int, float]:
    """(median spread ms, full steps, distinct orders, median per-stream gap ms)."""
    # Group every arrival by step (steps are ~48 ms apart, a step's tokens within ~2 ms) and
    # look at the steps in which all three streams got a token.
    arrivals = sorted((t, i) for i, s in enumerate(streams) for t in s)
    steps: list[list[tuple[float, int]]] = [[arrivals[0]]]
    for item in arrivals[1:]:
        if item[0] - steps[-1][-1][0] > 0.010:
            steps.append([])
        steps[-1].append(item)
    full = [step for step in steps if len(step) == 3]
    spreads = [step[-1][0] - step[0][0] for step in full]
    orders = {tuple(i for _, i in step) for step in full}
    gaps = [statistics.median(b - a for a, b in itertools.pairwise(s[3:])) for s in streams]
    spread_ms = statistics.median(spreads) * 1e3 if spreads else float("nan")
    return spread_ms, len(full), len(orders), statistics.median(gaps) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    step = StepCostModel(SimConfig(step_overhead_ms=30)).step_seconds(
        StepWork(decode_contexts=(8, 8, 8))
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"schedule: spread 2.00 ms, one order, gap {step * 1e3:.2f} ms")
    with start_sim_process(ARGS) as sim:
        for k in range(rounds):
            spread, full, orders, gap = _figures(asyncio.run(_streams(sim.base_url)))
            print(
                f"round {k + 1}: median spread {spread:.2f} ms over {full} full steps, "
                f"{orders} distinct order(s), median gap {gap:.2f} ms"
            )


if __name__ == "__main__":
    main()
