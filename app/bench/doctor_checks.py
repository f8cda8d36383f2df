"""The doctor's checks of what the endpoint answers: model, body, streaming and /metrics."""

from __future__ import annotations

import json

import httpx

from app.bench import failures
from app.bench.doctor_probe import (
    Probe,
    error_message,
    has_choices,
    json_body,
    payload,
    shorten,
)
from app.bench.doctor_report import Check
from app.bench.endpoint import ResolvedEndpoint
from app.bench.serverstats import SERVER_LABELS, MetricsParseError, parse_metrics
from app.bench.sse import SSEDecoder


def model_check(
    model: str | None, served: list[str] | None, post: httpx.Response | None, model_404: bool
) -> Check:
    """Whether the requested model is among the served ids (or was accepted)."""
    listing = ", ".join(served or [])
    fix = (
        "Pass one of the served ids with --model; vLLM serves the name given by "
        "--served-model-name (e.g. --served-model-name qwen2.5-7b)."
    )
    if not model:
        if served:
            return Check(
                "model",
                "warn",
                f"no model given; the server serves: {listing}",
                f"Pass --model {served[0]} so requests and results name the model.",
            )
        return Check("model", "warn", "no model given and the server lists none", fix)
    if served is not None and model not in served:
        return Check("model", "fail", f"'{model}' is not served; served ids: {listing}", fix)
    if model_404 and post is not None:
        return Check("model", "fail", f"'{model}' is unknown: {shorten(error_message(post))}", fix)
    if served is None:
        return Check("model", "ok", f"'{model}' accepted (the server publishes no model list)")
    return Check("model", "ok", f"'{model}' is served (served ids: {listing})")


async def body_check(
    probe: Probe, res: ResolvedEndpoint, post: httpx.Response, mismatch: str
) -> Check:
    """Whether the non-streaming reply has 'choices', and why not."""
    if has_choices(post):
        choice = json_body(post)["choices"][0]
        text = (choice.get("message") or {}).get("content") or choice.get("text") or ""
        return Check("body", "ok", f"'choices' present; reply: {shorten(str(text), 60)!r}")
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
            return Check(
                "body",
                "fail",
                f"HTTP {post.status_code} with a {probe.api} body: {excerpt}; the same URL "
                f"answers a {other} body, so it is the {other} endpoint",
                (mismatch[:1].upper() + mismatch[1:])
                or f"Use --backend {backend} with this URL, or point --endpoint at the "
                f"{probe.api} path; backend and endpoint must match.",
            )
    if post.status_code == 200:
        why = "it is not JSON" if json_body(post) is None else "it has no 'choices'"
        return Check(
            "body",
            "fail",
            f"HTTP 200 but {why} (the KeyError: 'choices' case); body: {excerpt}",
            failures.fix_for("no_choices"),
        )
    detail = f"HTTP {post.status_code}: {probe.scrub(shorten(error_message(post)))}"
    if post.headers.get("retry-after"):
        detail += f" (Retry-After: {post.headers['retry-after']} s)"
    fix = failures.fix_for(failures.kind_for_status(post.status_code))
    return Check("body", "fail", detail, mismatch[:1].upper() + mismatch[1:] if mismatch else fix)


async def stream_check(probe: Probe, res: ResolvedEndpoint) -> Check:
    """Whether stream=true gives SSE events ending in [DONE], with usage."""
    decoder = SSEDecoder()
    events = content = malformed = 0
    done, usage, finish, ctype = False, None, None, ""
    body = payload(probe.api, probe.target.model, stream=True)
    try:
        async with probe.client.stream(
            "POST", res.url, headers=probe.headers, json=body, timeout=probe.generation_timeout
        ) as resp:
            if resp.status_code != 200:
                await resp.aread()
                kind = failures.kind_for_status(resp.status_code)
                msg = probe.scrub(shorten(error_message(resp)))
                detail = f"HTTP {resp.status_code} for stream=true: {msg}"
                return Check("streaming", "fail", detail, failures.fix_for(kind))
            ctype = resp.headers.get("content-type", "")
            async for piece in resp.aiter_bytes():
                for data in decoder.feed(piece):
                    events += 1
                    if data.strip() == b"[DONE]":
                        done = True
                        continue
                    try:
                        msg = json.loads(data)
                    except ValueError:
                        malformed += 1
                        continue
                    usage = (msg.get("usage") if isinstance(msg, dict) else None) or usage
                    for ch in (msg.get("choices") if isinstance(msg, dict) else None) or []:
                        content += bool((ch.get("delta") or {}).get("content") or ch.get("text"))
                        finish = ch.get("finish_reason") or finish
    except httpx.HTTPError as exc:
        kind, message = failures.classify_exception(exc, after_headers=True)
        detail = f"the stream broke after {events} events: {probe.scrub(message)}"
        return Check("streaming", "fail", detail, failures.fix_for(kind))
    seen = f"{events} SSE events, {content} with text, finish_reason={finish}"
    if events == 0:
        detail = f"no SSE events (content-type {ctype or 'missing'})"
        return Check("streaming", "fail", detail, failures.fix_for("not_sse"))
    if malformed:
        detail = f"{seen}; {malformed} not valid JSON"
        return Check("streaming", "fail", detail, failures.fix_for("malformed_chunk"))
    if not done:
        return Check("streaming", "fail", f"{seen}; no [DONE]", failures.fix_for("stream_cut"))
    if not usage:
        return Check(
            "streaming",
            "warn",
            f"{seen}, [DONE] seen, but no usage in the stream",
            "Token counts will be estimated with a tokenizer and results marked estimated; a "
            "server that honours stream_options.include_usage (vLLM does) gives exact counts.",
        )
    tokens = usage.get("completion_tokens")
    return Check("streaming", "ok", f"{seen}, [DONE] seen, usage: {tokens} completion tokens")


async def metrics_check(probe: Probe, res: ResolvedEndpoint) -> Check:
    """Which server's Prometheus metrics answer, and the KV cache they report."""
    url = res.metrics_url
    fix = "Server-side charts (KV cache, queues) stay empty; client-side figures are unaffected."
    try:
        resp = await probe.get(url)
    except httpx.HTTPError as exc:
        return Check("metrics", "warn", f"{url}: {probe.scrub(shorten(str(exc)))}", fix)
    if resp.status_code != 200:
        detail = f"no Prometheus metrics at {url} (HTTP {resp.status_code})"
        return Check("metrics", "warn", detail, fix + " Gateways usually hide /metrics.")
    try:
        snap = parse_metrics(resp.text)
    except MetricsParseError:
        detail = f"{url} answered, but not with Prometheus text: {shorten(resp.text, 80)}"
        return Check("metrics", "warn", detail, fix)
    detail = f"{SERVER_LABELS[snap.server]} at {url}"
    cap = snap.capacity
    if cap is not None and cap.num_gpu_blocks and cap.block_size:
        detail += (
            f"; KV cache {cap.num_gpu_blocks:,} blocks × {cap.block_size} = {cap.tokens:,} tokens"
        )
    elif cap is not None:
        detail += f"; KV cache {cap.tokens:,} tokens"
    if cap is not None and probe.max_model_len:
        n, ctx = cap.max_sequences(probe.max_model_len), probe.max_model_len
        detail += f"; {n} requests of the full {ctx:,}-token context fit at once"
    if snap.server == "unknown":
        return Check("metrics", "warn", detail, fix)
    return Check("metrics", "ok", detail)
