"""The one failure taxonomy: every way a request can fail, as a kind id with a fix sentence."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FailureKind:
    id: str
    title: str
    fix: str


_KINDS = (
    FailureKind(
        "dns",
        "host name not found",
        "Check the host name in the base URL (typo? VPN or proxy needed?).",
    ),
    FailureKind(
        "connect",
        "connection refused or reset",
        "Check that the server is running and listening on this host and port "
        "(try GET /v1/models), and that the base URL uses the right port.",
    ),
    FailureKind(
        "tls",
        "TLS handshake or certificate failed",
        "Use https:// only if the server speaks TLS; for a self-signed certificate turn off "
        "certificate verification for this endpoint.",
    ),
    FailureKind(
        "timeout",
        "no answer within the time limit",
        "The server or network is too slow or stalled; check that it is not overloaded, or "
        "raise --timeout (longest silence) or --request-timeout (whole request).",
    ),
    FailureKind(
        "redirect",
        "HTTP redirect (not followed)",
        "Use the URL it redirects to as the base URL (often https:// instead of http://): a "
        "benchmark does not follow redirects, and clients drop a POST body through them.",
    ),
    FailureKind(
        "http_400",
        "HTTP 400 bad request",
        "The server rejected the request body; read the message (max_tokens too large for "
        "the context, unsupported parameter, wrong model id).",
    ),
    FailureKind(
        "http_401",
        "HTTP 401 unauthorized",
        "Send a valid key: set it in the environment variable named by --api-key-env "
        "(or OPENAI_API_KEY / API_KEY) without stray spaces; local vLLM needs none.",
    ),
    FailureKind(
        "http_403",
        "HTTP 403 forbidden",
        "The key is valid but not allowed here: check its permissions, quota or expiry, "
        "and that it belongs to this endpoint.",
    ),
    FailureKind(
        "http_404",
        "HTTP 404 not found",
        "The path or model is wrong: check /v1 is neither missing nor doubled, that the "
        "endpoint matches the API (chat vs completions), and that the model id is served.",
    ),
    FailureKind(
        "http_405",
        "HTTP 405 method not allowed",
        "The URL points at something that is not a completions endpoint; check the "
        "base URL and endpoint path.",
    ),
    FailureKind(
        "http_413",
        "HTTP 413 request too large",
        "The prompt is larger than the server or gateway accepts; use shorter prompts.",
    ),
    FailureKind(
        "http_422",
        "HTTP 422 unprocessable request",
        "The server did not accept a field of the request; read the message for the field.",
    ),
    FailureKind(
        "http_429",
        "HTTP 429 rate limited",
        "The server or gateway is throttling: lower --request-rate or --max-concurrency, "
        "or raise the key's rate limit.",
    ),
    FailureKind(
        "http_4xx",
        "HTTP client error",
        "The server refused the request; read the message it returned.",
    ),
    FailureKind(
        "http_5xx",
        "HTTP server error",
        "The server failed internally (overloaded, crashed, out of memory); check its log.",
    ),
    FailureKind(
        "not_sse",
        "response is not an event stream",
        "The server answered without Server-Sent Events; check that it supports "
        '"stream": true on this endpoint and that the URL is the API, not a web page.',
    ),
    FailureKind(
        "stream_cut",
        "stream ended early",
        "The connection closed before the reply finished (no finish_reason, no [DONE]); "
        "check the server log or a proxy's timeout.",
    ),
    FailureKind(
        "malformed_chunk",
        "stream message is not the expected JSON",
        "Something between client and server rewrites the stream, or the server is not "
        "OpenAI-compatible; look at the excerpt.",
    ),
    FailureKind(
        "malformed_stream",
        "broken HTTP framing or encoding",
        "The reply's chunked framing or compression is broken: a proxy or the server mangles "
        "the response; try the server directly and check its log.",
    ),
    FailureKind(
        "malformed_usage",
        "impossible token counts in usage",
        "The server reported negative, fractional or absurd token counts, so no throughput "
        "can be computed from them; check the server or gateway version.",
    ),
    FailureKind(
        "oversized",
        "reply larger than the limit",
        "The server sent far more than any reply needs (an endless line, a huge event, a body "
        "that inflates without end); check the URL points at the API and the server's health.",
    ),
    FailureKind(
        "stream_error",
        "server sent an error inside the stream",
        "Read the error the server sent; it often names the bad parameter or an overload.",
    ),
    FailureKind(
        "no_choices",
        "no message carried choices",
        "The reply had no choices: usually a chat model called on /v1/completions or the "
        "other way round; match --backend (openai-chat / openai) to the endpoint.",
    ),
    FailureKind(
        "cancelled",
        "cancelled by the user",
        "The run was stopped before this request finished; nothing to fix.",
    ),
    FailureKind(
        "client_error",
        "unexpected client-side error",
        "This is a bug in TPOT Bench or an unusual server reply; please report the message.",
    ),
)

KINDS: dict[str, FailureKind] = {kind.id: kind for kind in _KINDS}


def kind_for_status(status: int) -> str:
    """The failure kind id for a non-200 HTTP status."""
    if 300 <= status < 400:
        return "redirect"
    specific = f"http_{status}"
    if specific in KINDS:
        return specific
    return "http_5xx" if status >= 500 else "http_4xx"


def fix_for(kind: str) -> str:
    """The fix sentence for a kind id (kinds from other tools fall back to a generic one)."""
    known = KINDS.get(kind)
    if known is not None:
        return known.fix
    if kind.startswith("http_5"):
        return KINDS["http_5xx"].fix
    if kind.startswith("http_"):
        return KINDS["http_4xx"].fix
    return KINDS["client_error"].fix


def title_for(kind: str) -> str:
    """A short human title for a kind id."""
    known = KINDS.get(kind)
    if known is not None:
        return known.title
    if kind.startswith("http_"):
        return f"HTTP {kind.removeprefix('http_')}"
    return kind


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in seen and len(seen) < 10:
        seen.append(cur)
        cur = cur.__cause__ or cur.__context__
    return seen


def classify_exception(exc: BaseException, *, after_headers: bool) -> tuple[str, str]:
    """(kind, one-line message) for an exception raised while sending or reading a request.

    By class, never by name or message: TPOT Bench's transport (wire/errors.py) names the
    kind itself; httpx's own transport and the standard library's errors are mapped by their
    classes. The whole cause chain is looked through (the first error that names a kind
    decides); only h11's framing errors, which share one class with a dropped connection,
    are told apart by their words (``_h11_framing``).
    """
    import socket
    import ssl

    import httpx

    from app.bench.http.body import BodyError
    from app.bench.http.wire.errors import BadFraming, ReadTimedOut, WireError

    chain = _chain(exc)
    deepest = next((e for e in reversed(chain) if str(e).strip()), exc)
    detail = " ".join(str(deepest).split()) or type(deepest).__name__
    if len(detail) > 200:
        detail = detail[:197] + "..."
    for e in chain:
        if isinstance(e, BodyError):
            return e.kind, str(e)
        if isinstance(e, WireError):
            kind = e.kind_streaming if after_headers else e.kind
            if isinstance(e, BadFraming):
                return kind, f"the reply's HTTP framing is broken: {detail}"
            if isinstance(e, ReadTimedOut) or kind == "timeout":
                return kind, _timed_out(after_headers, detail)
            return kind, _WORDS.get(kind, "{}").format(detail)
    if any(isinstance(e, socket.gaierror) for e in chain):
        return "dns", f"host name not found: {detail}"
    if any(isinstance(e, ssl.SSLError | ssl.CertificateError) for e in chain):
        return "tls", f"TLS failed: {detail}"
    if any(isinstance(e, TimeoutError | httpx.TimeoutException) for e in chain):
        return "timeout", _timed_out(after_headers, detail)
    if any(isinstance(e, httpx.UnsupportedProtocol | httpx.InvalidURL) for e in chain):
        return "connect", f"cannot use this URL: {detail}"
    if _h11_framing(chain):
        return "malformed_stream", f"the reply's HTTP framing is broken: {detail}"
    if any(isinstance(e, OSError | httpx.TransportError) for e in chain):
        if after_headers:
            return "stream_cut", f"connection lost while streaming: {detail}"
        return "connect", f"cannot connect: {detail}"
    return "client_error", f"{type(exc).__name__}: {detail}"


def _timed_out(after_headers: bool, detail: str) -> str:
    what = "reading the reply" if after_headers else "connecting or waiting for the reply"
    return f"timed out {what}: {detail}"


_WORDS = {
    "dns": "host name not found: {}",
    "tls": "TLS failed: {}",
    "connect": "cannot connect: {}",
    "stream_cut": "connection lost while streaming: {}",
    "oversized": "{}",
}


def _h11_framing(chain: list[BaseException]) -> bool:
    """httpx's own transport (h11): a broken chunk size and a dropped connection are both a
    RemoteProtocolError; only its message tells them apart."""
    import httpx

    return any(
        isinstance(e, httpx.RemoteProtocolError | httpx.LocalProtocolError)
        and any(word in str(e) for word in ("chunk", "illegal", "malformed", "Invalid"))
        for e in chain
    )


def lost_before_response(exc: BaseException) -> bool:
    """On httpx's own transport: the request failed because the connection went away before
    a response began (not a refused connect, not a timeout), so a retry on a fresh connection
    is safe to try. (TPOT Bench's transport says so itself: ConnectionLost.retryable.)"""
    import httpx

    chain = _chain(exc)
    if any(
        isinstance(e, TimeoutError | httpx.TimeoutException | httpx.ConnectError) for e in chain
    ):
        return False
    if _h11_framing(chain):
        return False
    return any(
        isinstance(
            e,
            httpx.RemoteProtocolError
            | httpx.ReadError
            | httpx.WriteError
            | ConnectionResetError
            | BrokenPipeError,
        )
        for e in chain
    )
