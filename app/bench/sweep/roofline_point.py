"""A sweep point on the roofline: the context a run is checked against and the decode batch
each point ran at (the floor and MBU in its file are taken at that batch)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from app.bench.load.arrivals import LoadOutcome
from app.bench.schema.point_blocks import ServerMetricsBlock
from app.bench.sweep.plan import PointSpec
from app.roofline.context import RooflineContext

# The context's keys as a profile saves them and a point's file records them (RooflineContext's
# fields, in its order).
ROOFLINE_KEYS = tuple(f.name for f in dataclasses.fields(RooflineContext))


def check_roofline(context: Mapping[str, object]) -> RooflineContext:
    """A roofline context as saved or given (ROOFLINE_KEYS; a profile's, the flags'), checked
    against the catalogue: CatalogError (a ValueError naming the unknown id) when an id is not
    in it, ValueError when a key is missing or a number is not one."""
    checked = roofline_of(context)
    checked.scenario()
    return checked


def roofline_of(context: Mapping[str, object], *, model: bool = True) -> RooflineContext:
    """The values of a saved or given context as a RooflineContext, not yet looked up in the
    catalogue (check_roofline does): ValueError when an id is missing (the model only when
    `model`) or the context length or tensor-parallel size is not a number."""
    missing = [k for k in ROOFLINE_KEYS[:4] if not context.get(k) and (model or k != "model_id")]
    if missing:
        raise ValueError(f"roofline context lacks {', '.join(missing)}")
    raw = context.get("context")
    try:
        tokens = _whole(raw or 512)
    except (TypeError, ValueError):
        raise ValueError(f"roofline context length {raw!r} is not a number") from None
    if tokens < 0:
        raise ValueError(f"roofline context length must not be negative, got {tokens}")
    raw = context.get("tensor_parallel")
    try:
        gpus = 1 if raw in (None, "") else _whole(raw)
    except (TypeError, ValueError):
        raise ValueError(f"tensor-parallel size {raw!r} is not a number") from None
    if gpus < 1:
        raise ValueError(f"tensor-parallel size must be at least 1, got {gpus}")
    model_id = context.get("model_id")
    return RooflineContext(
        gpu_id=str(context["gpu_id"]),
        model_id=str(model_id) if model_id else None,
        fmt=str(context["fmt"]),
        kv_dtype=str(context["kv_dtype"]),
        context=tokens,
        tensor_parallel=gpus,
    )


def _whole(value: object) -> int:
    """int() of a saved number or its text (TypeError for anything else)."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(value)


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
