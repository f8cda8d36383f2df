"""Token sinks: turn engine tokens into vLLM's SSE chunks (or one JSON body) on time.

The engine calls `prepare` when it plans a step (JSON is encoded then, off the clock) and
`flush` at the step's deadline, which writes straight to the ASGI `send` without waking any
per-request task: 128 streams cost 128 socket writes, not 128 task switches.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from app.sim.sequence import Emission

Send = Callable[[dict[str, Any]], Awaitable[None]]

SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
]
DONE = b"data: [DONE]\n\n"


def sse(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


class ChunkFormat:
    """The fixed parts of one request's chunks, encoded once."""

    def __init__(self, *, chat: bool, request_id: str, created: int, model: str) -> None:
        self.chat = chat
        self.request_id = request_id
        self.created = created
        self.model = model
        self.object = "chat.completion.chunk" if chat else "text_completion"
        head = {"id": request_id, "object": self.object, "created": created, "model": model}
        self._head = json.dumps(head, separators=(",", ":"))[:-1].encode()

    def token(
        self,
        text: str,
        finish_reason: str | None,
        stop_reason: str | None = None,
        reasoning: str = "",
    ) -> bytes:
        body = json.dumps(text)
        if self.chat:
            # vLLM's reasoning parser splits a step's text where the reasoning ends; a delta
            # carries either part, or both when the boundary falls inside the step.
            if reasoning and text:
                delta = f'{{"reasoning_content":{json.dumps(reasoning)},"content":{body}}}'
            elif reasoning:
                delta = f'{{"reasoning_content":{json.dumps(reasoning)}}}'
            else:
                delta = f'{{"content":{body}}}'
            choice = f'{{"index":0,"delta":{delta},"logprobs":null,'
        else:
            choice = f'{{"index":0,"text":{body},"logprobs":null,'
        if finish_reason is None:
            choice += '"finish_reason":null}'
        else:
            stop = "null" if stop_reason is None else json.dumps(stop_reason)
            choice += f'"finish_reason":"{finish_reason}","stop_reason":{stop}}}'
        return b"data: " + self._head + b',"choices":[' + choice.encode() + b"]}\n\n"

    def role(self) -> bytes:
        choice = (
            '{"index":0,"delta":{"role":"assistant","content":""},'
            '"logprobs":null,"finish_reason":null}'
        )
        return b"data: " + self._head + b',"choices":[' + choice.encode() + b"]}\n\n"

    def usage(
        self,
        prompt_tokens: int,
        completion_tokens: int,
        cached_tokens: int | None = None,
        reasoning_tokens: int | None = None,
    ) -> bytes:
        usage = usage_body(prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens)
        if usage["prompt_tokens_details"] is None:
            del usage["prompt_tokens_details"]
        return (
            b"data: " + self._head + b',"choices":[],"usage":'
            + json.dumps(usage, separators=(",", ":")).encode() + b"}\n\n"
        )  # fmt: skip

    def malformed(self, text: str) -> bytes:
        """A chunk cut off inside its JSON, as a broken proxy would pass it on."""
        return (
            b"data: "
            + self._head
            + b',"choices":[{"index":0,"delta":{"content":'
            + json.dumps(text).encode()[:-1]
            + b"\n\n"
        )


def usage_body(
    prompt_tokens: int,
    completion_tokens: int,
    cached_tokens: int | None = None,
    reasoning_tokens: int | None = None,
) -> dict[str, Any]:
    """vLLM's usage object. `prompt_tokens_details` only when some prompt tokens were cached
    (vLLM leaves it null at 0); `completion_tokens_details` only for a reasoning reply."""
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "completion_tokens": completion_tokens,
        "prompt_tokens_details": {"cached_tokens": cached_tokens} if cached_tokens else None,
    }
    if reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    return usage


class StreamSink:
    """Streams one request's tokens as SSE; `done` resolves when it ends (or is cut)."""

    def __init__(
        self,
        fmt: ChunkFormat,
        *,
        prompt_tokens: int,
        include_usage: bool,
        latency_s: float = 0.0,
        cut_after: int | None = None,
        malformed_at: int | None = None,
        text_limit: int | None = None,
        stop_reason: str | None = None,
        report_cached: bool = False,
        report_reasoning: bool = False,
    ) -> None:
        self.fmt = fmt
        self.report_cached = report_cached
        self.report_reasoning = report_reasoning
        self.clip = _TextClip(text_limit)
        self.stop_reason = stop_reason
        self.prompt_tokens = prompt_tokens
        self.include_usage = include_usage
        self.latency_s = latency_s
        self.cut_after = cut_after
        self.malformed_at = malformed_at
        self.generated = 0
        self.complete = False
        self.cut = False
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._send: Send | None = None
        self._pending: dict[str, Any] | None = None
        self._backlog: list[dict[str, Any]] | None = None
        self._drain_task: asyncio.Future[None] | None = None

    def attach(self, send: Send) -> None:
        self._send = send

    # --- TokenSink -------------------------------------------------------------------------
    def prepare(self, out: Emission) -> None:
        first = self.generated == 0
        self.generated += out.tokens
        n = self.generated
        finish_reason = out.finish_reason
        if self.cut_after is not None and n > self.cut_after:
            self._pending = None
            self.cut = True  # at this step's deadline the handler drops the connection
            return
        reasoning = self.clip(out.reasoning)
        text = self.clip(out.content)
        if n - out.tokens < (self.malformed_at or 0) <= n:
            chunk = self.fmt.malformed(reasoning + text)
        else:
            stop = self.stop_reason if finish_reason else None
            chunk = self.fmt.token(text, finish_reason, stop, reasoning)
        if first and self.fmt.chat:
            chunk = self.fmt.role() + chunk
        if finish_reason is not None:
            if self.include_usage:
                chunk += self.fmt.usage(
                    self.prompt_tokens,
                    n,
                    out.cached_tokens if self.report_cached else None,
                    out.reasoning_tokens if self.report_reasoning else None,
                )
            chunk += DONE
        self._pending = {
            "type": "http.response.body",
            "body": chunk,
            "more_body": not finish_reason,
        }

    def flush(self, deadline_ns: int) -> None:
        message, self._pending = self._pending, None
        if message is None:
            if self.cut:
                self._finish()
            return
        if self.latency_s > 0:
            loop = asyncio.get_running_loop()
            when = deadline_ns / 1e9 + self.latency_s - time.monotonic() + loop.time()
            loop.call_at(when, self._write, message)
        else:
            self._write(message)

    def aborted(self, reason: str) -> None:
        self._finish()

    # --- writing -----------------------------------------------------------------------------
    def _write(self, message: dict[str, Any]) -> None:
        """Send now if the socket takes it (the usual case); else queue behind a drain task."""
        if self._backlog is not None:  # an earlier write is waiting for the socket to drain
            self._backlog.append(message)
            return
        if self._send is None:
            return
        # uvicorn's send is a coroutine function: stepping it by hand sends without a task
        coro = cast("Coroutine[Any, Any, None]", self._send(message))
        try:
            yielded = coro.send(None)  # uvicorn's send only suspends when writes are paused
        except StopIteration:
            self._sent(message)
            return
        except Exception:  # the connection broke under us: nothing more to send
            self._finish()
            return
        self._backlog = []
        self._drain_task = asyncio.ensure_future(self._drain(coro, yielded, message))

    async def _drain(self, coro: Any, yielded: Any, message: dict[str, Any]) -> None:
        try:
            while True:
                await yielded
                try:
                    yielded = coro.send(None)
                except StopIteration:
                    break
            self._sent(message)
            while self._backlog and self._send is not None:
                message = self._backlog.pop(0)
                await self._send(message)
                self._sent(message)
        except Exception:
            self._finish()
        finally:
            self._backlog = None

    def _sent(self, message: dict[str, Any]) -> None:
        if not message["more_body"]:
            self.complete = True
            self._finish()

    def _finish(self) -> None:
        if not self.done.done():
            self.done.set_result(None)


class _TextClip:
    """Cuts a reply's text at `limit` characters (where a stop string begins)."""

    def __init__(self, limit: int | None) -> None:
        self.left = limit

    def __call__(self, text: str) -> str:
        if self.left is None:
            return text
        text = text[: self.left]
        self.left -= len(text)
        return text


class CollectSink:
    """Collects a non-streamed reply; `done` resolves with (text, finish_reason, tokens)."""

    def __init__(self, text_limit: int | None = None) -> None:
        self.clip = _TextClip(text_limit)
        self.parts: list[str] = []
        self.reasoning_parts: list[str] = []
        self.finish_reason: str | None = None
        self.cached_tokens = 0
        self.reasoning_tokens = 0
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def prepare(self, out: Emission) -> None:
        self.reasoning_parts.append(self.clip(out.reasoning))
        self.parts.append(self.clip(out.content))
        self.finish_reason = out.finish_reason
        self.cached_tokens = out.cached_tokens
        self.reasoning_tokens = out.reasoning_tokens

    def flush(self, deadline_ns: int) -> None:
        if self.finish_reason is not None and not self.done.done():
            self.done.set_result(None)

    def aborted(self, reason: str) -> None:
        if not self.done.done():
            self.done.set_result(None)

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def reasoning(self) -> str:
        return "".join(self.reasoning_parts)
