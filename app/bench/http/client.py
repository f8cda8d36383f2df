"""The shared HTTP client: transport choice, a pool sized to the concurrency, pool warm-up."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Literal, TypeVar

import httpx

from app.bench.http.wire.transport import WireTransport

Transport = Literal["native", "httpx"]
T = TypeVar("T")

# Below uvicorn's (and so vLLM's) 5 s keep-alive timeout, so the client drops an idle
# connection before the server does and never POSTs into a socket the server just closed.
KEEPALIVE_EXPIRY_S = 4.0
DEFAULT_CONNECT_TIMEOUT_S = 10.0
# A stalled stream is reported as a timeout after this long without a byte; long enough for
# a deep queue (TTFT of minutes) at high concurrency.
DEFAULT_READ_TIMEOUT_S = 600.0
# The whole of one request, first byte sent to last byte read (--request-timeout): beside the
# silence timeout it ends a server that drips a byte now and then. Half an hour is far beyond
# any reply a benchmark asks for (vLLM's own client allows 6 hours).
DEFAULT_REQUEST_TIMEOUT_S = 1800.0


class BenchClient(httpx.AsyncClient):
    """An httpx.AsyncClient with a lean path for the benchmark's own streaming requests.

    ``request_timeout_s`` is the total deadline of one request (None: none), read by
    send_request; the client's own timeouts are per network operation.
    """

    request_timeout_s: float | None = DEFAULT_REQUEST_TIMEOUT_S
    # "native": the transport's errors say whether a lost connection was a reused one;
    # "httpx": httpcore's trace tells, and a retry goes through a pool that keeps nothing.
    transport_kind: Transport | None = None
    # "native": TPOT Bench's own transport (wire/), reached directly; None: through httpx
    wire: WireTransport | None = None
    _fresh: httpx.AsyncClient | None = None
    _fresh_kwargs: dict[str, Any] | None = None

    def fresh_client(self) -> httpx.AsyncClient:
        """A client whose every request opens a new connection (httpx transport retries)."""
        if self._fresh is None:
            kwargs = dict(self._fresh_kwargs or {})
            self._fresh = httpx.AsyncClient(
                limits=httpx.Limits(max_keepalive_connections=0), **kwargs
            )
        return self._fresh

    async def _close_others(self) -> None:
        fresh, self._fresh = self._fresh, None
        if fresh is not None:
            await fresh.aclose()

    async def aclose(self) -> None:
        try:
            await self._close_others()
        finally:
            await super().aclose()

    async def __aexit__(self, *exc: Any) -> None:
        # httpx's own __aexit__ closes the transports without calling aclose()
        try:
            await self._close_others()
        finally:
            await super().__aexit__(*exc)

    async def send_stream(self, request: httpx.Request) -> httpx.Response:
        """Send and return the response with its body unread, like ``send(stream=True)``.

        Skips what the measured requests never use (auth flows, redirects, cookie jar,
        event hooks, per-request logging): about 40 us per request, paid by every request
        of a burst before the last one goes out. The proxy variables are the transport's
        (wire/proxy.py): a tunnel through an http:// proxy, httpx's transport for another.
        """
        wire = self.wire
        if wire is None:
            return await self.send(request, stream=True)
        return await wire.handle_async_request(request)


def make_client(
    max_concurrency: int,
    verify_tls: bool = True,
    timeout_s: float | None = DEFAULT_READ_TIMEOUT_S,
    *,
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
    transport: Transport = "native",
    request_timeout_s: float | None = DEFAULT_REQUEST_TIMEOUT_S,
) -> BenchClient:
    """An httpx.AsyncClient for streaming benchmarks.

    ``transport='native'`` (the default, see benchmarks/fidelity_stream.py for the numbers)
    is TPOT Bench's own (app/bench/http/wire): kernel receive stamps, httptools' parser, no
    task switch per token. ``'httpx'`` is httpx's own transport. ``timeout_s`` is the longest
    silence tolerated while reading (None: wait forever); ``request_timeout_s`` the longest a
    whole request may take.
    """
    size = max(1, int(max_concurrency))
    limits = httpx.Limits(
        max_connections=size,
        max_keepalive_connections=size,
        keepalive_expiry=KEEPALIVE_EXPIRY_S,
    )
    # pool=None: a request waiting for a free connection is the load generator's business
    # (its slot wait is measured separately), never a failure.
    timeout = httpx.Timeout(connect=connect_timeout_s, read=timeout_s, write=timeout_s, pool=None)
    if transport == "native":
        wire = WireTransport(verify=verify_tls, limits=limits, trust_env=True)
        client = BenchClient(transport=wire, timeout=timeout, limits=limits, trust_env=True)
        client.wire = wire
    elif transport == "httpx":
        client = BenchClient(
            verify=verify_tls, timeout=timeout, limits=limits, http2=False, trust_env=True
        )
    else:
        raise ValueError(f"unknown transport '{transport}'; use 'native' or 'httpx'")
    client._fresh_kwargs = {"verify": verify_tls, "timeout": timeout, "trust_env": True}
    client.request_timeout_s = request_timeout_s
    client.transport_kind = transport
    return client


async def warm_pool(
    client: httpx.AsyncClient,
    url: str,
    connections: int,
    headers: dict[str, str] | None = None,
) -> int:
    """Open up to ``connections`` keep-alive connections before the clock starts.

    Sends that many concurrent GETs (e.g. to the models URL, with the auth headers so a
    gateway does not count them as failed logins) and reads them fully so each connection
    goes back to the pool; returns how many answered below 500. Errors are ignored: a
    failing endpoint shows up in the measured requests with its real error.
    """

    from app.bench.http.body import MAX_MODELS_BODY_BYTES, BodyError, get_small

    # Warming is a courtesy: a models list that takes longer than this is not waited for.
    limits = (getattr(client, "request_timeout_s", None), 30.0)
    deadline = min(x for x in limits if x is not None)

    async def one() -> bool:
        try:
            reply = await get_small(
                client, url, headers=headers, max_bytes=MAX_MODELS_BODY_BYTES, deadline_s=deadline
            )
        except (httpx.HTTPError, BodyError, TimeoutError):
            return False
        return reply.status < 500

    results = await asyncio.gather(*(one() for _ in range(max(0, connections))))
    return sum(results)


def run(main: Coroutine[Any, Any, T], *, use_uvloop: bool | None = None) -> T:
    """asyncio.run on the loop that measures best here (``use_uvloop`` None), or as told.

    On Linux the default asyncio loop. TPOT Bench's transport reads plain-HTTP streams with
    recvmsg and the kernel's receive stamp on either loop; measured with
    benchmarks/fidelity_stream.py on a loaded 2-core machine (load 7-8), uvloop saved
    4-5 ms of CPU per 1k tokens at 32 and 256 streams (33.6 -> 29.4, 20.3 -> 18.2) in one
    run, within the noise of that machine, so the loop the stamps were first validated on
    stays. Elsewhere uvloop when installed (less loop overhead per streamed chunk).
    """
    if use_uvloop is None:
        from app.bench.http.wire.stamps import AVAILABLE

        use_uvloop = not AVAILABLE
    if use_uvloop:
        try:
            import uvloop
        except ImportError:
            pass
        else:
            with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                return runner.run(main)
    return asyncio.run(main)
