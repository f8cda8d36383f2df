"""A streaming OpenAI-style server whose latency grows with concurrency by a known formula.

A request that arrives while n-1 others are in flight (n counting itself) streams `tokens`
tokens: the first after ttft_ms(n) = TTFT0 + TTFT_PER * n, then one every tpot_ms(n) = TPOT0 +
TPOT_PER * n, on absolute deadlines so sleeps that wake late do not add up. It leaves the
in-flight count as soon as its last token is written, before the usage message and [DONE],
so the client's next request (sent when it sees the end) always finds the count already
lowered. With rate inf and c slots every request after the first wave sees n = c, so the
point's TPOT p99 is tpot_ms(c) and the capacity under a TPOT limit is known exactly.

Also: POST /reset_prefix_cache (counted; 404 when `reset_route` is off), GET /v1/models,
GET /metrics (404 unless `metrics`: then vLLM's running-requests gauge). With `hold_aborted`
a stream the client dropped stays counted as running until release_aborted() (a server slow
to notice). Plain asyncio streams with chunked transfer encoding and keep-alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from typing import Any

TTFT0, TTFT_PER = 20.0, 2.0
TPOT0, TPOT_PER = 10.0, 16.0
ABORT_POLL_S = 0.005


STREAM_HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
)


def chunk(payload: Any) -> bytes:
    """One SSE event as one HTTP chunk (a JSON object, or a bare string such as [DONE])."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    data = f"data: {text}\n\n".encode()
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def ttft_ms(n: int) -> float:
    return TTFT0 + TTFT_PER * n


def tpot_ms(n: int) -> float:
    return TPOT0 + TPOT_PER * n


def capacity(limit_ms: float) -> int:
    """The highest concurrency whose TPOT meets `limit_ms`."""
    n = 0
    while tpot_ms(n + 1) <= limit_ms:
        n += 1
    return n


class FormulaServer:
    def __init__(
        self,
        tokens: int = 20,
        reset_route: bool = True,
        *,
        metrics: bool = False,
        hold_aborted: bool = False,
    ) -> None:
        self.tokens = tokens
        self.reset_route = reset_route
        self.metrics = metrics
        self.hold_aborted = hold_aborted
        self.held = 0  # dropped streams still counted as running (hold_aborted)
        self.metrics_scrapes = 0
        self._scraped = threading.Condition()
        self.in_flight = 0
        self.peak = 0
        self.resets = 0
        self.requests = 0
        self.aborted = 0  # streams the client closed before their end
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.AbstractServer | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FormulaServer:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        future.result(10)
        return self

    async def _close_all(self) -> None:
        # Wait for the cancelled handlers: each closes its writer on the way out, so no
        # transport outlives the loop (a leaked one warns in whichever test runs next).
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def wait_for_scrapes(self, count: int, timeout_s: float = 60.0) -> bool:
        """Block until /metrics was read `count` times (False after the hang guard)."""
        with self._scraped:
            return self._scraped.wait_for(lambda: self.metrics_scrapes >= count, timeout_s)

    def release_aborted(self) -> None:
        """The server notices dropped streams at last: they (and later ones) stop counting."""

        def release() -> None:
            self.hold_aborted = False
            self.held = 0

        self._loop.call_soon_threadsafe(release)

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()
            await self._close_all()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
                while True:
                    head = await reader.readuntil(b"\r\n\r\n")
                    lines = head.decode("latin-1").split("\r\n")
                    method, path, _ = lines[0].split(" ", 2)
                    headers = {
                        k.strip().lower(): v.strip()
                        for k, _, v in (line.partition(":") for line in lines[1:] if line)
                    }
                    body = await reader.readexactly(int(headers.get("content-length", "0")))
                    await self._handle(method, path, body, reader, writer)
        finally:
            writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()

    async def _plain(self, writer: asyncio.StreamWriter, status: str, payload: Any) -> None:
        data = json.dumps(payload).encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        await writer.drain()

    async def _handle(
        self,
        method: str,
        path: str,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        if method == "GET" and path.endswith("/models"):
            await self._plain(writer, "200 OK", {"data": [{"id": "formula", "object": "model"}]})
        elif method == "POST" and path == "/reset_prefix_cache" and self.reset_route:
            self.resets += 1
            await self._plain(writer, "200 OK", {})
        elif method == "GET" and path == "/metrics" and self.metrics:
            with self._scraped:
                self.metrics_scrapes += 1
                self._scraped.notify_all()
            running = self.in_flight + self.held
            text = f'vllm:num_requests_running{{model_name="formula"}} {running}.0\n'.encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                + f"Content-Length: {len(text)}\r\n\r\n".encode()
                + text
            )
            await writer.drain()
        elif method == "POST" and path.endswith("/chat/completions"):
            await self._stream(json.loads(body or b"{}"), reader, writer)
        else:
            await self._plain(writer, "404 Not Found", {"detail": "Not Found"})

    async def _stream(
        self, request: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.requests += 1
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        n = self.in_flight
        start = time.monotonic()
        tokens = min(self.tokens, int(request.get("max_tokens") or self.tokens))
        writer.write(STREAM_HEAD)

        left = True
        try:
            for k in range(tokens):
                due = start + (ttft_ms(n) + k * tpot_ms(n)) / 1000
                # Like uvicorn (so vLLM), notice soon when the client goes away (its end of the
                # connection is closed: EOF), not at a later failed write: an aborted request
                # leaves the in-flight count within ABORT_POLL_S. Polled, because a read would
                # swallow the first bytes of the client's next request on this connection.
                while (wait := due - time.monotonic()) > 0 and not reader.at_eof():
                    await asyncio.sleep(min(wait, ABORT_POLL_S))
                if reader.at_eof():
                    self.aborted += 1
                    if self.hold_aborted:
                        self.held += 1
                    return
                delta = {"content": f" t{k}"}
                finish = "length" if k == tokens - 1 else None
                writer.write(
                    chunk({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
                )
                await writer.drain()
            self.in_flight -= 1
            left = False
            usage = {"prompt_tokens": 8, "completion_tokens": tokens, "total_tokens": 8 + tokens}
            writer.write(chunk({"choices": [], "usage": usage}) + chunk("[DONE]") + b"0\r\n\r\n")
            await writer.drain()
        finally:
            if left:
                self.in_flight -= 1
