"""The short calibration scenario over HTTP: one request at a time, ShareGPT prompts.

What the served simulator schedules is read from its own /metrics (deadline to deadline), so
it holds on a busy machine. What clients measure over real HTTP (TPOT within 3 %, TTFT within
30 % of the field guide) is a timing figure: benchmarks/sim_calibration.py prints it (its
conc=1 rows), and tests/sim/test_replay.py holds the same bands in virtual time.
"""

from __future__ import annotations

import json
import time

import httpx

from app.paths import resources_dir
from app.sim.embedded import start_sim_process
from app.sim.textgen import count_tokens


def decile_prompts() -> list[str]:
    """Prompts at the 10th, 20th ... 90th percentile of length: their median is the dataset's."""
    path = resources_dir() / "datasets" / "sharegpt_synthetic.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    prompts = sorted((e["conversations"][0]["value"] for e in data), key=count_tokens)
    return [prompts[len(prompts) * k // 10] for k in range(1, 10)]


def measure(client: httpx.Client, url: str, prompt: str) -> tuple[float, float]:
    """(TTFT, TPOT) in seconds with vLLM's definitions; tokens from the usage chunk."""
    body = {
        "model": "qwen2.5-7b",
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": 40,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    start = time.perf_counter()
    first = last = None
    tokens = 0
    with client.stream("POST", url, json=body) as response:
        for line in response.iter_lines():
            if not line.startswith("data: {"):
                continue
            chunk = json.loads(line[6:])
            now = time.perf_counter()
            if chunk["choices"]:
                first = first or now
                last = now
            if chunk.get("usage"):
                tokens = chunk["usage"]["completion_tokens"]
    assert first is not None and last is not None and tokens == 40
    return first - start, (last - first) / (tokens - 1)


def test_single_request_tpot_matches_the_field_guide() -> None:
    # A child process, so the client here does not share the simulator's interpreter lock.
    with start_sim_process([]) as sim, httpx.Client(timeout=60) as client:
        url = f"{sim.base_url}/v1/chat/completions"
        results = [measure(client, url, prompt) for prompt in decile_prompts()]
        text = client.get(f"{sim.base_url}/metrics").text
    # Every stream delivered its 40 tokens (counted from usage), first token before the last.
    assert all(ttft > 0 and tpot > 0 for ttft, tpot in results)
    itl = {
        line.split(" ", 1)[0].split("{", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("vllm:inter_token_latency_seconds_")
    }
    count = itl["vllm:inter_token_latency_seconds_count"]
    assert count == len(results) * 39
    tpot = itl["vllm:inter_token_latency_seconds_sum"] / count * 1000
    assert abs(tpot / 19.7 - 1) <= 0.03, tpot  # field guide: 19.7 ms at concurrency 1
