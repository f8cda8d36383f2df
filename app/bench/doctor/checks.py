"""The doctor's checks of what the endpoint answers: model, body, streaming and /metrics."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import httpx

from app.bench.doctor.probe import (
    Probe,
    error_message,
    has_choices,
    json_body,
    payload,
    shorten,
    streams_anyway,
)
from app.bench.doctor.report import Check, Msg, msg, verbatim
from app.bench.http import failures
from app.bench.http.body import MAX_STREAM_BODY_BYTES, BodyError, oversized
from app.bench.http.endpoint import ResolvedEndpoint
from app.bench.http.sse import SSEDecoder, SSEError
from app.bench.schema.codec import to_json_obj
from app.bench.serverstats.parse import SERVER_LABELS, MetricsParseError, parse_metrics


def model_check(
    model: str | None, served: list[str] | None, post: httpx.Response | None, model_404: bool
) -> Check:
    """Whether the requested model is among the served ids (or was accepted)."""
    listing = ", ".join(served or [])
    fix = msg(
        "Pass one of the served ids with --model; vLLM serves the name given by "
        "--served-model-name (e.g. --served-model-name qwen2.5-7b)."
    )
    if not model:
        if served:
            return Check.of(
                "model",
                "warn",
                msg("no model given; the server serves: {served}", served=listing),
                msg(
                    "Pass --model {model} so requests and results name the model.",
                    model=served[0],
                ),
            )
        return Check.of("model", "warn", msg("no model given and the server lists none"), fix)
    if served is not None and model not in served:
        detail = msg("'{model}' is not served; served ids: {served}", model=model, served=listing)
        return Check.of("model", "fail", detail, fix)
    if model_404 and post is not None:
        error = shorten(error_message(post))
        return Check.of(
            "model", "fail", msg("'{model}' is unknown: {error}", model=model, error=error), fix
        )
    if served is None:
        detail = msg("'{model}' accepted (the server publishes no model list)", model=model)
        return Check.of("model", "ok", detail)
    detail = msg("'{model}' is served (served ids: {served})", model=model, served=listing)
    return Check.of("model", "ok", detail)


async def body_check(
    probe: Probe, res: ResolvedEndpoint, post: httpx.Response, mismatch: str
) -> Check:
    """Whether the non-streaming reply has 'choices', and why not."""
    if has_choices(post):
        choice = json_body(post)["choices"][0]
        text = (choice.get("message") or {}).get("content") or choice.get("text") or ""
        reply = shorten(str(text), 60)
        return Check.of("body", "ok", msg("'choices' present; reply: {reply!r}", reply=reply))
    if streams_anyway(post):
        # Not the chat/completions mix-up: the body parsed as JSON would have no 'choices'
        # because it is a stream. Benchmarks stream anyway, so the streaming check goes on.
        return Check.of(
            "body",
            "warn",
            msg(
                "HTTP 200, but the reply is an event stream although the request said "
                '"stream": false: the server streams regardless'
            ),
            msg(
                "Benchmarks stream, so their figures are unaffected; a client that needs one "
                "JSON reply gets KeyError: 'choices' from this server. Check the server's "
                "or gateway's streaming setting."
            ),
        )
    excerpt = probe.scrub(shorten(post.text))
    other = "completions" if probe.api == "chat" else "chat"
    if post.status_code in (200, 400, 422):
        # Chat and completions bodies differ ('messages' vs 'prompt'): try the other flavour.
        try:
            retry = await probe.post(res.url, payload(other, probe.target.model, stream=False))
        except httpx.HTTPError:
            retry = None
        if has_choices(retry):
            backend = "openai-chat" if other == "chat" else "openai"
            return Check.of(
                "body",
                "fail",
                msg(
                    "HTTP {status} with a {api} body: {excerpt}; the same URL answers a {other} "
                    "body, so it is the {other} endpoint",
                    status=post.status_code,
                    api=probe.api,
                    excerpt=excerpt,
                    other=other,
                ),
                _sentence(mismatch)
                or msg(
                    "Use --backend {backend} with this URL, or point --endpoint at the {api} "
                    "path; backend and endpoint must match.",
                    backend=backend,
                    api=probe.api,
                ),
            )
    if post.status_code == 200:
        why = msg("it is not JSON") if json_body(post) is None else msg("it has no 'choices'")
        return Check.of(
            "body",
            "fail",
            msg(
                "HTTP 200 but {why} (the KeyError: 'choices' case); body: {excerpt}",
                why=why,
                excerpt=excerpt,
            ),
            msg(failures.fix_for("no_choices")),
        )
    retry_after = post.headers.get("retry-after")
    detail = msg(
        "HTTP {status}: {error}{retry_after}",
        status=post.status_code,
        error=probe.scrub(shorten(error_message(post))),
        retry_after=msg(" (Retry-After: {seconds} s)", seconds=retry_after) if retry_after else "",
    )
    fix = msg(failures.fix_for(failures.kind_for_status(post.status_code)))
    return Check.of("body", "fail", detail, _sentence(mismatch) or fix)


def _sentence(mismatch: str) -> Msg | None:
    """The endpoint module's mismatch message as a fix sentence (its words, capitalised)."""
    return verbatim(mismatch[:1].upper() + mismatch[1:]) if mismatch else None


@dataclass
class _StreamSeen:
    """What a streamed reply showed, event by event."""

    events: int = 0
    content: int = 0  # events with text
    malformed: int = 0
    done: bool = False
    usage: Any = None
    finish: Any = None

    def add(self, data: bytes) -> None:
        self.events += 1
        if data.strip() == b"[DONE]":
            self.done = True
            return
        try:
            event = json.loads(data)
        except ValueError:
            self.malformed += 1
            return
        self.usage = (event.get("usage") if isinstance(event, dict) else None) or self.usage
        for ch in (event.get("choices") if isinstance(event, dict) else None) or []:
            self.content += bool((ch.get("delta") or {}).get("content") or ch.get("text"))
            self.finish = ch.get("finish_reason") or self.finish


async def stream_check(probe: Probe, res: ResolvedEndpoint) -> Check:
    """Whether stream=true gives SSE events ending in [DONE], with usage."""
    decoder = SSEDecoder()
    seen = _StreamSeen()
    ctype = ""
    body = payload(probe.api, probe.target.model, stream=True)
    size = 0
    try:
        async with (
            asyncio.timeout(probe.deadline_s),
            probe.client.stream(
                "POST",
                res.url,
                headers=probe.headers,
                json=to_json_obj(body),
                timeout=probe.generation_timeout,
            ) as resp,
        ):
            if resp.status_code != 200:
                await resp.aread()
                kind = failures.kind_for_status(resp.status_code)
                text = probe.scrub(shorten(error_message(resp)))
                detail = msg(
                    "HTTP {status} for stream=true: {error}", status=resp.status_code, error=text
                )
                return Check.of("streaming", "fail", detail, msg(failures.fix_for(kind)))
            ctype = resp.headers.get("content-type", "")
            async for piece in resp.aiter_bytes():
                size += len(piece)
                if size > MAX_STREAM_BODY_BYTES:
                    raise oversized("the streamed reply", MAX_STREAM_BODY_BYTES)
                for data in decoder.feed(piece):
                    seen.add(data)
    except (httpx.HTTPError, BodyError, SSEError, TimeoutError) as exc:
        if isinstance(exc, TimeoutError):
            kind, message = "timeout", probe.timed_out(res.url)
        elif isinstance(exc, SSEError):
            kind, message = "oversized", str(exc)
        else:
            kind, message = failures.classify_exception(exc, after_headers=True)
        detail = msg(
            "the stream broke after {events} events: {error}",
            events=seen.events,
            error=probe.scrub(message),
        )
        return Check.of("streaming", "fail", detail, msg(failures.fix_for(kind)))
    return _stream_verdict(seen, ctype)


def _stream_verdict(stream: _StreamSeen, ctype: str) -> Check:
    """The verdict on a stream read to its end: events, valid JSON, [DONE], usage."""
    seen = msg(
        "{events} SSE events, {content} with text, finish_reason={finish}",
        events=stream.events,
        content=stream.content,
        finish=stream.finish,
    )
    if stream.events == 0:
        content_type = verbatim(ctype) if ctype else msg("missing")
        detail = msg("no SSE events (content-type {content_type})", content_type=content_type)
        return Check.of("streaming", "fail", detail, msg(failures.fix_for("not_sse")))
    if stream.malformed:
        detail = msg("{seen}; {malformed} not valid JSON", seen=seen, malformed=stream.malformed)
        return Check.of("streaming", "fail", detail, msg(failures.fix_for("malformed_chunk")))
    if not stream.done:
        detail = msg("{seen}; no [DONE]", seen=seen)
        return Check.of("streaming", "fail", detail, msg(failures.fix_for("stream_cut")))
    if not stream.usage:
        return Check.of(
            "streaming",
            "warn",
            msg("{seen}, [DONE] seen, but no usage in the stream", seen=seen),
            msg(
                "Token counts will be estimated with a tokenizer and results marked estimated; "
                "a server that honours stream_options.include_usage (vLLM does) gives exact "
                "counts."
            ),
        )
    tokens = stream.usage.get("completion_tokens")
    detail = msg("{seen}, [DONE] seen, usage: {tokens} completion tokens", seen=seen, tokens=tokens)
    return Check.of("streaming", "ok", detail)


async def metrics_check(probe: Probe, res: ResolvedEndpoint) -> Check:
    """Which server's Prometheus metrics answer, and the KV cache they report."""
    url = res.metrics_url
    fix = msg(
        "Server-side charts (KV cache, queues) stay empty; client-side figures are unaffected."
    )
    try:
        resp = await probe.get(url)
    except httpx.HTTPError as exc:
        error = probe.scrub(shorten(str(exc)))
        return Check.of("metrics", "warn", msg("{url}: {error}", url=url, error=error), fix)
    if resp.status_code != 200:
        detail = msg(
            "no Prometheus metrics at {url} (HTTP {status})", url=url, status=resp.status_code
        )
        hidden = msg(
            "Server-side charts (KV cache, queues) stay empty; client-side figures are "
            "unaffected. Gateways usually hide /metrics."
        )
        return Check.of("metrics", "warn", detail, hidden)
    try:
        snap = parse_metrics(resp.text)
    except MetricsParseError:
        detail = msg(
            "{url} answered, but not with Prometheus text: {excerpt}",
            url=url,
            excerpt=shorten(probe.scrub(resp.text), 80),
        )
        return Check.of("metrics", "warn", detail, fix)
    cap = snap.capacity
    capacity: Msg | str = ""
    if cap is not None and cap.num_gpu_blocks and cap.block_size:
        capacity = msg(
            "; KV cache {blocks:,} blocks × {block_size} = {tokens:,} tokens",
            blocks=cap.num_gpu_blocks,
            block_size=cap.block_size,
            tokens=cap.tokens,
        )
    elif cap is not None:
        capacity = msg("; KV cache {tokens:,} tokens", tokens=cap.tokens)
    fit: Msg | str = ""
    if cap is not None and probe.max_model_len:
        fit = msg(
            "; {n} requests of the full {context:,}-token context fit at once",
            n=cap.max_sequences(probe.max_model_len),
            context=probe.max_model_len,
        )
    detail = msg(
        "{server} at {url}{capacity}{fit}",
        server=msg(SERVER_LABELS[snap.server]),
        url=url,
        capacity=capacity,
        fit=fit,
    )
    if snap.server == "unknown":
        return Check.of("metrics", "warn", detail, fix)
    return Check.of("metrics", "ok", detail)
