"""The simulator's HTTP face: vLLM's OpenAI-compatible routes, errors, /metrics, gateway modes."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from app.sim.config import DEFAULT_SPIN_US, SimConfig, SimConfigError
from app.sim.engine import Engine
from app.sim.faults import FaultPlan
from app.sim.metrics import CONTENT_TYPE, SimMetrics
from app.sim.requests import ApiError, ParsedRequest, error_body, parse_request
from app.sim.sequence import SimRequest
from app.sim.streams import (
    SSE_HEADERS,
    ChunkFormat,
    CollectSink,
    StreamSink,
    sse,
    usage_body,
)
from app.sim.textgen import find_stop, reply_length, request_seed
from app.sim.timing import StepCostModel


class StreamCut(Exception):
    """Raised inside a streaming response to make the server drop the connection."""


class _HideStreamCut(logging.Filter):
    """uvicorn logs an app exception with a traceback; a deliberate cut is not an error."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, StreamCut)


logging.getLogger("uvicorn.error").addFilter(_HideStreamCut())


class SimState:
    """Everything the routes share: config, cost model, engine, metrics, fault plan."""

    def __init__(self, config: SimConfig) -> None:
        self.config = config
        self.cost = StepCostModel(config)
        capacity = self.cost.num_gpu_blocks * config.block_size
        if capacity < config.max_model_len:
            raise SimConfigError(
                f"{config.model} ({config.dtype}) on {self.cost.gpu.name} at "
                f"--gpu-memory-utilization {config.gpu_memory_utilization} leaves KV room for "
                f"{capacity} tokens, less than --max-model-len {config.max_model_len}; raise the "
                "utilisation, lower --max-model-len or pick a smaller --dtype"
            )
        self.metrics = SimMetrics(
            config.served_model_name[0],
            block_size=config.block_size,
            num_gpu_blocks=self.cost.num_gpu_blocks,
            cache_dtype=config.kv_cache_dtype,
            gpu_memory_utilization=config.gpu_memory_utilization,
            enable_prefix_caching=config.enable_prefix_caching,
            num_speculative_tokens=config.num_speculative_tokens,
        )
        spin_ns = int(1000 * (DEFAULT_SPIN_US if config.spin_us is None else config.spin_us))
        self.engine = Engine(
            step_seconds=self.cost.step_seconds,
            num_gpu_blocks=self.cost.num_gpu_blocks,
            block_size=config.block_size,
            max_num_seqs=config.max_num_seqs,
            max_num_batched_tokens=config.max_num_batched_tokens,
            observer=self.metrics,
            record_lateness=True,
            spin_ns=spin_ns,
            # Holding a token until its turn means spinning; a simulator in a thread of the
            # host application may not (spin 0), so there every token goes out at once.
            frontend_ns=int(1000 * config.frontend_us_per_token) if spin_ns else 0,
            enable_prefix_caching=config.enable_prefix_caching,
            num_speculative_tokens=config.num_speculative_tokens,
            spec_acceptance_rate=config.spec_acceptance_rate,
        )
        self.faults = FaultPlan(config)
        self.latency_s = config.network_latency_ms / 1000.0
        self.request_numbers = itertools.count()
        self.created = int(time.time())  # wall-clock epoch seconds for the `created` fields


def build_app(config: SimConfig) -> _RawSendApp:
    """A Starlette app serving the simulator under config.path_prefix."""
    config.validate()
    state = SimState(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.engine.start()
        try:
            yield
        finally:
            await state.engine.stop()

    p = config.normalized_prefix
    routes = [
        Route(f"{p}/v1/models", _endpoint(state, _models), methods=["GET"]),
        Route(f"{p}/health", _endpoint(state, _health), methods=["GET"]),
        Route(f"{p}/metrics", _endpoint(state, _metrics), methods=["GET"]),
        Route(f"{p}/sim/stats", _endpoint(state, _stats), methods=["GET"]),
        Route(f"{p}/reset_prefix_cache", _endpoint(state, _reset_prefix_cache), methods=["POST"]),
        Route(f"{p}/v1/chat/completions", _endpoint(state, _chat), methods=["POST"]),
        Route(f"{p}/v1/completions", _endpoint(state, _completions), methods=["POST"]),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_exception},  # type: ignore[dict-item]
    )
    app.state.sim = state
    return _RawSendApp(app)


class _RawSendApp:
    """Hands the server's own `send` to streaming responses through the scope.

    Token writes are the simulator's hot path (128 of them at one deadline); going around
    Starlette's per-message wrappers saves a few microseconds on each.
    """

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.state = app.state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["tpotbench.raw_send"] = send
        await self.app(scope, receive, send)


async def _http_exception(request: Request, exc: HTTPException) -> Response:
    # vLLM is a FastAPI app: unknown paths and methods answer {"detail": ...}.
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)


def _endpoint(state: SimState, handler: Any) -> Any:
    async def endpoint(request: Request) -> Response:
        if state.latency_s:
            await asyncio.sleep(state.latency_s)  # the request's trip to the server
        response = await handler(state, request)
        if state.latency_s and not isinstance(response, _EngineStream):
            await asyncio.sleep(state.latency_s)  # the answer's trip back
        return response

    return endpoint


def _error(status: int, message: str, err_type: str, code: int | str | None = None) -> JSONResponse:
    return JSONResponse(error_body(message, err_type, status if code is None else code), status)


def _authorised(state: SimState, request: Request) -> bool:
    key = state.config.api_key
    if not key:
        return True
    return request.headers.get("authorization", "") == f"Bearer {key}"


def _unauthorised() -> JSONResponse:
    return JSONResponse(
        error_body(
            "Incorrect API key provided. Send it as 'Authorization: Bearer <key>'.",
            "invalid_request_error",
            "invalid_api_key",
        ),
        status_code=401,
    )


async def _models(state: SimState, request: Request) -> Response:
    if not _authorised(state, request):
        return _unauthorised()
    cfg = state.config
    data = [
        {
            "id": name,
            "object": "model",
            "created": state.created,
            "owned_by": "vllm",
            "root": cfg.model,
            "parent": None,
            "max_model_len": cfg.max_model_len,
        }
        for name in cfg.served_model_name
    ]
    return JSONResponse({"object": "list", "data": data})


async def _health(state: SimState, request: Request) -> Response:
    return Response(status_code=200)


async def _metrics(state: SimState, request: Request) -> Response:
    if state.config.disable_metrics:
        return JSONResponse({"detail": "Not Found"}, status_code=404)
    return Response(state.metrics.render(), media_type=CONTENT_TYPE)


async def _reset_prefix_cache(state: SimState, request: Request) -> Response:
    """vLLM's POST /reset_prefix_cache (a dev-mode route there, VLLM_SERVER_DEV_MODE=1):
    200 with an empty body; later prompts find nothing cached. The counters keep counting."""
    state.engine.reset_prefix_cache()
    return Response(status_code=200)


async def _stats(state: SimState, request: Request) -> Response:
    """Simulator self-checks: how late its writes were against their deadlines (microseconds)."""
    engine = state.engine
    samples = sorted(engine.lateness_ns or [])
    wakes = sorted(engine.wake_ns or [])
    costs = sorted(engine.write_cost_ns or [])
    if request.query_params.get("reset"):
        for record in (engine.lateness_ns, engine.wake_ns, engine.write_cost_ns):
            if record is not None:
                record.clear()

    def pct(q: float, values: list[int] = samples) -> float | None:
        if not values:
            return None
        return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))] / 1000.0

    return JSONResponse(
        {
            "steps": engine.steps,
            "num_preemptions": engine.num_preemptions,
            "num_gpu_blocks": engine.num_gpu_blocks,
            "writes": len(samples),
            "lateness_us": {"p50": pct(0.5), "p90": pct(0.9), "p99": pct(0.99), "max": pct(1.0)},
            "step_wake_lateness_us": {
                "p50": pct(0.5, wakes),
                "p99": pct(0.99, wakes),
                "max": pct(1.0, wakes),
            },
            "write_cost_us": {"p50": pct(0.5, costs), "p99": pct(0.99, costs)},
        }
    )


async def _chat(state: SimState, request: Request) -> Response:
    return await _generate(state, request, chat=True)


async def _completions(state: SimState, request: Request) -> Response:
    return await _generate(state, request, chat=False)


async def _generate(state: SimState, request: Request, *, chat: bool) -> Response:
    if not _authorised(state, request):
        return _unauthorised()
    number = next(state.request_numbers)
    fault = state.faults.next_fault()
    try:
        parsed = parse_request(await request.body(), state.config, chat=chat)
    except ApiError as exc:
        return _error(exc.status, exc.message, exc.err_type)
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
        return _error(500, "Internal server error (simulated fault).", "InternalServerError")
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
    text_limit = None if stop is None else stop.chars
    stop_reason = None if stop is None else stop.stop
    # vLLM's reasoning parsers work on chat replies; /v1/completions returns raw text.
    reasoning_mode = chat and state.config.reasoning_share > 0
    reasoning = round(state.config.reasoning_share * target) if reasoning_mode else 0
    if not parsed.thinking:
        reasoning = 0
    report_cached = state.config.enable_prompt_tokens_details

    def engine_request(sink: StreamSink | CollectSink) -> SimRequest:
        return SimRequest(
            fmt.request_id,
            parsed.prompt_tokens,
            target,
            reason,
            sink,
            seed,
            prompt_ids=parsed.prompt_ids,
            reasoning_tokens=reasoning,
        )

    if parsed.stream:
        sink = StreamSink(
            fmt,
            prompt_tokens=parsed.prompt_tokens,
            include_usage=parsed.include_usage and not state.config.no_stream_usage,
            latency_s=state.latency_s,
            cut_after=max(1, target // 2) if fault == "cut" else None,
            malformed_at=max(1, target // 2) if fault == "malformed" else None,
            text_limit=text_limit,
            stop_reason=stop_reason,
            report_cached=report_cached,
            report_reasoning=reasoning_mode,
        )
        return _EngineStream(state.engine, engine_request(sink), sink)
    collect = CollectSink(text_limit)
    req = engine_request(collect)
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
    body = _full_body(fmt, parsed, collect, req.generated)
    body["choices"][0]["stop_reason"] = stop_reason
    body["usage"] = usage_body(
        parsed.prompt_tokens,
        req.generated,
        collect.cached_tokens if report_cached else None,
        collect.reasoning_tokens if reasoning_mode else None,
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


class _EngineStream(Response):
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
