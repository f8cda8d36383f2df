"""Which connection a request went out on, and a fresh one for its retry.

A kept-alive connection can be closed by the server at any moment (keep-alive limits, idle
timeouts): a request written into it as the server closes it fails before any byte of a
response. Such a request is safe to send again, once, on a new connection. To know whether a
connection was reused, the aiohttp connector marks every connection it hands out; httpx's own
transport reports new connections through its trace extension. The current request's
``Attempt`` travels in a context variable, so nothing is added per streamed chunk.
"""

from __future__ import annotations

import functools
import time
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

import aiohttp
from aiohttp.client_exceptions import ClientPayloadError
from aiohttp.client_proto import ResponseHandler
from aiohttp.streams import StreamReader


@dataclass(slots=True)
class Attempt:
    """One send of a request: whether it went out on a reused connection (None: unknown), and
    whether it must use a new one."""

    reused: bool | None = None
    force_fresh: bool = False

    async def httpx_trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook: a TCP connect means a new connection."""
        if event == "connection.connect_tcp.started":
            self.reused = False


ATTEMPT: ContextVar[Attempt | None] = ContextVar("tpotbench_attempt", default=None)


class _ResponseHandler(ResponseHandler):
    """aiohttp's protocol, plus: an error in a response body reaches the body's reader.

    aiohttp 3.14 puts a parse error in a chunked body (a bad chunk size) on the protocol only
    and stops the read timeout, so a reader waiting for the next piece of that body waits for
    ever. Failing the body too ends the read with the parse error as its cause.
    """

    # The body's reader stamps a read when its task runs. At 64 streams a decode step's 64
    # chunks arrive together and one event loop parses them in turn, so the last one would be
    # stamped after 63 others were parsed (~3-5 ms late at p99 on 2 cores). The loop calls
    # data_received for every readable socket before it runs any of the woken tasks, so the
    # arrival is stamped here: (the body that got bytes, when its oldest unread bytes came).
    _arrival: tuple[StreamReader, int] | None = None

    def data_received(self, data: bytes) -> None:
        t = time.perf_counter_ns()
        before = self._payload
        fed = before.total_bytes if before is not None else 0
        super().data_received(data)
        got = self._payload
        if before is not None and before.total_bytes > fed:
            got = before
        elif got is before or got is None or not got.total_bytes:
            return  # no body bytes (the status line and headers alone, or a chunk's framing)
        arrival = self._arrival
        if arrival is None or arrival[0] is not got:
            self._arrival = (got, t)

    def take_arrival(self, body: StreamReader) -> int | None:
        """When the oldest bytes of ``body`` not yet taken arrived (perf_counter_ns), once;
        None if none arrived since the last call."""
        arrival = self._arrival
        if arrival is None or arrival[0] is not body:
            return None
        self._arrival = None
        return arrival[1]

    def set_exception(self, exc: BaseException, exc_cause: Any = None) -> None:
        payload = self._payload
        if exc_cause is None:
            super().set_exception(exc)
        else:
            super().set_exception(exc, exc_cause)
        if payload is not None and not payload.is_eof() and payload.exception() is None:
            error = ClientPayloadError(f"Response payload is not completed: {exc!r}")
            error.__cause__ = exc_cause if isinstance(exc_cause, BaseException) else exc
            payload.set_exception(error)


class TrackingConnector(aiohttp.TCPConnector):
    """A TCPConnector that tells the current Attempt whether its connection was reused and,
    when the attempt asks for it, hands out only a new connection (pooled ones it meets on
    the way are closed: they are the likely stale ones)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._handed_out: weakref.WeakSet[ResponseHandler] = weakref.WeakSet()
        if hasattr(self, "_factory"):  # private in aiohttp; without it the bug fix is off
            # typeshed's partial is invariant; aiohttp only calls it for a ResponseHandler
            self._factory = cast(
                "functools.partial[ResponseHandler]",
                functools.partial(_ResponseHandler, loop=self._loop),
            )

    async def connect(self, req: Any, traces: Any, timeout: Any) -> Any:
        conn = await super().connect(req, traces, timeout)
        attempt = ATTEMPT.get()
        seen = self._handed_out
        if attempt is not None:
            if attempt.force_fresh:
                while conn.protocol in seen:
                    conn.close()
                    conn = await super().connect(req, traces, timeout)
            attempt.reused = conn.protocol in seen
        if conn.protocol is not None:
            seen.add(conn.protocol)
        return conn


def aiohttp_session_factory(transport: Any) -> Any:
    """A factory for httpx-aiohttp's AiohttpTransport(client=...): its own ClientSession
    settings (pool size, keep-alive expiry, TLS context) on a TrackingConnector."""

    def make() -> aiohttp.ClientSession:
        limit = transport.limits.max_connections
        connector = TrackingConnector(
            keepalive_timeout=transport.limits.keepalive_expiry,
            ssl=transport.ssl_context,
            **({"limit": limit} if limit is not None else {}),
        )
        return aiohttp.ClientSession(connector=connector)

    return make


def arrival_clock(body: Any) -> Callable[[], int | None] | None:
    """For an aiohttp response body read through a TrackingConnector connection: a function
    giving the arrival time of the bytes each read returns (see ``_ResponseHandler``)."""
    response = getattr(body, "_aiohttp_response", None)
    connection = getattr(response, "connection", None)
    protocol = getattr(connection, "protocol", None)
    content = getattr(response, "content", None)
    if not isinstance(protocol, _ResponseHandler) or not isinstance(content, StreamReader):
        return None
    return functools.partial(protocol.take_arrival, content)
