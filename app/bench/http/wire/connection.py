"""One HTTP/1.1 connection: a request written, its reply parsed by httptools, each read stamped.

The body reaches its reader in one of two ways. ``pump(sink)``: the read callback itself calls
``sink(data, stamp_ns)`` for every piece of body, so a streamed token costs one callback and no
task switch (the measured requests use this). ``read()``: pieces are buffered, at most
``_PAUSE_BYTES`` before reading pauses, for ``async for`` readers (httpx's ``aiter_raw``).

Two kinds of socket under one parser: ``SocketConnection`` reads a plain-TCP socket itself
(``loop.add_reader`` + ``recvmsg``) so each read carries the kernel's receive stamp (Linux);
``ProtocolConnection`` is an ``asyncio.Protocol`` for TLS (asyncio's SSL transport) and for
loops without ``add_reader``, stamped as the loop hands each read over (see stamps.py).
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable
from typing import Any, cast

import httptools

from app.bench.http.wire import stamps
from app.bench.http.wire.errors import (
    BadFraming,
    ConnectionLost,
    HeadTooLarge,
    ReadTimedOut,
    WriteTimedOut,
)

# A piece of body and when it arrived; True from the sink ends the reading.
Sink = Callable[[bytes, int], bool]
Head = tuple[int, bytes, list[tuple[bytes, bytes]]]

# Status line and headers together; aiohttp allows 8 kB a line, h11 16 kB in all. A reply
# whose head is larger is not an API server's.
MAX_HEAD_BYTES = 64 * 1024
# An ``async for`` reader that falls behind: reading stops here until it catches up, so a
# server sending faster than the reader takes never fills memory.
_PAUSE_BYTES = 1024 * 1024
# One recvmsg: a token chunk is ~100-300 bytes; a large read is a backlog or a big event.
READ_BYTES = 256 * 1024

_perf = time.perf_counter_ns
_arrival = stamps.arrival_ns


class Connection:
    """The parser and the reply's state; subclasses own the socket. One request at a time."""

    stamping = stamps.LOOP

    def __init__(self, loop: asyncio.AbstractEventLoop, read_timeout_s: float | None) -> None:
        self.loop = loop
        self.read_timeout_ns = None if read_timeout_s is None else int(read_timeout_s * 1e9)
        self.closed = False
        self.reused = False  # this connection carried a reply before the current request
        self.idle_since = 0.0
        self.keep_alive = True
        self.route = ""  # how it reaches the server when not directly (a proxy's tunnel)
        self._parser: Any = None
        self._head_waiter: asyncio.Future[Head] | None = None
        self._status = 0
        self._reason = b""
        self._headers: list[tuple[bytes, bytes]] = []
        self._head_size = 0
        self._until_eof = False  # a body without length or chunking: it ends at EOF
        self._got_reply = False  # any byte of a reply arrived
        self._headers_done = False
        self._interim = False  # parsing a 1xx interim reply
        self.complete = False  # the reply's last byte arrived
        self._t = 0  # the stamp of the read being parsed
        self._last_ns = 0  # the stamp of the newest read (silence timeout)
        self._buf: list[tuple[bytes, int]] = []
        self._buffered = 0
        self._waiter: asyncio.Future[None] | None = None
        self._sink: Sink | None = None
        self._sink_done: asyncio.Future[None] | None = None
        self._stopped = False
        self._error: BaseException | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._paused = False
        self.reads = 0
        self.unstamped = 0  # reads the kernel gave no stamp for (stamped on the loop instead)

    # ---- the socket's side (subclasses) ----------------------------------------------------

    async def write(self, data: bytes, timeout_s: float | None) -> None:
        raise NotImplementedError

    def _close_socket(self) -> None:
        raise NotImplementedError

    def _pause(self) -> None:
        raise NotImplementedError

    def _resume(self) -> None:
        raise NotImplementedError

    # ---- one request -------------------------------------------------------------------------

    async def request(self, data: bytes, write_timeout_s: float | None) -> Head:
        """Write a request and wait for its reply's status line and headers."""
        if self.closed:
            raise ConnectionLost(
                "the connection closed before the request went out",
                before_reply=True,
                reused=self.reused,
            )
        self._parser = httptools.HttpResponseParser(self)
        self._status, self._reason, self._headers, self._head_size = 0, b"", [], 0
        self._got_reply = self._headers_done = self.complete = self._until_eof = False
        self._interim = False
        self._stopped = False
        self._error = None
        self._buf, self._buffered = [], 0
        self._sink = None
        self._sink_done = None
        self.reads = self.unstamped = 0
        waiter: asyncio.Future[Head] = self.loop.create_future()
        self._head_waiter = waiter
        self._last_ns = _perf()
        self._arm_timer()
        try:
            await self.write(data, write_timeout_s)
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                waiter.exception()  # the same error is raised here: retrieved, not logged
            else:
                waiter.cancel()
            self.close()
            raise
        return await waiter

    def pump(self, sink: Sink) -> asyncio.Future[None]:
        """Hand every piece of body to ``sink`` as it arrives; done when the reply ended or the
        sink returned True; failed with the sink's exception or the transport's error."""
        done: asyncio.Future[None] = self.loop.create_future()
        buffered, self._buf, self._buffered = self._buf, [], 0
        try:
            for data, t in buffered:
                if sink(data, t):
                    self._stopped = True
                    break
        except Exception as exc:
            self._stopped = True
            done.set_exception(exc)
            return done
        if self._stopped or self.complete:
            done.set_result(None)
        elif self._error is not None:
            done.set_exception(self._error)
        else:
            self._sink = sink
            self._sink_done = done
            if self._paused:
                self._paused = False
                self._resume()
        return done

    async def read(self) -> bytes | None:
        """The next piece of body (``async for`` readers), None at its end."""
        while not self._buf:
            if self._error is not None:
                raise self._error
            if self.complete:
                return None
            if self._paused:
                self._paused = False
                self._resume()
            waiter = self._waiter = self.loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        data, _t = self._buf.pop(0)
        self._buffered -= len(data)
        return data

    def finished(self) -> None:
        """The reply's reader let go: the connection is kept only if the reply ended cleanly."""
        self._sink = None
        self._cancel_timer()
        if not (self.complete and self.keep_alive and self._error is None):
            self.close()
        else:
            self.reused = True

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._cancel_timer()
        self._close_socket()

    # ---- data in -------------------------------------------------------------------------------

    def feed(self, data: bytes, t: int) -> None:
        """Parse one read that arrived at ``t`` (perf_counter_ns)."""
        if self._head_waiter is None and self._sink is None and not self._buf_open():
            # bytes on an idle connection: nothing was asked, so the connection is unusable
            self.close()
            return
        self._t = self._last_ns = t
        self.reads += 1
        self._got_reply = True
        if not self._headers_done:
            self._head_size += len(data)
        try:
            self._parser.feed_data(data)
        except (httptools.HttpParserError, httptools.HttpParserUpgrade) as exc:
            self._parse_failed(exc)
            return
        if not self._headers_done and self._head_size > MAX_HEAD_BYTES:
            self._fail(
                HeadTooLarge(
                    f"the reply's status line and headers are larger than "
                    f"{MAX_HEAD_BYTES // 1024} KiB"
                )
            )
            return
        if self._stopped:
            self._stop()

    def _stop(self) -> None:
        """The sink asked to stop reading: the pump is done."""
        done = self._sink_done
        self._sink = None
        if done is not None and not done.done():
            done.set_result(None)

    def _parse_failed(self, exc: Exception) -> None:
        if isinstance(exc, httptools.HttpParserCallbackError):
            # only a sink raises in a callback (the others do not): its own error, unwrapped
            self._fail(exc.__context__ or exc)
        elif isinstance(exc, httptools.HttpParserUpgrade):
            self._fail(BadFraming("the server switched protocols on a plain request"))
        else:
            self._fail(BadFraming(f"{exc} (in the reply's HTTP framing)"))

    def _buf_open(self) -> bool:
        return self._headers_done and not self.complete and self._error is None

    def eof(self) -> None:
        """The server closed its side."""
        if self._until_eof and self._headers_done and not self.complete:
            self.on_message_complete()
            self.keep_alive = False
        elif self._head_waiter is not None or self._buf_open():
            if self._headers_done:
                message = "the server disconnected before the reply ended"
            else:
                message = "the server disconnected before a complete reply"
                if not self._got_reply:
                    message = "the server disconnected without a reply"
            self._fail(
                ConnectionLost(message, before_reply=not self._got_reply, reused=self.reused)
            )
        self.close()

    def lost(self, exc: BaseException | None) -> None:
        """The connection broke (reset, read error) or closed."""
        if exc is None:
            self.eof()
            return
        if self._head_waiter is not None or self._buf_open():
            error = ConnectionLost(
                f"the connection broke: {exc}", before_reply=not self._got_reply, reused=self.reused
            )
            error.__cause__ = exc
            self._fail(error)
        self.close()

    def _fail(self, exc: BaseException) -> None:
        self._error = exc
        self.keep_alive = False
        head = self._head_waiter
        if head is not None:
            self._head_waiter = None
            if not head.done():
                head.set_exception(exc)
        done = self._sink_done
        if done is not None and not done.done():
            done.set_exception(exc)
        self._sink = None
        self._wake()
        self.close()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # ---- httptools' callbacks ------------------------------------------------------------------

    def on_status(self, status: bytes) -> None:
        self._reason += status

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name, value))

    def on_headers_complete(self) -> None:
        parser = self._parser
        # a head that came whole in one read: the raw count in feed() has not seen it grow
        size = len(self._reason) + sum(len(n) + len(v) + 4 for n, v in self._headers)
        if size > MAX_HEAD_BYTES:
            self._head_size = size  # feed() fails the request once this read is parsed
            return
        status = parser.get_status_code()
        if 100 <= status < 200 and status != 101:
            # an interim reply (100 Continue, 103 Early Hints): no body, the final reply
            # follows on the same connection; its head is forgotten, its bytes stay counted
            self._interim = True
            self._reason, self._headers = b"", []
            return
        self._headers_done = True
        self._status = status
        self.keep_alive = bool(parser.should_keep_alive())
        framed = any(
            name.lower() in (b"content-length", b"transfer-encoding") for name, _ in self._headers
        )
        self._until_eof = not framed and status >= 200 and status not in (204, 304)
        head = self._head_waiter
        self._head_waiter = None
        if head is not None and not head.done():
            head.set_result((status, self._reason, self._headers))

    def on_body(self, body: bytes) -> None:
        if self._stopped:
            return
        sink = self._sink
        if sink is not None:
            if sink(body, self._t):  # an exception here ends the feed (HttpParserCallbackError)
                self._stopped = True
            return
        self._buf.append((body, self._t))
        self._buffered += len(body)
        if self._buffered > _PAUSE_BYTES and not self._paused:
            self._paused = True
            self._pause()
        self._wake()

    def on_message_complete(self) -> None:
        if self._interim:
            self._interim = False  # the end of an interim reply: the parser reads on
            return
        self.complete = True
        self._cancel_timer()
        done = self._sink_done
        if done is not None and not done.done():
            done.set_result(None)
        self._wake()

    # ---- the silence timeout: one timer, re-armed only when it fires -----------------------

    def _arm_timer(self) -> None:
        if self.read_timeout_ns is None or self._timer is not None:
            return
        self._timer = self.loop.call_later(self.read_timeout_ns / 1e9, self._check_silence)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check_silence(self) -> None:
        self._timer = None
        limit = self.read_timeout_ns
        if limit is None or self.closed or self.complete:
            return
        quiet = _perf() - self._last_ns
        if quiet >= limit and not self._paused:
            self._fail(
                ReadTimedOut(f"no byte of the reply for {limit / 1e9:g} s (the read timeout)")
            )
            return
        self._timer = self.loop.call_later(max(limit - quiet, 1_000_000) / 1e9, self._check_silence)


class SocketConnection(Connection):
    """A plain-TCP connection read with ``recvmsg`` from a ``loop.add_reader`` callback, so the
    kernel's receive stamp of each read comes with it (see stamps.py)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        sock: socket.socket,
        read_timeout_s: float | None,
        buffer: bytearray,
    ) -> None:
        super().__init__(loop, read_timeout_s)
        self.sock = sock
        self._fd = sock.fileno()
        # Read into a buffer the transport's connections share (one loop, and every read is
        # copied out before the next): recvmsg(256 KiB) allocates, and for a buffer that
        # large the allocator maps and unmaps pages, ~20 us a read against ~1 us for the
        # copy of a 200-byte token chunk (measured on a loopback socket).
        self._buffer = buffer
        self._view = memoryview(buffer)
        kernel = stamps.enable(sock)
        self.stamping = stamps.KERNEL if kernel else stamps.LOOP
        self._cmsg = stamps.CMSG_SPACE if kernel else 0
        loop.add_reader(self._fd, self._readable)

    def _readable(self) -> None:
        try:
            size, ancdata, _flags, _addr = self.sock.recvmsg_into([self._buffer], self._cmsg)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self.lost(exc)
            return
        if not size:
            self.eof()
            return
        data = bytes(self._view[:size])
        t = _arrival(ancdata) if ancdata else None
        if t is None:
            t = _perf()
            self.unstamped += 1
        if self._sink is None:
            self.feed(data, t)
            return
        # a body being pumped (the measured path, once per token): feed()'s work for it
        self._t = self._last_ns = t
        self.reads += 1
        try:
            self._parser.feed_data(data)
        except (httptools.HttpParserError, httptools.HttpParserUpgrade) as exc:
            self._parse_failed(exc)
            return
        if self._stopped:
            self._stop()

    async def write(self, data: bytes, timeout_s: float | None) -> None:
        sock = self.sock
        try:
            sent = sock.send(data)  # a request fits the socket's buffer: no wait, no task
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError as exc:
            raise self._write_error(exc) from exc
        if sent == len(data):
            return
        try:
            async with asyncio.timeout(timeout_s):
                await self.loop.sock_sendall(sock, memoryview(data)[sent:])
        except TimeoutError:
            error = WriteTimedOut(f"the request could not be written within {timeout_s:g} s")
            self._fail(error)
            raise error from None
        except OSError as exc:
            raise self._write_error(exc) from exc

    def _write_error(self, exc: OSError) -> ConnectionLost:
        error = ConnectionLost(
            f"the connection broke while the request went out: {exc}",
            before_reply=not self._got_reply,
            reused=self.reused,
        )
        self._fail(error)
        return error

    def _pause(self) -> None:
        self.loop.remove_reader(self._fd)

    def _resume(self) -> None:
        if not self.closed:
            self.loop.add_reader(self._fd, self._readable)

    def _close_socket(self) -> None:
        self.loop.remove_reader(self._fd)
        self.sock.close()


class ProtocolConnection(Connection, asyncio.Protocol):
    """A connection on an asyncio transport (TLS, or a loop without add_reader), stamped as
    the transport hands each read over."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, read_timeout_s: float | None, tls: bool
    ) -> None:
        super().__init__(loop, read_timeout_s)
        self.stamping = stamps.TLS_RECORD if tls else stamps.LOOP
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses; they have its methods
        self.transport = cast("asyncio.Transport", transport)

    def data_received(self, data: bytes) -> None:
        self.feed(data, _perf())

    def eof_received(self) -> bool | None:
        self.eof()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed:
            self.lost(exc)

    async def write(self, data: bytes, timeout_s: float | None) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            error = ConnectionLost(
                "the connection closed before the request went out",
                before_reply=True,
                reused=self.reused,
            )
            self._fail(error)
            raise error
        transport.write(data)

    def _pause(self) -> None:
        if self.transport is not None:
            self.transport.pause_reading()

    def _resume(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.resume_reading()

    def _close_socket(self) -> None:
        # abort, not close: a TLS close waits for the server's close_notify, and a loop that
        # ends first (the end of a run) would leave the socket open until garbage collection
        if self.transport is not None:
            self.transport.abort()
