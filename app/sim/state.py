"""What every route of one simulator server shares (config, cost model, engine, metrics, fault
plan), its error replies and the key check."""

from __future__ import annotations

import itertools
import time

from starlette.requests import Request
from starlette.responses import JSONResponse

from app.sim.config import DEFAULT_SPIN_US, SimConfig, SimConfigError
from app.sim.engine import Engine
from app.sim.faults import FaultPlan
from app.sim.metrics import SimMetrics
from app.sim.requests import error_body
from app.sim.timing import StepCostModel


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


def api_error(
    status: int, message: str, err_type: str, code: int | str | None = None
) -> JSONResponse:
    return JSONResponse(error_body(message, err_type, status if code is None else code), status)


def authorised(state: SimState, request: Request) -> bool:
    key = state.config.api_key
    if not key:
        return True
    return request.headers.get("authorization", "") == f"Bearer {key}"


def unauthorised() -> JSONResponse:
    return JSONResponse(
        error_body(
            "Incorrect API key provided. Send it as 'Authorization: Bearer <key>'.",
            "invalid_request_error",
            "invalid_api_key",
        ),
        status_code=401,
    )
