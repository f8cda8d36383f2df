"""The transport's exceptions: one hierarchy, each class naming the failure kind users read.

Every class is also the httpx exception a caller of httpx's API expects (a timeout is an
``httpx.TimeoutException``, a refused connect an ``httpx.ConnectError``), so code that only
knows httpx keeps working; ``failures.classify_exception`` maps them by class, once.
"""

from __future__ import annotations

import httpx


class WireError(httpx.TransportError):
    """Base of every error the transport raises. ``kind`` is the failure kind id
    (app/bench/http/failures.py) when the error happens before the reply's headers;
    ``kind_streaming`` the one after them."""

    kind = "connect"
    kind_streaming = "stream_cut"


class NameNotFound(WireError, httpx.ConnectError):
    """The host name did not resolve."""

    kind = kind_streaming = "dns"


class ConnectFailed(WireError, httpx.ConnectError):
    """The TCP connect was refused, reset or unreachable."""

    kind = kind_streaming = "connect"


class TlsFailed(WireError, httpx.ConnectError):
    """The TLS handshake or the certificate check failed."""

    kind = kind_streaming = "tls"


class ConnectTimedOut(WireError, httpx.ConnectTimeout):
    kind = kind_streaming = "timeout"


class WriteTimedOut(WireError, httpx.WriteTimeout):
    kind = kind_streaming = "timeout"


class ReadTimedOut(WireError, httpx.ReadTimeout):
    """No byte for longer than the read (silence) timeout."""

    kind = kind_streaming = "timeout"


class ConnectionLost(WireError, httpx.ReadError):
    """The server closed or reset the connection before the reply ended.

    ``before_reply``: not one byte of a reply had arrived; ``reused``: the request went out on
    a kept-alive connection. Both together are the race with the server's own keep-alive
    close, and the request is safe to send once more on a new connection (``retryable``).
    """

    kind = "connect"
    kind_streaming = "stream_cut"

    def __init__(self, message: str, *, before_reply: bool, reused: bool) -> None:
        super().__init__(message)
        self.before_reply = before_reply
        self.reused = reused

    @property
    def retryable(self) -> bool:
        return self.before_reply and self.reused


class BadFraming(WireError, httpx.RemoteProtocolError):
    """The reply is not valid HTTP/1.1: status line, headers or chunked framing."""

    kind = kind_streaming = "malformed_stream"


class HeadTooLarge(WireError, httpx.RemoteProtocolError):
    """The status line and headers grew past the transport's cap."""

    kind = kind_streaming = "oversized"


class BadUrl(WireError, httpx.UnsupportedProtocol):
    """A URL this transport cannot send to (a scheme other than http and https)."""

    kind = kind_streaming = "connect"
