"""Gateway and fault modes: what a client actually receives in each."""

from __future__ import annotations

import json
import time

import httpx
import pytest

CHAT = {"model": "qwen2.5-7b", "messages": [{"role": "user", "content": "hi"}]}
STREAM = {**CHAT, "max_tokens": 10, "ignore_eos": True, "stream": True}


def read_stream(url: str, body: dict, **kwargs: object) -> tuple[list[str], Exception | None]:
    """SSE data payloads received before the stream ended or broke, and the error if it broke."""
    events: list[str] = []
    try:
        with httpx.stream("POST", url, json=body, timeout=10, **kwargs) as response:  # type: ignore[arg-type]
            for line in response.iter_lines():
                if line.startswith("data: "):
                    events.append(line[len("data: ") :])
    except httpx.HTTPError as exc:
        return events, exc
    return events, None


def test_429_has_retry_after_and_an_openai_error(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(faults=["429"], retry_after_s=3)
    response = httpx.post(f"{sim.base_url}/v1/chat/completions", json=CHAT)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "3"
    assert response.json()["error"]["code"] == "rate_limit_exceeded"


def test_500_is_an_openai_error(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(faults=["500"])
    response = httpx.post(f"{sim.base_url}/v1/completions", json={"prompt": "x"})
    assert response.status_code == 500
    assert set(response.json()["error"]) == {"message", "type", "param", "code"}


def test_cut_stream_drops_the_connection_half_way(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(faults=["cut"])
    events, error = read_stream(f"{sim.base_url}/v1/chat/completions", STREAM)
    assert isinstance(error, httpx.RemoteProtocolError)  # incomplete chunked body
    chunks = [json.loads(e) for e in events]
    assert len(chunks) == 1 + 5  # role chunk + half of the 10 tokens
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks)
    assert "[DONE]" not in events


def test_malformed_chunk_in_the_middle(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(faults=["malformed"])
    body = {**STREAM, "model": "qwen2.5-7b"}
    events, error = read_stream(f"{sim.base_url}/v1/completions", {**body, "prompt": "x"})
    assert error is None
    assert events[-1] == "[DONE]"
    bad = []
    for i, event in enumerate(events[:-1]):
        try:
            json.loads(event)
        except ValueError:
            bad.append(i)
    assert bad == [4]  # the 5th of 10 token chunks


def test_body_without_choices(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(faults=["no-choices"])
    response = httpx.post(f"{sim.base_url}/v1/chat/completions", json=CHAT)
    assert response.status_code == 200
    body = response.json()
    assert "choices" not in body
    assert body["object"] == "chat.completion"
    events, error = read_stream(f"{sim.base_url}/v1/chat/completions", STREAM)
    assert error is None
    assert events[-1] == "[DONE]"
    assert "choices" not in json.loads(events[0])


def test_slow_first_byte_delays_the_headers(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(faults=["slow-first-byte"], slow_first_byte_ms=300)
    start = time.perf_counter()
    with httpx.stream("POST", f"{sim.base_url}/v1/chat/completions", json=STREAM) as response:
        headers_after = time.perf_counter() - start
        assert response.status_code == 200
        response.read()
    assert headers_after >= 0.3


def test_fault_every_nth_request(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(faults=["500"], fault_every=3)
    statuses = [
        httpx.post(
            f"{sim.base_url}/v1/chat/completions", json={**CHAT, "max_tokens": 1}
        ).status_code
        for _ in range(6)
    ]
    assert statuses == [200, 200, 500, 200, 200, 500]


@pytest.mark.parametrize(("rate", "low", "high"), [(0.0, 0, 0), (1.0, 20, 20), (0.5, 5, 15)])
def test_fault_rate(make_sim, rate: float, low: int, high: int) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(faults=["429"], fault_rate=rate)
    hits = sum(
        httpx.post(
            f"{sim.base_url}/v1/completions", json={"prompt": "x", "max_tokens": 1}
        ).status_code
        == 429
        for _ in range(20)
    )
    assert low <= hits <= high


def test_api_key_required_on_v1_only(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(api_key="sk-test-123")
    missing = httpx.get(f"{sim.base_url}/v1/models")
    wrong = httpx.get(f"{sim.base_url}/v1/models", headers={"Authorization": "Bearer nope"})
    right = httpx.get(f"{sim.base_url}/v1/models", headers={"Authorization": "Bearer sk-test-123"})
    assert missing.status_code == wrong.status_code == 401
    assert missing.json()["error"]["code"] == "invalid_api_key"
    assert "sk-test-123" not in missing.text + wrong.text
    assert right.status_code == 200
    assert httpx.get(f"{sim.base_url}/health").status_code == 200
    chat = httpx.post(f"{sim.base_url}/v1/chat/completions", json=CHAT)
    assert chat.status_code == 401


def test_path_prefix_serves_under_it_only(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(path_prefix="/api")
    assert sim.base_url.endswith(f":{sim.port}/api")
    assert httpx.get(f"{sim.base_url}/v1/models").status_code == 200
    assert httpx.get(f"{sim.root_url}/v1/models").status_code == 404


def test_network_latency_on_both_ways(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(network_latency_ms=100)
    start = time.perf_counter()
    assert httpx.get(f"{sim.base_url}/v1/models").status_code == 200
    assert time.perf_counter() - start >= 0.2


def test_no_stream_usage_mode(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(no_stream_usage=True)
    body = {**STREAM, "max_tokens": 3, "stream_options": {"include_usage": True}}
    events, _ = read_stream(f"{sim.base_url}/v1/chat/completions", body)
    chunks = [json.loads(e) for e in events[:-1]]
    assert len(chunks) == 4
    assert all("usage" not in c for c in chunks)


def test_metrics_can_be_disabled(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(disable_metrics=True)
    assert httpx.get(f"{sim.base_url}/metrics").status_code == 404
