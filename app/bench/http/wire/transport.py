"""TPOT Bench's own HTTP/1.1 transport behind httpx's API: a pool of ``connection``s.

Pool rules real servers need: keep-alive (a reply that ended cleanly leaves its connection in
the pool for ``keepalive_expiry`` seconds, below uvicorn's 5 s), ``Connection: close`` and
HTTP/1.0 replies end theirs, a connection the server closed while idle is noticed (its reader
stays registered) and never reused, at most ``max_connections`` requests at once (a request
beyond waits: the load generator measures that wait itself). A request that finds its
kept-alive connection closed before any byte of a reply raises ``ConnectionLost`` with
``retryable`` set; the caller sends it again with ``FRESH`` in its extensions (exchange.py).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from collections.abc import AsyncIterator

import httpx

from app.bench.http.wire import stamps
from app.bench.http.wire.connection import (
    READ_BYTES,
    Connection,
    ProtocolConnection,
    Sink,
    SocketConnection,
)
from app.bench.http.wire.errors import (
    BadUrl,
    ConnectFailed,
    ConnectTimedOut,
    NameNotFound,
    TlsFailed,
)
from app.bench.http.wire.proxy import Proxy, env_proxy, open_tunnel

# request.extensions key: send on a new connection (the retry after a lost kept-alive one)
FRESH = "tpotbench.fresh_connection"
# response.extensions key: why the reads were stamped as they were, on a reply that did not
# come through this transport's own connections (a proxy left to httpx's transport)
STAMPING_WHY = "tpotbench.stamping_why"
Origin = tuple[str, str, int]


class WireStream(httpx.AsyncByteStream):
    """A reply's body. ``async for`` gives its pieces; ``pump(sink)`` hands them to ``sink``
    with their receive stamps as they arrive (see connection.Connection)."""

    def __init__(self, conn: Connection, pool: WireTransport, origin: Origin) -> None:
        self._conn = conn
        self._pool = pool
        self._origin = origin
        self._released = False

    @property
    def stamping(self) -> str:
        """How this reply's reads are stamped: a kind of stamps.py."""
        return self._conn.stamping

    @property
    def stamping_why(self) -> str:
        """Why: the kind's reason, and the proxy's tunnel the connection goes through."""
        why = stamps.WHY[self._conn.stamping]
        route = self._conn.route
        return f"{why}; {route}" if route else why

    @property
    def reads(self) -> int:
        return self._conn.reads

    @property
    def unstamped(self) -> int:
        """Reads the kernel gave no stamp for (stamped on the loop's clock instead)."""
        return self._conn.unstamped

    def pump(self, sink: Sink) -> asyncio.Future[None]:
        return self._conn.pump(sink)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = self._conn.read
        while (data := await read()) is not None:
            yield data

    async def aclose(self) -> None:
        if not self._released:
            self._released = True
            self._pool.release(self._origin, self._conn)


class WireTransport(httpx.AsyncBaseTransport):
    """The pool and the request path; ``httpx.AsyncClient(transport=WireTransport(...))``."""

    def __init__(
        self,
        *,
        verify: bool = True,
        limits: httpx.Limits | None = None,
        use_add_reader: bool = True,
        trust_env: bool = True,
    ) -> None:
        self._verify = verify
        self._limits = limits
        # the proxy variables, read once per (scheme, host) as httpx reads them (proxy.py)
        self._trust_env = trust_env
        self._proxies: dict[tuple[str, str], Proxy | None] = {}
        self._delegates: dict[str, httpx.AsyncHTTPTransport] = {}
        limits = limits or httpx.Limits()
        self._ssl: ssl.SSLContext | None = None
        self._max_idle = limits.max_keepalive_connections
        self._expiry = limits.keepalive_expiry
        self._max = limits.max_connections
        self._slots: asyncio.Semaphore | None = None
        self._idle: dict[Origin, list[Connection]] = {}
        self._use_add_reader = use_add_reader and stamps.AVAILABLE
        self._buffer: bytearray | None = None  # the read buffer of its socket connections

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        scheme = url.scheme
        if scheme not in ("http", "https"):
            raise BadUrl(f"'{scheme}://' is not a URL this benchmark can send to (http or https)")
        origin = (scheme, url.host, url.port or (443 if scheme == "https" else 80))
        proxy = self.proxy_for(scheme, url.host)
        if proxy is not None and not proxy.tunnels:
            return await self._delegate(proxy, request)
        timeouts = request.extensions.get("timeout") or {}
        slots = self._slots
        if slots is None and self._max is not None:
            slots = self._slots = asyncio.Semaphore(self._max)
        if slots is not None:
            await slots.acquire()
        conn: Connection | None = None
        try:
            if not request.extensions.get(FRESH):
                conn = self._take_idle(origin)
            if conn is None:
                conn = await self._connect(origin, timeouts.get("connect"), proxy)
            read = timeouts.get("read")
            conn.read_timeout_ns = None if read is None else int(read * 1e9)
            data = await _serialise(request)
            status, reason, headers = await conn.request(data, timeouts.get("write"))
        except BaseException:
            if conn is not None:
                conn.close()
            if slots is not None:
                slots.release()
            raise
        return httpx.Response(
            status,
            headers=headers,
            stream=WireStream(conn, self, origin),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason},
            request=request,
        )

    def proxy_for(self, scheme: str, host: str) -> Proxy | None:
        """The proxy the environment names for requests to ``scheme://host``, or None."""
        if not self._trust_env:
            return None
        key = (scheme, host)
        if key not in self._proxies:
            self._proxies[key] = env_proxy(scheme, host)
        return self._proxies[key]

    async def _delegate(self, proxy: Proxy, request: httpx.Request) -> httpx.Response:
        """A proxy the tunnel cannot use (https://, socks): httpx's own transport carries the
        request, and the reply says so."""
        key = str(proxy.url)
        transport = self._delegates.get(key)
        if transport is None:
            transport = httpx.AsyncHTTPTransport(
                verify=self._ssl_context(), limits=self._limits or httpx.Limits(), proxy=proxy.url
            )
            self._delegates[key] = transport
        response = await transport.handle_async_request(request)
        response.extensions[STAMPING_WHY] = (
            f"a proxy is configured ({proxy.variable}={proxy.shown}) that the transport's own "
            f"CONNECT tunnel cannot use: httpx's own transport carries the requests; "
            + stamps.WHY[stamps.LOOP]
        )
        return response

    def release(self, origin: Origin, conn: Connection) -> None:
        """A reply's reader let go of its connection: back to the pool if it can carry more."""
        conn.finished()
        if not conn.closed:
            idle = self._idle.setdefault(origin, [])
            if self._max_idle is None or len(idle) < self._max_idle:
                conn.idle_since = time.monotonic()
                idle.append(conn)
            else:
                conn.close()
        if self._slots is not None:
            self._slots.release()

    def _take_idle(self, origin: Origin) -> Connection | None:
        idle = self._idle.get(origin)
        now = time.monotonic()
        while idle:
            conn = idle.pop()  # the most recently used: the furthest from its expiry
            if conn.closed:
                continue
            if self._expiry is not None and now - conn.idle_since > self._expiry:
                conn.close()
                continue
            return conn
        return None

    async def _connect(
        self, origin: Origin, timeout_s: float | None, proxy: Proxy | None = None
    ) -> Connection:
        scheme, host, port = origin
        loop = asyncio.get_running_loop()
        what = f"{host}:{port}" if proxy is None else f"{host}:{port} ({proxy.route})"
        try:
            async with asyncio.timeout(timeout_s):
                sock: socket.socket | None = None
                if proxy is not None:
                    sock = await _open_socket(loop, proxy.url.host, proxy.url.port or 80)
                    try:
                        await open_tunnel(loop, sock, proxy, host, port)
                    except BaseException:
                        sock.close()
                        raise
                conn = await self._connection(loop, scheme, host, port, sock)
                if proxy is not None:
                    conn.route = proxy.route
                return conn
        except TimeoutError:
            raise ConnectTimedOut(f"no connection to {what} within {timeout_s:g} s") from None
        except socket.gaierror as exc:
            raise NameNotFound(f"{host}: {exc}") from exc
        except (ssl.SSLError, ssl.CertificateError) as exc:
            raise TlsFailed(f"{what}: {exc}") from exc
        except OSError as exc:
            raise ConnectFailed(f"{what}: {exc}") from exc

    async def _connection(
        self,
        loop: asyncio.AbstractEventLoop,
        scheme: str,
        host: str,
        port: int,
        sock: socket.socket | None,
    ) -> Connection:
        """A connection to ``host:port``, on ``sock`` when it is already open (a tunnel)."""
        if scheme == "https" or not self._use_add_reader:
            tls = scheme == "https"
            context = self._ssl_context() if tls else None
            name = host if tls else None

            def made() -> ProtocolConnection:
                return ProtocolConnection(loop, None, tls=tls)

            if sock is None:
                _, conn = await loop.create_connection(
                    made, host, port, ssl=context, server_hostname=name
                )
            else:
                _, conn = await loop.create_connection(
                    made, sock=sock, ssl=context, server_hostname=name
                )
            if not tls:
                _nodelay(conn.transport)
            return conn
        if sock is None:
            sock = await _open_socket(loop, host, port)
        if self._buffer is None:
            await stamps.ready()  # once: the kernel's stamping switched on before any reply
            self._buffer = bytearray(READ_BYTES)
        return SocketConnection(loop, sock, None, self._buffer)

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context(verify=self._verify, trust_env=True)
        return self._ssl

    async def aclose(self) -> None:
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.close()
        delegates, self._delegates = self._delegates, {}
        for transport in delegates.values():
            await transport.aclose()


async def _open_socket(loop: asyncio.AbstractEventLoop, host: str, port: int) -> socket.socket:
    """A connected non-blocking TCP socket, trying each address of ``host`` in turn."""
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    error: OSError | None = None
    for family, kind, proto, _name, addr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, addr)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        except BaseException:
            sock.close()
            raise
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
    raise error or OSError(f"no address for {host}")


def _nodelay(transport: asyncio.Transport | None) -> None:
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


async def _serialise(request: httpx.Request) -> bytes:
    """The request's head and body as bytes. Reading the body is what stamps a measured
    request's send time (exchange.StampedBody): it happens here, right before the write."""
    stream = request.stream
    if not isinstance(stream, httpx.AsyncByteStream):
        raise TypeError("an async client's request needs an async body stream")
    body = b"".join([part async for part in stream])
    lines = [b"%s %s HTTP/1.1\r\n" % (request.method.encode("ascii"), request.url.raw_path)]
    names = set()
    for name, value in request.headers.raw:
        names.add(name.lower())
        lines.append(b"%s: %s\r\n" % (name, value))
    if b"host" not in names:
        lines.insert(1, b"Host: %s\r\n" % request.url.netloc)
    if body and b"content-length" not in names and b"transfer-encoding" not in names:
        lines.append(b"Content-Length: %d\r\n" % len(body))
    lines.append(b"\r\n")
    lines.append(body)
    return b"".join(lines)
