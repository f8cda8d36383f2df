"""`stop` strings cut the reply like vLLM; a non-streamed reply is aborted when its client goes."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

import httpx
import pytest

from app.sim.embedded import RunningSim
from app.sim.textgen import find_stop

PROMPT = "Describe the harbour at dawn."


def _stream_pieces(sim: RunningSim, **extra: object) -> tuple[list[str], dict, dict]:
    """(content of each chunk, the final choice, usage) of a streamed completion."""
    body = {"prompt": PROMPT, "max_tokens": 40, "ignore_eos": True, "stream": True}
    body["stream_options"] = {"include_usage": True}
    body.update(extra)
    pieces: list[str] = []
    last: dict = {}
    usage: dict = {}
    with httpx.stream("POST", f"{sim.base_url}/v1/completions", json=body, timeout=10) as r:
        for line in r.iter_lines():
            if not line.startswith("data: {"):
                continue
            chunk = json.loads(line[6:])
            if chunk["choices"]:
                pieces.append(chunk["choices"][0]["text"])
                last = chunk["choices"][0]
            if chunk.get("usage"):
                usage = chunk["usage"]
    return pieces, last, usage


def test_stop_on_the_first_word_sends_nothing(sim: RunningSim) -> None:
    pieces, _, _ = _stream_pieces(sim)
    first_word = pieces[0]
    stopped, last, usage = _stream_pieces(sim, stop=first_word)
    assert "".join(stopped) == ""
    assert last["finish_reason"] == "stop"
    assert last["stop_reason"] == first_word
    assert usage["completion_tokens"] == 1


def test_stop_string_spanning_two_tokens_streamed_and_not(sim: RunningSim) -> None:
    pieces, last, usage = _stream_pieces(sim)
    assert last["finish_reason"] == "length" and usage["completion_tokens"] == 40
    full = "".join(pieces)
    # the last 2 characters of token 9 and the first 3 of token 10
    stop = pieces[8][-2:] + pieces[9][:3]
    begins = full.find(stop)
    assert 0 <= begins <= len("".join(pieces[:8])) + len(pieces[8]) - 2
    stopped, last, usage = _stream_pieces(sim, stop=["never-in-the-text", stop])
    assert "".join(stopped) == full[:begins]
    assert last["finish_reason"] == "stop" and last["stop_reason"] == stop
    ends_in = next(n for n in range(1, 41) if stop in "".join(pieces[:n]))
    assert usage["completion_tokens"] == ends_in <= 10
    body = {"prompt": PROMPT, "max_tokens": 40, "ignore_eos": True, "stop": stop}
    reply = httpx.post(f"{sim.base_url}/v1/completions", json=body, timeout=10).json()
    assert reply["choices"][0]["text"] == full[:begins]
    assert reply["choices"][0]["finish_reason"] == "stop"
    assert reply["choices"][0]["stop_reason"] == stop
    assert reply["usage"]["completion_tokens"] == ends_in


def test_stop_that_never_matches_changes_nothing(sim: RunningSim) -> None:
    pieces, _, _ = _stream_pieces(sim)
    stopped, last, usage = _stream_pieces(sim, stop="zzz-not-a-word")
    assert stopped == pieces
    assert last["finish_reason"] == "length" and last["stop_reason"] is None
    assert usage["completion_tokens"] == 40


def test_bad_stop_is_a_400(sim: RunningSim) -> None:
    body = {"prompt": PROMPT, "max_tokens": 4, "stop": ["ok", 3]}
    r = httpx.post(f"{sim.base_url}/v1/completions", json=body, timeout=10)
    assert r.status_code == 400
    assert "'stop' must be a string or a list of strings" in r.json()["error"]["message"]


def test_find_stop_respects_min_tokens() -> None:
    # "a" is in most words: it matches early, and again once min_tokens have gone by
    first = find_stop(7, 50, ("a",), 0)
    assert first is not None and first.tokens <= 5
    later = find_stop(7, 50, ("a",), first.tokens + 5)
    assert later is not None and later.tokens >= first.tokens + 5
    assert find_stop(7, 50, (), 0) is None


def _running(sim: RunningSim) -> float:
    text = httpx.get(f"{sim.base_url}/metrics", timeout=5).text
    match = re.search(r"^vllm:num_requests_running\{[^}]*\} (\S+)$", text, re.MULTILINE)
    assert match, "no vllm:num_requests_running line"
    return float(match.group(1))


def test_non_streamed_request_is_aborted_when_the_client_leaves(
    make_sim: Callable[..., RunningSim],
) -> None:
    sim = make_sim()
    body = {"prompt": PROMPT, "max_tokens": 3000, "ignore_eos": True}  # about a minute
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{sim.base_url}/v1/completions", json=body, timeout=httpx.Timeout(0.5))
    deadline = time.monotonic() + 3
    while _running(sim) != 0.0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running(sim) == 0.0
