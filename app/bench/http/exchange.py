"""One request on the wire: send on the client's pool, status, body reads within the limits."""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import AsyncIterator, Callable

import httpx

from app.bench.http.body import (
    BodyError,
    content_encoding,
    inflated,
    oversized,
)
from app.bench.http.client import BenchClient
from app.bench.http.collector import Collector, excerpt
from app.bench.http.connections import ATTEMPT, Attempt
from app.bench.http.error_reply import status_failure
from app.bench.http.failures import classify_exception, lost_before_response
from app.bench.http.record import RequestRecord
from app.bench.http.sse import SSEDecoder, SSEError
from app.bench.http.wire.errors import ConnectionLost
from app.bench.http.wire.stamps import KERNEL, LOOP, WHY
from app.bench.http.wire.transport import FRESH, STAMPING_WHY, WireStream

Clock = Callable[[], int]


class Exchange:
    """One request on the wire: send, status, body read within the limits. Failures before a
    stream could start go to ``early``; failures while streaming to the collector."""

    __slots__ = (
        "clock",
        "col",
        "early",
        "end_ns",
        "head",
        "max_body",
        "max_event",
        "reads",
        "stamping",
        "stamping_why",
        "started",
    )

    def __init__(self, col: Collector, clock: Clock, max_body: int, max_event: int) -> None:
        self.col = col
        self.clock = clock
        self.max_body = max_body
        self.max_event = max_event
        self.early: tuple[str, str] | None = None
        self.started = False  # the response's status line and headers arrived
        self.end_ns = 0
        self.reads = 0
        self.head = b""
        # how the reads were stamped (a kind of wire/stamps.py) and why
        self.stamping: str = LOOP
        self.stamping_why = WHY[LOOP]

    async def run(self, client: httpx.AsyncClient, request: httpx.Request) -> None:
        clock = self.clock
        attempt = Attempt()
        token = ATTEMPT.set(attempt)
        try:
            try:
                response = await _send(client, request, attempt)
            except Exception as exc:
                if isinstance(exc, ConnectionLost):
                    retry = exc.retryable
                else:
                    retry = bool(attempt.reused and lost_before_response(exc))
                if not retry:
                    raise
                # The server closed the kept-alive connection as this request went out: send
                # it once more on a new connection. Counted, never hidden (RequestRecord).
                rec = self.col.rec
                rec.retried = True
                rec.retry_error = classify_exception(exc, after_headers=False)[1]
                attempt = Attempt(force_fresh=True)
                ATTEMPT.set(attempt)
                response = await _send(client, request, attempt)
        except Exception as exc:  # every failure before the first byte becomes a kind
            self.end_ns = clock()
            self.early = classify_exception(exc, after_headers=False)
            return
        finally:
            ATTEMPT.reset(token)
        self.started = True
        col = self.col
        why = response.extensions.get(STAMPING_WHY)
        if isinstance(why, str):
            self.stamping_why = why
        try:
            status = col.rec.http_status = response.status_code
            if status != 200:
                self.early = await status_failure(response)
                self.end_ns = clock()
                return
            await self._read(response)
        except Exception as exc:  # a read error after the headers: keep what arrived
            self.end_ns = clock()
            col.fail(*classify_exception(exc, after_headers=True))
        finally:
            # closing a broken connection may raise; the outcome is already recorded
            with contextlib.suppress(Exception):
                await response.aclose()

    async def _read(self, response: httpx.Response) -> None:
        col, clock = self.col, self.clock
        decoder = SSEDecoder(self.max_event)
        feed = decoder.feed
        handle = col.message
        shaped = col.shaped
        limit = self.max_body
        size = 0
        t = col.rec.send_ns
        encoding = content_encoding(response)
        stream = response.stream
        # arrival stamps are perf_counter_ns readings: with another (injected) clock, none
        stamped = clock is time.perf_counter_ns

        def take(data: bytes, arrived: int) -> bool:
            """One read: stamp, cap, split into events, collect; True ends the reading."""
            nonlocal size, t
            t = arrived
            self.reads += 1
            if self.reads <= 2:
                self.head += data[:300]
            size += len(data)
            if size > limit:
                raise oversized("the streamed reply", limit)
            # one event of the stream's learned shape: no SSE split, no JSON parse
            if decoder.idle and shaped(data, t):
                return False
            for payload in feed(data):  # noqa: SIM110 - a loop, not any(): no generator per read
                if handle(payload, t):
                    return True
            return False

        try:
            if encoding is None and isinstance(stream, WireStream):
                # the transport's read callback calls take(): no task switch per token
                self.stamping = stream.stamping
                if stamped:
                    self.stamping_why = stream.stamping_why
                else:
                    self.stamping, self.stamping_why = LOOP, "an injected clock, read per read"
                await stream.pump(take if stamped else lambda data, _t: take(data, clock()))
                if stream.unstamped and self.stamping == KERNEL:
                    self.stamping = LOOP
                    self.stamping_why = (
                        f"the kernel gave no stamp for {stream.unstamped} of "
                        f"{stream.reads} reads: {WHY[LOOP]}"
                    )
            else:
                reader = response.aiter_raw()
                if encoding is not None:
                    reader = inflated(
                        reader, encoding, max_raw=self.max_body, what="the streamed reply"
                    )
                async for data in reader:
                    if take(data, clock()):
                        return
            if col.kind is not None:
                return
            for payload in decoder.flush():
                if handle(payload, t, final=True):
                    return
            if col.kind is None and col.messages == 0:
                ctype = response.headers.get("content-type", "")
                if "event-stream" not in ctype:
                    col.fail(
                        "not_sse",
                        f"HTTP 200 but the reply is '{ctype or 'untyped'}', not an event stream: "
                        + excerpt(self.head),
                    )
        except (BodyError, SSEError) as exc:
            col.fail(getattr(exc, "kind", "oversized"), str(exc))
        finally:
            self.end_ns = clock()


async def _send(
    client: httpx.AsyncClient, request: httpx.Request, attempt: Attempt
) -> httpx.Response:
    """Send on the client's pool; the httpx transport reports new connections by trace, and
    a forced-fresh send goes through a pool that keeps no connection."""
    if isinstance(client, BenchClient):
        if attempt.force_fresh:
            request.extensions[FRESH] = True
        if client.transport_kind == "httpx":
            attempt.reused = True  # unless the trace sees a connect
            request.extensions["trace"] = attempt.httpx_trace
            if attempt.force_fresh:
                return await client.fresh_client().send(request, stream=True)
        return await client.send_stream(request)
    return await client.send(request, stream=True)


class StampedBody(httpx.AsyncByteStream):
    """The request body; reading it stamps ``send_ns``: the moment the request goes out.

    The transport reads it right before it writes the request (after any connect), so a
    clock read before ``client.send`` would charge a burst of N simultaneous requests with
    the set-up time of all the others (20 ms at N=256 here).
    """

    def __init__(self, data: bytes, rec: RequestRecord, clock: Clock) -> None:
        self._data = data
        self._rec = rec
        self._clock = clock

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self._rec.send_ns = self._clock()
        yield self._data


@functools.lru_cache(maxsize=64)
def parsed_url(url: str) -> httpx.URL:
    return httpx.URL(url)
