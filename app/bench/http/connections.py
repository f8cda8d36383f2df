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
import socket
import struct
import sys
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

    # When the kernel stamped the bytes being handed to data_received (perf_counter_ns), see
    # kernel_stamps; None: stamp them on the loop's clock as they are handed over.
    _kernel_ns: int | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        kernel_stamps(transport, self)

    def data_received(self, data: bytes) -> None:
        t = self._kernel_ns
        if t is None:
            t = time.perf_counter_ns()
        else:
            self._kernel_ns = None
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


# Linux names; Python 3.11's socket module lacks SO_TIMESTAMPNS (35 on every Linux arch)
_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_TIMESPEC = struct.Struct("@ll")
KERNEL_STAMPS = sys.platform == "linux"
_CMSG_SPACE = socket.CMSG_SPACE(_TIMESPEC.size) if KERNEL_STAMPS else 0
# a stamp older than this is a clock step, not a packet: the loop's own reading is used
_MAX_AGE_NS = 60 * 1_000_000_000


def kernel_stamps(transport: Any, protocol: _ResponseHandler) -> bool:
    """Have the kernel stamp each read of a plain-TCP connection on the default asyncio loop.

    A stamp taken in data_received is late by however long the loop was busy when the bytes
    came: at 64 streams the woken readers' parsing takes milliseconds, and on a 2-core machine
    a window repainting beside the worker delays the loop further. Linux stamps every packet
    as it arrives (SO_TIMESTAMPNS); the stamp comes with the read (recvmsg), so this replaces
    the transport's read callback by one that reads with recvmsg and otherwise does what
    asyncio's own does (CPython 3.11-3.13, _SelectorSocketTransport). Any other transport
    (TLS, uvloop, another OS) keeps the data_received stamp. True when installed.
    """
    if not _CMSG_SPACE:
        return False
    sock = getattr(transport, "_sock", None)
    current = getattr(transport, "_read_ready_cb", None)
    plain = getattr(transport, "_read_ready__data_received", None)
    if (
        not isinstance(sock, socket.socket)
        or sock.type != socket.SOCK_STREAM
        or current is None
        or current != plain
        or not all(
            hasattr(transport, name)
            for name in ("_conn_lost", "_fatal_error", "_read_ready__on_eof", "max_size")
        )
    ):
        return False
    try:
        sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
    except OSError:
        return False
    transport._read_ready_cb = functools.partial(_read_stamped, transport, protocol, sock)
    return True


def _read_stamped(transport: Any, protocol: _ResponseHandler, sock: socket.socket) -> None:
    if transport._conn_lost:
        return
    try:
        data, ancdata, _flags, _addr = sock.recvmsg(transport.max_size, _CMSG_SPACE)
    except (BlockingIOError, InterruptedError):
        return
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:
        transport._fatal_error(exc, "Fatal read error on socket transport")
        return
    if not data:
        transport._read_ready__on_eof()
        return
    protocol._kernel_ns = _arrival_ns(ancdata)
    try:
        protocol.data_received(data)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:
        transport._fatal_error(exc, "Fatal error: protocol.data_received() call failed.")


def _arrival_ns(ancdata: list[tuple[int, int, bytes]]) -> int | None:
    """The kernel's receive stamp of a read on the perf_counter_ns clock, or None."""
    for level, kind, payload in ancdata:
        if (
            level == socket.SOL_SOCKET
            and kind == _SO_TIMESTAMPNS
            and len(payload) >= _TIMESPEC.size
        ):
            sec, nsec = cast("tuple[int, int]", _TIMESPEC.unpack_from(payload))
            now = time.perf_counter_ns()
            # The kernel stamps on the wall clock; only the packet's age is taken from it (a
            # few milliseconds, so a wall-clock step can only matter if it falls inside them).
            age = time.clock_gettime_ns(time.CLOCK_REALTIME) - (sec * 1_000_000_000 + nsec)
            if 0 <= age < _MAX_AGE_NS:
                return now - age
    return None


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
