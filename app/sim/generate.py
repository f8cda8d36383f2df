"""The generation routes (chat and completions): a parsed request through the engine, streamed
as vLLM streams it or returned whole, with the fault plan's cuts."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from app.sim.engine import Engine
from app.sim.requests import ApiError, ParsedRequest, error_body, parse_request
from app.sim.sequence import SimRequest
from app.sim.state import SimState, api_error, authorised, unauthorised
from app.sim.streams import (
    SSE_HEADERS,
    ChunkFormat,
    CollectSink,
    StreamSink,
    sse,
    usage_body,
)
from app.sim.textgen import find_stop, reply_length, request_seed


class StreamCut(Exception):
    """Raised inside a streaming response to make the server drop the connection."""


class _HideStreamCut(logging.Filter):
    """uvicorn logs an app exception with a traceback; a deliberate cut is not an error."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, StreamCut)


logging.getLogger("uvicorn.error").addFilter(_HideStreamCut())


async def chat_route(state: SimState, request: Request) -> Response:
    return await _generate(state, request, chat=True)


async def completions_route(state: SimState, request: Request) -> Response:
    return await _generate(state, request, chat=False)


@dataclass(frozen=True)
class _Reply:
    """What a request will get: its seed, length, finish reason, stop string and reasoning."""

    seed: int
    target: int
    reason: str
    text_limit: int | None
    stop_reason: str | None
    reasoning_mode: bool
    reasoning: int


def _plan_reply(state: SimState, parsed: ParsedRequest, chat: bool) -> _Reply:
    seed = request_seed(state.config.seed, parsed.prompt_key, parsed.seed)
    rng = random.Random(seed)
    target, reason = reply_length(
        rng,
        max_tokens=parsed.max_tokens,
        min_tokens=parsed.min_tokens,
        ignore_eos=parsed.ignore_eos,
        median=state.config.eos_median_tokens,
        sigma=state.config.eos_sigma,
    )
    stop = find_stop(seed, target, parsed.stop, parsed.min_tokens)
    if stop is not None:  # the reply ends with the token completing the stop string
        target, reason = stop.tokens, "stop"
    # vLLM's reasoning parsers work on chat replies; /v1/completions returns raw text.
    reasoning_mode = chat and state.config.reasoning_share > 0
    reasoning = round(state.config.reasoning_share * target) if reasoning_mode else 0
    if not parsed.thinking:
        reasoning = 0
    return _Reply(
        seed,
        target,
        reason,
        None if stop is None else stop.chars,
        None if stop is None else stop.stop,
        reasoning_mode,
        reasoning,
    )


def _fault_reply(state: SimState, fault: str | None) -> Response | None:
    """The reply of a fault that answers before any generation (429, 500), else None."""
    if fault == "429":
        return JSONResponse(
            error_body(
                "Rate limit reached (simulated fault); retry after the Retry-After delay.",
                "rate_limit_error",
                "rate_limit_exceeded",
            ),
            status_code=429,
            headers={"retry-after": str(state.config.retry_after_s)},
        )
    if fault == "500":
        return api_error(500, "Internal server error (simulated fault).", "InternalServerError")
    return None


async def _generate(state: SimState, request: Request, *, chat: bool) -> Response:
    if not authorised(state, request):
        return unauthorised()
    number = next(state.request_numbers)
    fault = state.faults.next_fault()
    try:
        parsed = parse_request(await request.body(), state.config, chat=chat)
    except ApiError as exc:
        return api_error(exc.status, exc.message, exc.err_type)
    early = _fault_reply(state, fault)
    if early is not None:
        return early
    prefix = "chatcmpl" if chat else "cmpl"
    fmt = ChunkFormat(
        chat=chat,
        request_id=f"{prefix}-{state.config.seed:x}{number:012x}",
        created=int(time.time()),  # wall-clock epoch seconds, as OpenAI's `created`
        model=parsed.model,
    )
    if fault == "no-choices":
        return _no_choices(fmt, parsed)
    if fault == "slow-first-byte":
        await asyncio.sleep(state.config.slow_first_byte_ms / 1000.0)
    reply = _plan_reply(state, parsed, chat)

    def engine_request(sink: StreamSink | CollectSink) -> SimRequest:
        return SimRequest(
            fmt.request_id,
            parsed.prompt_tokens,
            reply.target,
            reply.reason,
            sink,
            reply.seed,
            prompt_ids=parsed.prompt_ids,
            reasoning_tokens=reply.reasoning,
        )

    if parsed.stream:
        target = reply.target
        sink = StreamSink(
            fmt,
            prompt_tokens=parsed.prompt_tokens,
            include_usage=parsed.include_usage and not state.config.no_stream_usage,
            latency_s=state.latency_s,
            cut_after=max(1, target // 2) if fault == "cut" else None,
            malformed_at=max(1, target // 2) if fault == "malformed" else None,
            text_limit=reply.text_limit,
            stop_reason=reply.stop_reason,
            report_cached=state.config.enable_prompt_tokens_details,
            report_reasoning=reply.reasoning_mode,
        )
        return EngineStream(state.engine, engine_request(sink), sink)
    collect = CollectSink(reply.text_limit)
    return await _whole_reply(state, request, fmt, parsed, reply, collect, engine_request(collect))


async def _whole_reply(
    state: SimState,
    request: Request,
    fmt: ChunkFormat,
    parsed: ParsedRequest,
    reply: _Reply,
    collect: CollectSink,
    req: SimRequest,
) -> Response:
    """A non-streaming reply: the whole text once generated; 499 if the client left first."""
    state.engine.submit(req)
    disconnect = asyncio.ensure_future(_wait_disconnect(request.receive))
    try:
        await asyncio.wait({disconnect, collect.done}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        disconnect.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await disconnect
        state.engine.abort(req)  # frees the sequence's KV blocks if the client left early
    if not collect.done.done():
        return Response(status_code=499)  # nobody is listening; nginx's "client closed" code
    report_cached = state.config.enable_prompt_tokens_details
    body = _full_body(fmt, parsed, collect, req.generated)
    body["choices"][0]["stop_reason"] = reply.stop_reason
    body["usage"] = usage_body(
        parsed.prompt_tokens,
        req.generated,
        collect.cached_tokens if report_cached else None,
        collect.reasoning_tokens if reply.reasoning_mode else None,
    )
    return JSONResponse(body)


def _full_body(
    fmt: ChunkFormat, parsed: ParsedRequest, collect: CollectSink, tokens: int
) -> dict[str, Any]:
    text, reason = collect.text, collect.finish_reason
    if fmt.chat:
        choice: dict[str, Any] = {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": text,
                "refusal": None,
                "annotations": None,
                "audio": None,
                "function_call": None,
                "tool_calls": [],
                "reasoning_content": collect.reasoning or None,
            },
            "logprobs": None,
            "finish_reason": reason,
            "stop_reason": None,
        }
    else:
        choice = {
            "index": 0,
            "text": text,
            "logprobs": None,
            "finish_reason": reason,
            "stop_reason": None,
            "prompt_logprobs": None,
        }
    return {
        "id": fmt.request_id,
        "object": "chat.completion" if fmt.chat else "text_completion",
        "created": fmt.created,
        "model": fmt.model,
        "choices": [choice],
        "usage": usage_body(parsed.prompt_tokens, tokens),
        "prompt_logprobs": None,
        "kv_transfer_params": None,
    }


def _no_choices(fmt: ChunkFormat, parsed: ParsedRequest) -> Response:
    """The 'no-choices' fault: a 200 whose JSON lacks `choices` (KeyError 'choices' in clients)."""
    body = {
        "id": fmt.request_id,
        "object": "chat.completion" if fmt.chat else "text_completion",
        "created": fmt.created,
        "model": fmt.model,
        "usage": usage_body(parsed.prompt_tokens, 0),
    }
    if not parsed.stream:
        return JSONResponse(body)
    body["object"] = fmt.object
    return Response(sse(body) + b"data: [DONE]\n\n", media_type="text/event-stream")


class EngineStream(Response):
    """A streaming response whose body the engine writes at its deadlines."""

    def __init__(self, engine: Engine, req: SimRequest, sink: StreamSink) -> None:
        self.engine = engine
        self.req = req
        self.sink = sink
        self.status_code = 200
        self.background = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        self.sink.attach(scope.get("tpotbench.raw_send", send))
        self.engine.submit(self.req)
        disconnect = asyncio.ensure_future(_wait_disconnect(receive))
        try:
            await asyncio.wait({disconnect, self.sink.done}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            disconnect.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await disconnect
            self.engine.abort(self.req)
        if self.sink.cut:
            raise StreamCut("simulated fault: stream cut")


async def _wait_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
