"""One streaming completion request, timed per network read: the engine's hot path."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import KW_ONLY, dataclass
from typing import Any

import httpx

from app import __version__
from app.bench.http.body import (
    MAX_STREAM_BODY_BYTES,
    BodyError,
    content_encoding,
    inflated,
    oversized,
)
from app.bench.http.client import BenchClient
from app.bench.http.connections import ATTEMPT, Attempt
from app.bench.http.endpoint import ResolvedEndpoint, auth_headers, redact
from app.bench.http.failures import classify_exception, kind_for_status, lost_before_response
from app.bench.http.record import RequestRecord
from app.bench.http.sse import DONE, MAX_EVENT_BYTES, SSEDecoder, SSEError
from app.bench.http.tokens import TokenCounter, estimate_tokens

Clock = Callable[[], int]
ChunkObserver = Callable[[RequestRecord, int], None]

_EXCERPT = 200
_USER_AGENT = f"tpotbench/{__version__}"
_raw_decode = json.JSONDecoder().raw_decode
_MALFORMED = object()
_ERROR_BODY_LIMIT = 4096


@dataclass(slots=True)
class RequestSpec:
    prompt: str | list[dict[str, Any]]
    prompt_len: int
    max_tokens: int
    _: KW_ONLY
    ignore_eos: bool = False
    model: str = ""
    extra_body: dict[str, Any] | None = None
    request_id: str = ""


def build_body(api: str, model: str, spec: RequestSpec) -> dict[str, Any]:
    """The JSON body vLLM's openai / openai-chat backends send, streaming with usage."""
    body: dict[str, Any] = {"model": model}
    if api == "chat":
        prompt = spec.prompt
        body["messages"] = (
            prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
        )
    else:
        body["prompt"] = spec.prompt
    # max_tokens rather than max_completion_tokens: every OpenAI-compatible server and gateway
    # accepts it, and vLLM treats both the same.
    body["max_tokens"] = spec.max_tokens
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    if spec.ignore_eos:
        body["ignore_eos"] = True
    if spec.extra_body:
        body.update(spec.extra_body)
    return body


def _one_line(text: str, limit: int = _EXCERPT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _error_detail(body: bytes) -> str:
    """The message inside an OpenAI-style error body, else an excerpt of the body."""
    try:
        obj = json.loads(body)
    except ValueError:
        return _one_line(body.decode("utf-8", "replace"))
    if isinstance(obj, dict):
        err = obj.get("error", obj)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or err.get("msg")
            if msg:
                return _one_line(str(msg))
        elif isinstance(err, str):
            return _one_line(err)
        if "detail" in obj:
            return _one_line(str(obj["detail"]))
    return _one_line(body.decode("utf-8", "replace"))


async def _read_limited(response: httpx.Response, limit: int = _ERROR_BODY_LIMIT) -> bytes:
    """The first ``limit`` bytes of an error body (decoded if compressed)."""
    parts: list[bytes] = []
    size = 0
    raw = response.aiter_raw()
    encoding = content_encoding(response)
    with contextlib.suppress(BodyError):
        pieces = inflated(raw, encoding, max_raw=limit, what="error") if encoding else raw
        async for data in pieces:
            parts.append(data[: limit - size])
            size += len(parts[-1])
            if size >= limit:
                break
    return b"".join(parts)


class _Collector:
    """Per-request stream state; ``message`` handles one SSE data payload stamped ``t``."""

    __slots__ = (
        "chat",
        "chunk_ns",
        "cum_tokens",
        "done",
        "error",
        "extra_parts",
        "finish_reason",
        "first_choice_ns",
        "first_output_ns",
        "kind",
        "messages",
        "on_chunk",
        "on_text",
        "reasoning_chunks",
        "rec",
        "text_parts",
        "usage",
    )

    def __init__(
        self,
        rec: RequestRecord,
        chat: bool,
        on_chunk: ChunkObserver | None,
        on_text: Callable[[str], None] | None = None,
    ) -> None:
        self.rec = rec
        self.chat = chat
        self.on_chunk = on_chunk
        self.on_text = on_text
        self.chunk_ns = rec.chunk_ns
        self.text_parts: list[str] = []
        self.extra_parts: list[str] = []  # reasoning / tool-call text: tokens, not shown
        self.cum_tokens: list[int] = []
        self.usage: dict | None = None
        self.finish_reason: str | None = None
        self.first_choice_ns: int | None = None
        self.first_output_ns: int | None = None
        self.reasoning_chunks = 0
        self.kind: str | None = None
        self.error = ""
        self.done = False
        self.messages = 0

    def fail(self, kind: str, error: str) -> bool:
        self.kind = kind
        self.error = error
        return True

    def message(self, payload: bytes, t: int, final: bool = False) -> bool:
        """Returns True when the stream must stop (a failure was recorded)."""
        self.messages += 1
        if payload == DONE:
            self.done = True
            return False
        try:
            # raw_decode on str is about twice as fast as json.loads on bytes; the end check
            # keeps "{...} trailing junk" malformed, and json.loads covers leading whitespace.
            text = payload.decode()
            obj, end = _raw_decode(text)
            if end != len(text) and text[end:].strip():
                raise ValueError("trailing data")
        except ValueError:
            try:
                obj = json.loads(payload)
            except ValueError:
                obj = _MALFORMED
        if obj is _MALFORMED:
            if payload.strip() == DONE:
                self.done = True
                return False
            if final:  # the body ended in the middle of this message
                return self.fail("stream_cut", "the stream ended inside a message: " + _ex(payload))
            return self.fail("malformed_chunk", "a stream message is not JSON: " + _ex(payload))
        if type(obj) is not dict:
            return self.fail(
                "malformed_chunk", "a stream message is not a JSON object: " + _ex(payload)
            )
        try:
            return self._fields(obj, t, payload)
        except (TypeError, AttributeError, KeyError, IndexError):
            # a field of an unexpected type ("usage": [1], "choices": 5, "content": 5 ...)
            return self.fail(
                "malformed_chunk",
                "a stream message has fields of unexpected types: " + _ex(payload),
            )

    def _fields(self, obj: dict, t: int, payload: bytes) -> bool:
        choices = obj.get("choices")
        u = obj.get("usage")
        if u and type(u) is not dict:
            raise TypeError("usage")
        if choices:
            c0 = choices[0]
            fr = c0.get("finish_reason")
            if fr:
                if type(fr) is not str:
                    raise TypeError("finish_reason")
                self.finish_reason = fr
            if self.first_choice_ns is None:
                self.first_choice_ns = t
            if self.chat:
                delta = c0.get("delta") or c0.get("message") or {}
                piece = delta.get("content")
                other = delta.get("reasoning_content") or delta.get("reasoning")
                if other:
                    if type(other) is not str:
                        raise TypeError("reasoning")
                    self.extra_parts.append(other)
                    self.reasoning_chunks += 1
                elif delta.get("tool_calls"):
                    self.extra_parts.append(json.dumps(delta["tool_calls"]))
                elif not piece and fr is None and "role" in delta:
                    return False  # the role-only opening delta: no generated token yet
            else:
                piece = c0.get("text")
            if piece:
                if type(piece) is not str:
                    raise TypeError("content")
                if self.first_output_ns is None:
                    self.first_output_ns = t
                self.text_parts.append(piece)
                if self.on_text is not None:
                    self.on_text(piece)
            self.chunk_ns.append(t)
            if u:
                self.cum_tokens.append(u.get("completion_tokens"))
            if self.on_chunk is not None:
                self.on_chunk(self.rec, t)
        if u:
            self.usage = u
        elif not choices and ("error" in obj or obj.get("object") == "error"):
            return self.fail(
                "stream_error", "the server sent an error in the stream: " + _error_detail(payload)
            )
        return False


def _ex(payload: bytes) -> str:
    return _one_line(payload.decode("utf-8", "replace"), 120)


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
    that came in that read share it. ``on_chunk(record, t_ns)`` is called per token chunk,
    ``on_text(piece)`` with each piece of visible text (before ``on_chunk`` of its chunk).
    The whole request is bounded by the client's ``request_timeout_s`` and the body by
    ``max_body_bytes`` (decoded) and ``max_event_bytes`` (one SSE event).
    """
    rec = RequestRecord(
        request_id=spec.request_id,
        prompt_len=spec.prompt_len,
        output_len_requested=spec.max_tokens,
    )
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
    url = _url(resolved.url)
    # with stream= httpx adds no automatic headers: Host and Content-Length are ours to set
    headers["Host"] = url.netloc.decode("ascii")
    headers["Content-Length"] = str(len(content))
    request = httpx.Request(
        "POST",
        url,
        headers=headers,
        stream=_StampedBody(content, rec, clock),
        extensions={"timeout": client.timeout.as_dict()},
    )
    col = _Collector(rec, resolved.api == "chat", on_chunk, on_text)
    ex = _Exchange(col, clock, max_body_bytes, max_event_bytes)
    deadline = getattr(client, "request_timeout_s", None)

    rec.submit_ns = rec.send_ns = clock()  # send_ns moves to the body write, see _StampedBody
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

    chunk_ns = rec.chunk_ns
    rec.reads = ex.reads
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
                + (f" (first: {_ex(ex.head)})" if ex.head else ""),
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
    _count_tokens(rec, rec.usage, col.cum_tokens, col.extra_parts, tokenizer)
    _reasoning_and_cache(rec, rec.usage)
    return rec


# Token counts above this are not a count but garbage (1e30); no model has such a context.
MAX_PLAUSIBLE_TOKENS = 100_000_000


def usage_problem(usage: dict) -> str | None:
    """Why a stream's ``usage`` cannot be true (negative, fractional or absurd counts), or None."""
    for key in ("completion_tokens", "prompt_tokens"):
        value = usage.get(key)
        if value is None:
            continue
        if type(value) is float and value.is_integer():
            value = int(value)
        if type(value) is not int or not 0 <= value <= MAX_PLAUSIBLE_TOKENS:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            return (
                f"the server's usage.{key} is {shown}, not a possible token count "
                "(a whole number from 0 to 100,000,000)"
            )
    return None


class _Exchange:
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
        "started",
    )

    def __init__(self, col: _Collector, clock: Clock, max_body: int, max_event: int) -> None:
        self.col = col
        self.clock = clock
        self.max_body = max_body
        self.max_event = max_event
        self.early: tuple[str, str] | None = None
        self.started = False  # the response's status line and headers arrived
        self.end_ns = 0
        self.reads = 0
        self.head = b""

    async def run(self, client: httpx.AsyncClient, request: httpx.Request) -> None:
        clock = self.clock
        attempt = Attempt()
        token = ATTEMPT.set(attempt)
        try:
            try:
                response = await _send(client, request, attempt)
            except Exception as exc:
                if not (attempt.reused and lost_before_response(exc)):
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
        try:
            status = col.rec.http_status = response.status_code
            if status != 200:
                self.early = await _status_failure(response)
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
        encoding = content_encoding(response)
        if encoding is None:
            reader = _reader(response)
        else:
            raw = response.aiter_raw()
            reader = inflated(raw, encoding, max_raw=self.max_body, what="the streamed reply")
        t = col.rec.send_ns
        size = 0
        limit = self.max_body
        reads = 0
        try:
            async for data in reader:
                t = clock()
                reads += 1
                if reads <= 2:
                    self.head += data[:300]
                size += len(data)
                if size > limit:
                    raise oversized("the streamed reply", limit)
                for payload in feed(data):
                    if handle(payload, t):
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
                        + _ex(self.head),
                    )
        except (BodyError, SSEError) as exc:
            col.fail(getattr(exc, "kind", "oversized"), str(exc))
        finally:
            self.reads = reads
            self.end_ns = clock()


async def _send(
    client: httpx.AsyncClient, request: httpx.Request, attempt: Attempt
) -> httpx.Response:
    """Send on the client's pool; the httpx transport reports new connections by trace, and
    a forced-fresh send goes through a pool that keeps no connection."""
    if isinstance(client, BenchClient):
        if client.transport_kind == "httpx":
            attempt.reused = True  # unless the trace sees a connect
            request.extensions["trace"] = attempt.httpx_trace
            if attempt.force_fresh:
                return await client.fresh_client().send(request, stream=True)
        return await client.send_stream(request)
    return await client.send(request, stream=True)


async def _status_failure(response: httpx.Response) -> tuple[str, str]:
    status = response.status_code
    reason = response.reason_phrase or ""
    kind = kind_for_status(status)
    if kind == "redirect":
        target = _one_line(response.headers.get("location", "") or "(no Location header)", 300)
        return kind, f"HTTP {status} {reason}: redirect to {target} (not followed)"
    body = await _read_limited(response)
    detail = _error_detail(body) if body else ""
    return kind, _one_line(f"HTTP {status} {reason}: {detail}".strip(" :"))


class _StampedBody(httpx.AsyncByteStream):
    """The request body; reading it stamps ``send_ns``: the moment the request goes out.

    On Python 3.11 aiohttp writes a request body from a separate task that runs only after
    every other ready task, so a clock read before ``client.send`` would charge a burst of N
    simultaneous requests with the set-up time of all the others (20 ms at N=256 here).
    """

    def __init__(self, data: bytes, rec: RequestRecord, clock: Clock) -> None:
        self._data = data
        self._rec = rec
        self._clock = clock

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self._rec.send_ns = self._clock()
        yield self._data


@functools.lru_cache(maxsize=64)
def _url(url: str) -> httpx.URL:
    return httpx.URL(url)


def _reader(response: httpx.Response) -> AsyncIterator[bytes]:
    """The (identity-coded) response body, one item per network read.

    On the httpx-aiohttp transport this is aiohttp's own ``iter_any()``, under the three
    async-generator layers httpx and the transport add per chunk (a third of the per-chunk
    CPU); any other transport goes through httpx.
    """
    stream = response.stream
    # httpx's client.send wraps the transport's stream in a BoundAsyncStream; send_stream not
    stream = getattr(stream, "_stream", stream)
    content = getattr(getattr(stream, "_aiohttp_response", None), "content", None)
    if content is not None and hasattr(content, "iter_any"):
        return content.iter_any()
    return response.aiter_raw()


def _finish_failed(rec: RequestRecord, kind: str, error: str, end_ns: int) -> RequestRecord:
    rec.error_kind = kind
    rec.error = error
    rec.end_ns = end_ns
    return rec


def _count(value: object) -> int | None:
    """A token count as an int, or None when it is not a possible one."""
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is int and 0 <= value <= MAX_PLAUSIBLE_TOKENS:
        return value
    return None


def _count_tokens(
    rec: RequestRecord,
    usage: dict | None,
    cum_tokens: list[object],
    extra_parts: list[str],
    tokenizer: TokenCounter | None,
) -> None:
    completion = _count(usage.get("completion_tokens")) if usage else None
    if completion is not None:
        rec.output_tokens = completion
        rec.output_tokens_source = "usage"
        prompt_tokens = _count(usage.get("prompt_tokens")) if usage else None
        if prompt_tokens is not None:
            rec.prompt_len = prompt_tokens
    else:
        text = rec.generated_text + "".join(extra_parts)
        if tokenizer is not None:
            rec.output_tokens = tokenizer.count(text)
            rec.output_tokens_source = "tokenizer"
        else:
            rec.output_tokens = estimate_tokens(text)
            rec.output_tokens_source = "estimate"
    # Per-chunk token counts only when every token chunk carried cumulative usage
    # (vLLM's continuous_usage_stats), each a possible count that never goes down; never
    # guessed from the number of chunks.
    if cum_tokens and len(cum_tokens) == len(rec.chunk_ns):
        prev = 0
        per_chunk = []
        for value in cum_tokens:
            c = _count(value)
            if c is None or c < prev:
                return
            per_chunk.append(c - prev)
            prev = c
        rec.chunk_tokens = per_chunk


def _reasoning_and_cache(rec: RequestRecord, usage: dict | None) -> None:
    """Reasoning tokens from usage.completion_tokens_details when the server reports them,
    else one per reasoning delta (marked "counted"); cached prompt tokens from
    usage.prompt_tokens_details (vLLM sends it only with prefix caching on)."""
    usage = usage if isinstance(usage, dict) else {}
    completion = usage.get("completion_tokens_details")
    reported = _count(completion.get("reasoning_tokens")) if isinstance(completion, dict) else None
    if reported is not None and (reported > 0 or rec.reasoning_chunks == 0):
        rec.reasoning_tokens, rec.reasoning_tokens_source = reported, "usage"
    elif rec.reasoning_chunks:
        rec.reasoning_tokens, rec.reasoning_tokens_source = rec.reasoning_chunks, "counted"
    prompt = usage.get("prompt_tokens_details")
    if isinstance(prompt, dict):
        rec.cached_tokens = _count(prompt.get("cached_tokens"))
