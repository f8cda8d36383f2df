"""Sessions against a real server for the conversation tests: small conversations, and a run
that records what each request sent and how many were in flight at once."""

from __future__ import annotations

import functools
from typing import Any

from app.bench.datasets.conversations import Conversation, Turn
from app.bench.http import client as client_mod
from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.request import RequestSpec
from app.bench.http.stream import send_request
from app.bench.load.sessions import run_sessions


def make_conversations(n: int, turns: int, output_len: int = 3) -> list[Conversation]:
    """n sessions of distinct questions long enough to fill several 16-token KV blocks."""
    out = []
    for s in range(n):
        turns_ = tuple(
            Turn(" ".join(f"s{s}t{t}w{k}" for k in range(40)), 40, output_len) for t in range(turns)
        )
        out.append(Conversation(f"c{s}", turns_))
    return out


async def run_sessions_on(
    base_url: str, conversations: list[Conversation], **kw: Any
) -> tuple[Any, list]:
    resolved = resolve_endpoint(base_url, api="chat")
    sent: list[tuple[int, list[dict[str, str]]]] = []
    peak = {"now": 0, "max": 0}

    def make_spec(messages: list[dict[str, str]], prompt_len: int, max_tokens: int, rid: str):
        return RequestSpec(messages, prompt_len, max_tokens, model="qwen2.5-7b", request_id=rid)

    async with client_mod.make_client(4) as http:
        real = functools.partial(send_request, http, resolved)

        async def send(spec: RequestSpec):
            sent.append((len(sent), spec.prompt))  # type: ignore[arg-type]
            peak["now"] += 1
            peak["max"] = max(peak["max"], peak["now"])
            try:
                return await real(spec)
            finally:
                peak["now"] -= 1

        outcome = await run_sessions(send, conversations, make_spec, **kw)
    return outcome, [sent, peak["max"]]
