"""Token sinks: turn engine tokens into vLLM's SSE chunks (or one JSON body) on time.

The engine calls `prepare` when it plans a step (JSON is encoded then, off the clock) and
`flush` at the step's deadline, which writes straight to the ASGI `send` without waking any
per-request task: 128 streams cost 128 socket writes, not 128 task switches.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

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

    def token(self, text: str, finish_reason: str | None, stop_reason: str | None = None) -> bytes:
        body = json.dumps(text)
        if self.chat:
            choice = f'{{"index":0,"delta":{{"content":{body}}},"logprobs":null,'
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

    def usage(self, prompt_tokens: int, completion_tokens: int) -> bytes:
        usage = {
            "prompt_tokens": prompt_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "completion_tokens": completion_tokens,
        }
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
    ) -> None:
        self.fmt = fmt
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
        self._backlog: list[tuple[bytes, bool]] | None = None
        self._drain_task: asyncio.Future[None] | None = None

    def attach(self, send: Send) -> None:
        self._send = send

    # --- TokenSink -------------------------------------------------------------------------
    def prepare(self, text: str, finish_reason: str | None) -> None:
        self.generated += 1
        n = self.generated
        if self.cut_after is not None and n > self.cut_after:
            self._pending = None
            self.cut = True  # at this step's deadline the handler drops the connection
            return
        text = self.clip(text)
        chunk = (
            self.fmt.malformed(text)
            if n == self.malformed_at
            else self.fmt.token(text, finish_reason, self.stop_reason if finish_reason else None)
        )
        if n == 1 and self.fmt.chat:
            chunk = self.fmt.role() + chunk
        if finish_reason is not None:
            if self.include_usage:
                chunk += self.fmt.usage(self.prompt_tokens, n)
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
        coro = self._send(message)
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
        self.finish_reason: str | None = None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def prepare(self, text: str, finish_reason: str | None) -> None:
        self.parts.append(self.clip(text))
        self.finish_reason = finish_reason

    def flush(self, deadline_ns: int) -> None:
        if self.finish_reason is not None and not self.done.done():
            self.done.set_result(None)

    def aborted(self, reason: str) -> None:
        if not self.done.done():
            self.done.set_result(None)

    @property
    def text(self) -> str:
        return "".join(self.parts)
