"""A sweep point on the roofline: the context a run is checked against and the decode batch
each point ran at (the floor and MBU in its file are taken at that batch)."""

from __future__ import annotations

import math
from typing import Any

from app.bench.load.arrivals import LoadOutcome
from app.bench.schema.point_blocks import ServerMetricsBlock
from app.bench.sweep.plan import PointSpec
from app.roofline.scenario import Scenario

# tensor_parallel: the GPUs the model is split over (the Pareto chart divides throughput by it).
ROOFLINE_KEYS = ("gpu_id", "model_id", "fmt", "kv_dtype", "context", "tensor_parallel")


def check_roofline(context: dict[str, Any]) -> dict[str, Any]:
    """A roofline context with every key, as the roofline panel stores it; CatalogError
    (a ValueError naming the unknown id) when an id is not in the catalogue."""
    missing = [k for k in ROOFLINE_KEYS[:4] if not context.get(k)]
    if missing:
        raise ValueError(f"roofline context lacks {', '.join(missing)}")
    try:
        tokens = int(context.get("context") or 512)
    except (TypeError, ValueError):
        raise ValueError(
            f"roofline context length {context.get('context')!r} is not a number"
        ) from None
    if tokens < 0:
        raise ValueError(f"roofline context length must not be negative, got {tokens}")
    try:
        raw = context.get("tensor_parallel")
        gpus = 1 if raw in (None, "") else int(raw)
    except (TypeError, ValueError):
        raise ValueError(
            f"tensor-parallel size {context.get('tensor_parallel')!r} is not a number"
        ) from None
    if gpus < 1:
        raise ValueError(f"tensor-parallel size must be at least 1, got {gpus}")
    ids = {k: str(context[k]) for k in ROOFLINE_KEYS[:4]}
    Scenario.from_ids(**ids, context=tokens)
    return {**ids, "context": tokens, "tensor_parallel": gpus}


def roofline_batch(
    point: PointSpec, outcome: LoadOutcome, num_prompts: int, server: ServerMetricsBlock | None
) -> tuple[float, str] | None:
    """The decode batch a point ran at, and where that figure comes from: the server's mean
    running-requests gauge when scraped; else the concurrency limit of an unlimited-rate point
    (the slots stay full); else the time-averaged number of requests in flight (Little's law:
    summed request time / duration). None when nothing finished."""
    running = server.running.mean if server is not None and server.running else None
    if running is not None and running > 0:
        return float(running), "server_running"
    if point.max_concurrency is not None and math.isinf(point.request_rate):
        return float(min(point.max_concurrency, num_prompts)), "concurrency"
    busy_ns = sum(r.end_ns - r.send_ns for r in outcome.records if r.end_ns > r.send_ns)
    duration_s = outcome.duration_s
    if busy_ns <= 0 or duration_s <= 0:
        return None
    return busy_ns / 1e9 / duration_s, "mean_in_flight"
