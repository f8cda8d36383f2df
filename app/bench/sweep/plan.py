"""A sweep's plan: the grid of request rates x concurrencies, one point per pair."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.bench.schema.codec import wire


@dataclass(frozen=True, slots=True)
class PointSpec:
    index: int
    request_rate: float = field(metadata=wire(inf_as_text=True))  # "inf" in JSON: no limit
    max_concurrency: int | None


def plan_points(rates: Sequence[float], concurrencies: Sequence[int | None]) -> list[PointSpec]:
    """Every (rate, concurrency) pair, rate-major, in the order given."""
    return [
        PointSpec(i, rate, conc)
        for i, (rate, conc) in enumerate((r, c) for r in rates for c in concurrencies)
    ]
