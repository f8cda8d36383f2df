"""One streaming completion request, timed per network read: the engine's hot path."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import httpx

from app import __version__
from app.bench.http.auth import auth_headers, redact
from app.bench.http.body import MAX_STREAM_BODY_BYTES
from app.bench.http.collector import ChunkObserver, Collector, excerpt
from app.bench.http.endpoint import ResolvedEndpoint
from app.bench.http.exchange import Clock, Exchange, StampedBody, parsed_url
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec, build_body
from app.bench.http.sse import MAX_EVENT_BYTES
from app.bench.http.tokens import TokenCounter
from app.bench.http.usage import count_tokens, reasoning_and_cache, usage_problem

_USER_AGENT = f"tpotbench/{__version__}"


async def send_request(
    client: httpx.AsyncClient,
    resolved: ResolvedEndpoint,
    spec: RequestSpec,
    *,
    api_key: str | None = None,
    extra_headers: dict[str, str] | None = None,
    clock: Clock = time.perf_counter_ns,
    tokenizer: TokenCounter | None = None,
    on_chunk: ChunkObserver | None = None,
    on_text: Callable[[str], None] | None = None,
    max_body_bytes: int = MAX_STREAM_BODY_BYTES,
    max_event_bytes: int = MAX_EVENT_BYTES,
) -> RequestRecord:
    """Send one streaming request and time it; network, HTTP and stream errors become
    ``error_kind`` + a one-line ``error`` on the record instead of exceptions.

    Every network read gets ONE clock reading, taken before it is parsed; all SSE messages
    that came in that read share it. On TPOT Bench's own transport with the default clock the
    reading is the kernel's receive stamp of the read (plain HTTP on Linux, see
    wire/stamps.py), so a read waiting behind other streams' parsing is not stamped late;
    ``record.stamping`` says how the reads were stamped. ``on_chunk(record, t_ns)``
    is called per token chunk, ``on_text(piece)`` with each piece of visible text (before
    ``on_chunk`` of its chunk).
    The whole request is bounded by the client's ``request_timeout_s`` and the body by
    ``max_body_bytes`` (decoded) and ``max_event_bytes`` (one SSE event).
    """
    rec = RequestRecord(
        request_id=spec.request_id,
        prompt_len=spec.prompt_len,
        output_len_requested=spec.max_tokens,
    )
    request = _build_request(client, resolved, spec, rec, api_key, extra_headers, clock)
    col = Collector(rec, resolved.api == "chat", on_chunk, on_text)
    ex = Exchange(col, clock, max_body_bytes, max_event_bytes)
    deadline = getattr(client, "request_timeout_s", None)

    rec.submit_ns = rec.send_ns = clock()  # send_ns moves to the body write, see StampedBody
    try:
        async with asyncio.timeout(deadline):
            await ex.run(client, request)
    except TimeoutError:
        ex.end_ns = clock()
        error = f"the reply did not finish within --request-timeout {deadline:g} s"
        if not ex.started:
            ex.early = ("timeout", f"no answer within --request-timeout {deadline:g} s")
        elif col.kind is None:
            col.fail("timeout", error + f" ({len(rec.chunk_ns)} chunks had arrived)")
    if ex.early is not None:
        kind, error = ex.early
        return _finish_failed(rec, kind, redact(error, api_key), ex.end_ns)
    return _finish(rec, col, ex, api_key, tokenizer)


def _build_request(
    client: httpx.AsyncClient,
    resolved: ResolvedEndpoint,
    spec: RequestSpec,
    rec: RequestRecord,
    api_key: str | None,
    extra_headers: dict[str, str] | None,
    clock: Clock,
) -> httpx.Request:
    """The POST with its JSON body and headers; reading the body stamps ``rec.send_ns``."""
    model = spec.model or resolved.model or ""
    content = json.dumps(build_body(resolved.api, model, spec), ensure_ascii=False).encode()
    headers = auth_headers(api_key, extra_headers)
    headers["Content-Type"] = "application/json"
    headers["Accept"] = "text/event-stream"
    # a benchmark must not time decompression, and sizes are then the ones on the wire
    headers["Accept-Encoding"] = "identity"
    headers.setdefault("User-Agent", _USER_AGENT)
    if spec.request_id:
        headers["X-Request-Id"] = spec.request_id
    # httpx.Request directly rather than client.build_request: no merging of client defaults
    # and cookies, and the URL is parsed once per endpoint; ~50 us less per request, which
    # every request of a burst of hundreds of simultaneous sends pays for the others.
    url = parsed_url(resolved.url)
    # with stream= httpx adds no automatic headers: Host and Content-Length are ours to set
    headers["Host"] = url.netloc.decode("ascii")
    headers["Content-Length"] = str(len(content))
    return httpx.Request(
        "POST",
        url,
        headers=headers,
        stream=StampedBody(content, rec, clock),
        extensions={"timeout": client.timeout.as_dict()},
    )


def _finish(
    rec: RequestRecord,
    col: Collector,
    ex: Exchange,
    api_key: str | None,
    tokenizer: TokenCounter | None,
) -> RequestRecord:
    """The record of a request whose stream started: what the collector saw, the failure a
    stream without choices or an end has, the usage if possible, and the token counts."""
    chunk_ns = rec.chunk_ns
    rec.reads = ex.reads
    rec.stamping = ex.stamping
    rec.stamping_why = ex.stamping_why
    rec.messages = col.messages
    rec.done_seen = col.done
    rec.first_choice_ns = col.first_choice_ns
    rec.first_output_ns = col.first_output_ns
    rec.reasoning_chunks = col.reasoning_chunks
    rec.finish_reason = col.finish_reason
    rec.generated_text = "".join(col.text_parts)
    if col.kind is None:
        if not chunk_ns:
            col.fail(
                "no_choices",
                f"HTTP 200 but none of {col.messages} stream messages carried choices"
                + (f" (first: {excerpt(ex.head)})" if ex.head else ""),
            )
        elif not col.done and col.finish_reason is None:
            col.fail(
                "stream_cut",
                f"the stream closed after {len(chunk_ns)} chunks without finish_reason or [DONE]",
            )
    usage = col.usage
    if col.kind is None and usage is not None:
        problem = usage_problem(usage)
        if problem:
            col.fail("malformed_usage", problem)
    if col.kind != "malformed_usage":
        rec.usage = usage
    if chunk_ns:
        rec.first_token_ns = chunk_ns[0]
        rec.end_ns = chunk_ns[-1]
    else:
        rec.end_ns = ex.end_ns
    if col.kind is not None:
        rec.error_kind = col.kind
        rec.error = redact(col.error, api_key)
    else:
        rec.ok = True
    count_tokens(rec, rec.usage, col.cum_tokens, col.extra_parts, tokenizer)
    reasoning_and_cache(rec, rec.usage)
    return rec


def _finish_failed(rec: RequestRecord, kind: str, error: str, end_ns: int) -> RequestRecord:
    rec.error_kind = kind
    rec.error = error
    rec.end_ns = end_ns
    return rec
