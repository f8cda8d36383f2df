"""The calibration table in virtual time: the timing model against the field guide's bands.

The same scheduler, cost model and reply-length draws as the server, on the shipped dataset
sampled like vLLM (shuffle with seed 0, first N), without HTTP or machine noise; a change to the
engine or the defaults that breaks the calibration fails here in about a second.
"""

from __future__ import annotations

import json
import math
import random

import pytest

from app.paths import resources_dir
from app.sim.config import SimConfig
from app.sim.replay import percentile, replay
from app.sim.textgen import count_chat_tokens, count_tokens, request_seed


@pytest.fixture(scope="module")
def workload() -> list[tuple[int, int, int]]:
    path = resources_dir() / "datasets" / "sharegpt_synthetic.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    pairs = [(e["conversations"][0]["value"], e["conversations"][1]["value"]) for e in data]
    random.Random(0).shuffle(pairs)
    return [
        (count_chat_tokens([{"role": "user", "content": p}]), count_tokens(r), request_seed(0, p))
        for p, r in pairs
    ]


def within(value: float, reference: float, band: float) -> bool:
    return abs(value / reference - 1) <= band


def test_single_request(workload: list[tuple[int, int, int]]) -> None:
    run = replay(SimConfig(), workload[:30], max_concurrency=1)
    assert within(percentile(run.tpot_s, 50) * 1000, 19.7, 0.03)
    assert within(percentile(run.ttft_s, 50) * 1000, 41.0, 0.30)
    assert run.preemptions == 0


def test_concurrency_32_and_the_knee_at_64(workload: list[tuple[int, int, int]]) -> None:
    c32 = replay(SimConfig(), workload[:200], max_concurrency=32)
    c64 = replay(SimConfig(), workload[:200], max_concurrency=64)
    assert within(c32.output_throughput, 978.0, 0.15)
    p99_32 = percentile(c32.tpot_s, 99) * 1000
    assert within(p99_32, 60.0, 0.35)
    assert percentile(c64.tpot_s, 99) * 1000 >= 2 * p99_32


def test_rate_4_concurrency_16(workload: list[tuple[int, int, int]]) -> None:
    run = replay(SimConfig(), workload[:200], max_concurrency=16, request_rate=4.0)
    assert within(run.request_throughput, 2.64, 0.15)
    assert within(run.output_throughput, 558.58, 0.15)
    assert within(sum(run.tpot_s) / len(run.tpot_s) * 1000, 23.91, 0.15)


def test_replay_of_one_request_by_hand() -> None:
    # Bandwidth x 0.5 and 1 ms overhead: a decode step is 30.216 ms of weights plus KV reads
    # (57,344 bytes per cached token at 468 GB/s) plus 1 ms; the 20-token prompt's prefill
    # (2.8e11 FLOPs at 35.5 TFLOP/s = 8 ms) hides under the 30.2 ms weight read.
    config = SimConfig(bandwidth_efficiency=0.5, compute_efficiency=0.5, step_overhead_ms=1.0)
    run = replay(config, [(20, 3, 0)], max_concurrency=1, request_rate=math.inf)
    assert run.output_tokens == [3]
    kv_s = 57_344 / 468e9
    assert run.ttft_s[0] == pytest.approx(0.030216 + 20 * kv_s + 0.001, abs=3e-6)
    # decode steps read 20 then 21 cached tokens
    assert run.tpot_s[0] == pytest.approx(0.031216 + 20.5 * kv_s, abs=3e-6)
