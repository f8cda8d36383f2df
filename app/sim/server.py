"""The simulator's HTTP face: vLLM's OpenAI-compatible routes, errors, /metrics, gateway modes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from app.sim.config import SimConfig
from app.sim.generate import EngineStream, chat_route, completions_route
from app.sim.metrics import CONTENT_TYPE
from app.sim.state import SimState, authorised, unauthorised


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
        Route(f"{p}/v1/chat/completions", _endpoint(state, chat_route), methods=["POST"]),
        Route(f"{p}/v1/completions", _endpoint(state, completions_route), methods=["POST"]),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        # ignore: starlette types every handler as taking any Exception; it calls this one
        # with the HTTPException it is registered for.
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


def _endpoint(
    state: SimState, handler: Callable[[SimState, Request], Awaitable[Response]]
) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        if state.latency_s:
            await asyncio.sleep(state.latency_s)  # the request's trip to the server
        response = await handler(state, request)
        if state.latency_s and not isinstance(response, EngineStream):
            await asyncio.sleep(state.latency_s)  # the answer's trip back
        return response

    return endpoint


async def _models(state: SimState, request: Request) -> Response:
    if not authorised(state, request):
        return unauthorised()
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
