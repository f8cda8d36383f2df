"""Reasoning mode: a share of each chat reply streams as reasoning_content before the answer."""

from __future__ import annotations

import json

import httpx

from app.sim.config import SimConfig
from app.sim.replay import replay
from app.sim.textgen import count_tokens


def chunks(text: str) -> list[dict]:
    return [json.loads(block[6:]) for block in text.split("\n\n") if block.startswith("data: {")]


def body(**extra: object) -> dict:
    return {
        "model": "qwen2.5-7b",
        "messages": [{"role": "user", "content": "why is the sky blue"}],
        "max_tokens": 40,
        "ignore_eos": True,
        **extra,
    }


def test_stream_reasons_first_then_answers(make_sim) -> None:  # type: ignore[no-untyped-def]
    # 40 tokens x 0.25 = 10 reasoning tokens, then 30 answer tokens, one chunk per token.
    sim = make_sim(reasoning_share=0.25)
    req = body(stream=True, stream_options={"include_usage": True})
    got = chunks(httpx.post(f"{sim.base_url}/v1/chat/completions", json=req, timeout=30).text)
    deltas = [c["choices"][0]["delta"] for c in got if c["choices"]][1:]  # after the role chunk
    kinds = ["reasoning" if "reasoning_content" in d else "answer" for d in deltas]
    assert kinds == ["reasoning"] * 10 + ["answer"] * 30  # TTFT at chunk 1, TTFO at chunk 11
    reasoning = "".join(d.get("reasoning_content", "") for d in deltas)
    answer = "".join(d.get("content", "") for d in deltas)
    assert count_tokens(reasoning) == 10 and count_tokens(answer) == 30
    usage = got[-1]["usage"]
    assert usage["completion_tokens"] == 40
    assert usage["completion_tokens_details"] == {"reasoning_tokens": 10}


def test_non_streamed_reply_carries_reasoning_content(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(reasoning_share=0.5)
    reply = httpx.post(f"{sim.base_url}/v1/chat/completions", json=body(), timeout=30).json()
    message = reply["choices"][0]["message"]
    assert count_tokens(message["reasoning_content"]) == 20
    assert count_tokens(message["content"]) == 20
    assert reply["usage"]["completion_tokens_details"] == {"reasoning_tokens": 20}


def test_enable_thinking_false_answers_at_once(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(reasoning_share=0.5)
    req = body(chat_template_kwargs={"enable_thinking": False})
    reply = httpx.post(f"{sim.base_url}/v1/chat/completions", json=req, timeout=30).json()
    assert reply["choices"][0]["message"]["reasoning_content"] is None
    assert reply["usage"]["completion_tokens_details"] == {"reasoning_tokens": 0}


def test_an_ordinary_model_reports_no_reasoning(sim) -> None:  # type: ignore[no-untyped-def]
    reply = httpx.post(f"{sim.base_url}/v1/chat/completions", json=body(), timeout=30).json()
    assert reply["choices"][0]["message"]["reasoning_content"] is None
    assert "completion_tokens_details" not in reply["usage"]


def test_replay_time_to_first_answer_token_by_hand() -> None:
    # Reasoning tokens are ordinary decode steps: the answer starts 10 steps after the first
    # token. Each decode step reads the weights and the context's KV (19.6 ms here), so TTFO
    # - TTFT is the sum of 10 decode steps over contexts 14 ... 23.
    config = SimConfig(reasoning_share=0.25)
    run = replay(config, [(14, 40, 0)], max_concurrency=1)
    serial = (5_246_976 + 4_561_920) / 804.96e9 + 15e-6  # one token, one sample, one sequence
    steps = sum((14.141238272e9 + (14 + i) * 57344) / 804.96e9 + 0.002 + serial for i in range(10))
    assert run.ttfo_s[0] - run.ttft_s[0] == pytest_approx(steps)


def pytest_approx(value: float):  # type: ignore[no-untyped-def]
    import pytest

    return pytest.approx(value, abs=1e-6)
