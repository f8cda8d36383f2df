"""Speculative decoding: several tokens per chunk, vLLM's counters, the step cost of drafting."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from app.sim.config import SimConfig
from app.sim.replay import replay
from app.sim.timing import StepCostModel, StepWork


def metric(text: str, name: str, position: int | None = None) -> float:
    label = "" if position is None else f'[^}}]*position="{position}"'
    match = re.search(rf"^{re.escape(name)}\{{{label}[^}}]*\}} (\S+)$", text, re.MULTILINE)
    assert match, name
    return float(match.group(1))


def stream(sim, max_tokens: int) -> list[dict]:  # type: ignore[no-untyped-def]
    body = {
        "model": "qwen2.5-7b",
        "prompt": "tell me a story",
        "max_tokens": max_tokens,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    text = httpx.post(f"{sim.base_url}/v1/completions", json=body, timeout=60).text
    return [json.loads(b[6:]) for b in text.split("\n\n") if b.startswith("data: {")]


def test_accepted_drafts_arrive_together_and_are_counted(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(num_speculative_tokens=3, spec_acceptance_rate=0.7)
    got = stream(sim, 100)
    assert got[-1]["usage"]["completion_tokens"] == 100
    texts = [c["choices"][0]["text"] for c in got if c["choices"]]
    assert len(texts) < 60  # 1 + 99 tokens in steps of 2.5 on average: about 40 chunks
    page = httpx.get(f"{sim.base_url}/metrics").text
    drafts = metric(page, "vllm:spec_decode_num_drafts_total")
    accepted = metric(page, "vllm:spec_decode_num_accepted_tokens_total")
    per_pos = [
        metric(page, "vllm:spec_decode_num_accepted_tokens_per_pos_total", p) for p in range(3)
    ]
    # one draft per decode step (the first token comes from the prefill)
    assert drafts == len(texts) - 1
    assert metric(page, "vllm:spec_decode_num_draft_tokens_total") == 3 * drafts
    assert sum(per_pos) == accepted
    assert drafts >= per_pos[0] >= per_pos[1] >= per_pos[2]
    # each step yields its accepted drafts + 1; the last step's may be cut at max_tokens
    assert 99 <= drafts + accepted <= 99 + 3
    assert metric(page, "vllm:generation_tokens_total") == 100


def test_no_acceptance_means_one_token_per_chunk(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(num_speculative_tokens=2, spec_acceptance_rate=0.0)
    got = stream(sim, 20)
    assert len([c for c in got if c["choices"]]) == 20
    page = httpx.get(f"{sim.base_url}/metrics").text
    assert metric(page, "vllm:spec_decode_num_accepted_tokens_total") == 0
    assert metric(page, "vllm:spec_decode_num_drafts_total") == 19


def test_verification_and_draft_cost_by_hand() -> None:
    # One sequence, 500 tokens of context, k = 3. Verifying 4 tokens still reads the weights
    # once: 14.141 GB at 804.96 GB/s = 17.568 ms; the attention, unpacked by the 4-token
    # query, reads the context once per query head (7 per KV head) and writes the 3 drafts'
    # KV: 3,503 x 57,344 B = 0.250 ms (above its 64-row tile's 1.28e10 FLOPs, 0.226 ms), +
    # 2 ms overhead. EAGLE drafting: 3 passes of one layer (14.141 GB / 28 minus the
    # head) + the 1.090 GB LM head + that layer's KV (500 x 57,344 / 28 B) = 1.5571 GB each,
    # 1.9344 ms. Step: 25.62 ms; plain decode 19.60 ms; n-gram drafts cost the GPU nothing.
    # Serially, the 4 verified tokens' elementwise traffic (4 x 5,246,976 B), the argmax of 4
    # positions' logits (4 x 4,561,920 B) and 15 us of engine CPU for the one sequence.
    eagle = StepCostModel(SimConfig(speculative_method="eagle"))
    serial = 4 * (5_246_976 + 4_561_920) / 804.96e9 + 15e-6
    verify = (14.141238272e9 + 3503 * 57344) / 804.96e9 + 0.002 + serial
    draft = (1.556110592e9 + 500 * 57344 / 28) / 804.96e9
    assert eagle.step_seconds(StepWork((500,), (), (4,), 3)) == pytest.approx(
        verify + 3 * draft, abs=1e-7
    )
    ngram = StepCostModel(SimConfig(speculative_method="ngram"))
    assert ngram.step_seconds(StepWork((500,), (), (4,), 3)) == pytest.approx(verify, abs=1e-7)


def test_speculation_shortens_tpot_by_the_acceptance_model() -> None:
    # a = 0.7, k = 3: a step yields (1 - 0.7^4) / 0.3 = 2.533 tokens on average, and costs
    # ~25.6 ms against 19.6 ms: TPOT about 25.6 / 2.533 = 10.1 ms, half of plain decoding.
    plain = replay(SimConfig(), [(20, 400, 0)], max_concurrency=1)
    spec = replay(
        SimConfig(num_speculative_tokens=3, spec_acceptance_rate=0.7),
        [(20, 400, 0)],
        max_concurrency=1,
    )
    assert spec.output_tokens == plain.output_tokens == [400]
    ratio = spec.tpot_s[0] / plain.tpot_s[0]
    expected = (0.02562 / 2.533) / 0.01964
    assert ratio == pytest.approx(expected, rel=0.08)  # 399 steps' draws: sampling spread
