"""The simulator on the wire: vLLM's routes, chunk shapes, usage, and error bodies."""

from __future__ import annotations

import json

import httpx

from app.sim.embedded import RunningSim

CHAT = {"model": "qwen2.5-7b", "messages": [{"role": "user", "content": "hi there"}]}
# "hi there" is 2 tokens; the chat template adds 4 per message and 3 for the reply prompt.
CHAT_PROMPT_TOKENS = 9


def sse_events(text: str) -> list[str]:
    """The data payloads of an SSE body, in order."""
    return [block[len("data: ") :] for block in text.split("\n\n") if block.startswith("data: ")]


def test_models_lists_served_name_and_max_model_len(sim: RunningSim) -> None:
    body = httpx.get(f"{sim.base_url}/v1/models").json()
    assert body["object"] == "list"
    assert [m["id"] for m in body["data"]] == ["qwen2.5-7b"]
    assert body["data"][0]["max_model_len"] == 4096
    assert body["data"][0]["object"] == "model"


def test_health_is_200_with_empty_body(sim: RunningSim) -> None:
    response = httpx.get(f"{sim.base_url}/health")
    assert response.status_code == 200
    assert response.content == b""


def test_chat_non_streaming_body(sim: RunningSim) -> None:
    response = httpx.post(f"{sim.base_url}/v1/chat/completions", json={**CHAT, "max_tokens": 5})
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["id"].startswith("chatcmpl-")
    (choice,) = body["choices"]
    assert choice["message"]["role"] == "assistant"
    assert len(choice["message"]["content"].split()) == 5
    assert choice["finish_reason"] == "length"
    assert body["usage"] == {
        "prompt_tokens": CHAT_PROMPT_TOKENS,
        "total_tokens": CHAT_PROMPT_TOKENS + 5,
        "completion_tokens": 5,
        "prompt_tokens_details": None,
    }


def test_chat_stream_chunk_shapes_with_usage(sim: RunningSim) -> None:
    body = {**CHAT, "max_completion_tokens": 3, "stream": True}
    body["stream_options"] = {"include_usage": True}
    response = httpx.post(f"{sim.base_url}/v1/chat/completions", json=body)
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    # role chunk, 3 content chunks (the last with finish_reason), usage chunk
    assert len(chunks) == 5
    assert len({c["id"] for c in chunks}) == 1
    for chunk in chunks:
        assert chunk["object"] == "chat.completion.chunk"
        assert chunk["model"] == "qwen2.5-7b"
        assert isinstance(chunk["created"], int)
    assert chunks[0]["choices"] == [
        {
            "index": 0,
            "delta": {"role": "assistant", "content": ""},
            "logprobs": None,
            "finish_reason": None,
        }
    ]
    content = [c["choices"][0] for c in chunks[1:4]]
    assert [c["finish_reason"] for c in content] == [None, None, "length"]
    assert all(set(c["delta"]) == {"content"} for c in content)
    assert "usage" not in chunks[1]
    assert chunks[4]["choices"] == []
    assert chunks[4]["usage"] == {
        "prompt_tokens": CHAT_PROMPT_TOKENS,
        "total_tokens": CHAT_PROMPT_TOKENS + 3,
        "completion_tokens": 3,
    }


def test_stream_without_include_usage_has_no_usage_chunk(sim: RunningSim) -> None:
    body = {**CHAT, "max_tokens": 2, "stream": True}
    events = sse_events(httpx.post(f"{sim.base_url}/v1/chat/completions", json=body).text)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert len(chunks) == 3
    assert all(c["choices"] for c in chunks)


def test_completions_stream_and_not(sim: RunningSim) -> None:
    url = f"{sim.base_url}/v1/completions"
    base = {"model": "qwen2.5-7b", "prompt": "The river runs", "max_tokens": 4}
    full = httpx.post(url, json=base).json()
    assert full["object"] == "text_completion"
    assert full["id"].startswith("cmpl-")
    assert full["choices"][0]["finish_reason"] == "length"
    assert full["usage"]["prompt_tokens"] == 3
    assert full["usage"]["completion_tokens"] == 4

    stream = {**base, "stream": True, "stream_options": {"include_usage": True}}
    events = sse_events(httpx.post(url, json=stream).text)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert len(chunks) == 5  # 4 text chunks + usage; completions have no role chunk
    assert all(c["object"] == "text_completion" for c in chunks)
    assert [c["choices"][0]["finish_reason"] for c in chunks[:4]] == [None, None, None, "length"]
    assert "".join(c["choices"][0]["text"] for c in chunks[:4]).count(" ") == 3
    assert chunks[4]["choices"] == []
    assert chunks[4]["usage"]["completion_tokens"] == 4


def test_unknown_model_is_404_listing_served_names(sim: RunningSim) -> None:
    response = httpx.post(f"{sim.base_url}/v1/chat/completions", json={**CHAT, "model": "gpt-4o"})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["type"] == "NotFoundError"
    assert error["code"] == 404
    assert "gpt-4o" in error["message"]
    assert "qwen2.5-7b" in error["message"]
    assert set(error) == {"message", "type", "param", "code"}


def test_malformed_json_is_400(sim: RunningSim) -> None:
    response = httpx.post(
        f"{sim.base_url}/v1/chat/completions",
        content=b'{"model": "qwen2.5-7b", "messages": [',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "BadRequestError"


def test_missing_messages_is_400(sim: RunningSim) -> None:
    response = httpx.post(f"{sim.base_url}/v1/chat/completions", json={"model": "qwen2.5-7b"})
    assert response.status_code == 400
    assert "messages" in response.json()["error"]["message"]


def test_prompt_longer_than_max_model_len_is_400(sim: RunningSim) -> None:
    prompt = "word " * 4200
    response = httpx.post(
        f"{sim.base_url}/v1/completions", json={"model": "qwen2.5-7b", "prompt": prompt}
    )
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "4096" in message and "4200" in message


def test_max_tokens_past_the_context_is_400(sim: RunningSim) -> None:
    response = httpx.post(
        f"{sim.base_url}/v1/completions",
        json={"model": "qwen2.5-7b", "prompt": "one two three", "max_tokens": 4094},
    )
    assert response.status_code == 400
    assert "4094 > 4096 - 3" in response.json()["error"]["message"]


def test_unknown_path_is_fastapi_style_404(sim: RunningSim) -> None:
    response = httpx.get(f"{sim.base_url}/v1/chat/completion")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_same_seed_same_text(make_sim) -> None:  # type: ignore[no-untyped-def]
    texts = []
    for _ in range(2):
        running = make_sim(seed=7)
        body = {**CHAT, "max_tokens": 6}
        reply = httpx.post(f"{running.base_url}/v1/chat/completions", json=body).json()
        texts.append(reply["choices"][0]["message"]["content"])
        running.stop()
    assert texts[0] == texts[1]
    assert texts[0][0].isupper()


def test_reply_depends_on_seed_and_prompt_not_on_arrival(make_sim) -> None:  # type: ignore[no-untyped-def]
    def reply(sim: RunningSim, content: str) -> str:
        body = {"model": "qwen2.5-7b", "messages": [{"role": "user", "content": content}]}
        body["max_tokens"] = 8
        out = httpx.post(f"{sim.base_url}/v1/chat/completions", json=body).json()
        return str(out["choices"][0]["message"]["content"])

    a, b = make_sim(seed=1), make_sim(seed=2)
    first = reply(a, "alpha")
    assert reply(a, "beta") != first  # another prompt, another reply
    assert reply(a, "alpha") == first  # the same prompt again, later: the same reply
    assert reply(b, "alpha") != first  # another server seed
