"""The proxy environment variables, and the CONNECT tunnel through an http:// proxy.

Which variable covers a URL is read as httpx reads it (``HTTP_PROXY`` / ``HTTPS_PROXY`` /
``ALL_PROXY``, lower case too, ``NO_PROXY`` for the hosts that bypass them). Through an
http:// proxy the transport asks for a tunnel (``CONNECT host:port``) for http:// and https://
targets alike and then speaks to the server through it as on a direct connection: the reads,
and so the stamps, are its own reads of the tunnel's socket (for https, of the TLS records in
it). A proxy of another kind (https://, socks) is left to httpx's own transport.
"""

from __future__ import annotations

import asyncio
import base64
import socket
import urllib.parse
import urllib.request
from dataclasses import dataclass

import httpx

from app.bench.http.wire.errors import ConnectFailed

# A proxy's reply to CONNECT is a status line and a few headers.
_MAX_REPLY_BYTES = 16 * 1024


@dataclass(frozen=True, slots=True)
class Proxy:
    variable: str  # "HTTP_PROXY", "HTTPS_PROXY" or "ALL_PROXY"
    url: httpx.URL

    @property
    def shown(self) -> str:
        """The proxy as a message may show it: no user name or password."""
        return f"{self.url.scheme}://{self.url.netloc.decode('ascii').rpartition('@')[2]}"

    @property
    def tunnels(self) -> bool:
        """Whether the transport's own CONNECT tunnel can go through it."""
        return self.url.scheme == "http"

    @property
    def route(self) -> str:
        return f"through the proxy's CONNECT tunnel ({self.variable}={self.shown})"


def env_proxy(scheme: str, host: str) -> Proxy | None:
    """The proxy the environment names for ``scheme://host``, or None (none set, or NO_PROXY
    covers the host)."""
    proxies = urllib.request.getproxies()
    name = scheme if scheme in proxies else "all" if "all" in proxies else None
    if name is None or not proxies[name]:
        return None
    if urllib.request.proxy_bypass(host):
        return None
    value = proxies[name]
    if "://" not in value:
        value = "http://" + value  # as httpx reads a bare host:port
    try:
        url = httpx.URL(value)
    except httpx.InvalidURL:
        return None
    return Proxy(f"{name.upper()}_PROXY", url)


async def open_tunnel(
    loop: asyncio.AbstractEventLoop, sock: socket.socket, proxy: Proxy, host: str, port: int
) -> None:
    """Ask the proxy on the connected ``sock`` for a tunnel to ``host:port``; raises
    ConnectFailed (never with the proxy's password) if it does not give one."""
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    head = [f"CONNECT {target} HTTP/1.1", f"Host: {target}"]
    user, password = proxy.url.username, proxy.url.password
    if user or password:
        raw = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password or '')}"
        head.append("Proxy-Authorization: Basic " + base64.b64encode(raw.encode()).decode())
    await loop.sock_sendall(sock, ("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
    reply = b""
    while b"\r\n\r\n" not in reply:
        data = await loop.sock_recv(sock, 4096)
        if not data:
            raise ConnectFailed(f"the proxy {proxy.shown} closed the connection asked for a tunnel")
        reply += data
        if len(reply) > _MAX_REPLY_BYTES:
            raise ConnectFailed(f"the proxy {proxy.shown} answered CONNECT with an endless head")
    head_bytes, _, rest = reply.partition(b"\r\n\r\n")
    status_line = head_bytes.split(b"\r\n", 1)[0].decode("latin-1")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ConnectFailed(
            f"the proxy {proxy.shown} answered CONNECT with '{status_line[:80]}', not HTTP"
        )
    if not 200 <= int(parts[1]) < 300:
        raise ConnectFailed(
            f"the proxy {proxy.shown} refused a tunnel to {target}: {status_line[:120]}"
        )
    if rest:
        # the server speaks only after the request: bytes here are the proxy's own
        raise ConnectFailed(f"the proxy {proxy.shown} sent bytes after its CONNECT reply")
