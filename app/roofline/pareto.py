"""Interactivity against throughput: each load's point, the measured Pareto frontier, and the
frontier the roofline allows on the same GPUs.

Definitions (one point per load):
- per-user output tokens/s (interactivity, x) = 1000 / TPOT P50 (ms). TPOT excludes TTFT, so
  queueing and prefill (on the TTFT chart) do not blur the decode pace a reader sees; it is the
  same quantity as the roofline's per-token floor, so measured and hardware compare like for
  like; the median, because a few preempted or stalled requests should not move a whole load's
  figure; and `median_tpot_ms` is in every vLLM result file too.
- output tokens/s per GPU (throughput, y) = output token throughput / GPUs, where GPUs is the
  roofline context's tensor-parallel size (1 unless set).
- the hardware's point at batch b: a user gets at most 1 / floor(b) tokens/s and the GPUs
  b / floor(b) together, floor(b) the decode-step floor of app/roofline/decode_step.py. Tensor
  parallelism is taken as an ideal split (each GPU streams 1/N of the bytes and does 1/N of the
  FLOPs, no communication): floor_N(b) = floor_1(b) / N, an upper bound as a roofline should be.
  The frontier runs from batch 1 to the most sequences of the context length the KV cache holds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from app.bench.results.point_row import PointRow
from app.bench.schema.point_blocks import RooflineBlock
from app.roofline.decode_step import kv_bytes_per_token, weight_bytes_resident
from app.roofline.kv_capacity import kv_cache_bytes
from app.roofline.scenario import BATCH_GRID, Scenario


class HardwarePoint(NamedTuple):
    """What the roofline allows at one batch size."""

    batch: int
    user_tok_s: float  # 1 / floor(b): one user's best decode rate
    gpu_tok_s: float  # b / floor(b) / GPUs: the best output rate per GPU


@dataclass(frozen=True)
class ParetoPoint:
    """One measured load on the interactivity / throughput plane."""

    label: str
    user_tok_s: float  # 1000 / TPOT P50
    gpu_tok_s: float  # output tok/s / GPUs
    batch: float | None = None  # the decode batch it ran at (tpotbench.roofline.batch)
    hardware: HardwarePoint | None = None  # the roofline at that batch, when known

    @property
    def user_share(self) -> float | None:
        """Measured per-user rate as a share of the hardware's at the same batch."""
        return self.user_tok_s / self.hardware.user_tok_s if self.hardware else None

    @property
    def gpu_share(self) -> float | None:
        """Measured per-GPU rate as a share of the hardware's at the same batch."""
        return self.gpu_tok_s / self.hardware.gpu_tok_s if self.hardware else None


def hardware_point(scenario: Scenario, batch: float, gpus: int = 1) -> HardwarePoint:
    """The roofline's point at `batch` sequences (rounded to whole ones) on `gpus` GPUs."""
    if gpus < 1:
        raise ValueError("the GPU count must be at least 1")
    b = max(1, round(batch))
    step_s = scenario.floor(b).seconds / gpus  # ideal tensor-parallel split
    return HardwarePoint(b, 1.0 / step_s, b / step_s / gpus)


def max_batch(scenario: Scenario, gpus: int = 1) -> int:
    """Sequences of the scenario's context length the KV cache of `gpus` GPUs holds at once.

    Each GPU keeps 1/N of the weights, so the pool is N x (one GPU's KV bytes) plus the
    (N - 1) / N x N = N - 1 weight copies a single GPU would have spent on weights.
    """
    if gpus == 1:
        return scenario.max_batch()
    one = kv_cache_bytes(
        scenario.gpu, scenario.model, scenario.fmt, scenario.gpu_memory_utilization
    )
    weights = weight_bytes_resident(scenario.model, scenario.fmt)
    pool = gpus * one + (gpus - 1) * weights
    block = scenario.block_size * kv_bytes_per_token(scenario.model, scenario.kv)
    blocks = max(0, int(pool // block))
    each = math.ceil(max(scenario.context, 1) / scenario.block_size)
    return blocks // each


def hardware_frontier(
    scenario: Scenario, gpus: int = 1, batches: Sequence[int] = BATCH_GRID
) -> list[HardwarePoint]:
    """The roofline's frontier: its point at each batch up to the KV cache's limit (that limit
    included), lowest batch (most interactive) first; [] when the weights leave no KV room.

    Once compute binds, a bigger batch adds no tokens per GPU and only slows each user: those
    batches are beaten by the smaller one and are left off, as on any Pareto frontier.
    """
    top = max_batch(scenario, gpus)
    if top < 1:
        return []
    sizes = sorted({b for b in batches if 1 <= b <= top} | {top})
    points = [hardware_point(scenario, b, gpus) for b in sizes]
    keep = set(pareto_front([(p.user_tok_s, p.gpu_tok_s) for p in points]))
    return [p for i, p in enumerate(points) if i in keep]


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point beats on both axes (higher is better on each),
    in order of x. Points with a NaN or infinite coordinate never belong."""
    usable = [(x, y, i) for i, (x, y) in enumerate(points) if math.isfinite(x) and math.isfinite(y)]
    front: list[int] = []
    best_y = -math.inf
    # Highest x first; among equal x the highest y first, so a dominated twin is skipped.
    for _x, y, i in sorted(usable, key=lambda p: (-p[0], -p[1])):
        if y > best_y:
            front.append(i)
            best_y = y
    return sorted(front, key=lambda i: points[i][0])


def same_place(points: Sequence[tuple[float, float]]) -> list[list[int]]:
    """The indices of `points` grouped by place: points at exactly the same (x, y) in one
    group (a load measured twice with the same figures, two runs of one file), each group in
    the order given, the groups in the order of their first point."""
    groups: dict[tuple[float, float], list[int]] = {}
    for i, xy in enumerate(points):
        groups.setdefault((float(xy[0]), float(xy[1])), []).append(i)
    return list(groups.values())


def names_together(names: Sequence[str], times: str = "{name} ×{n}", sep: str = ", ") -> str:
    """One label for the points at one place: each distinct name once, in order, with how
    many points bear it when more than one ("conc 1 ×2"; "a conc 1, b conc 1"). `times` and
    `sep` are the language's ("{name}" and "{n}" in `times`)."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return sep.join(name if n == 1 else times.format(name=name, n=n) for name, n in counts.items())


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def gpu_count(roofline: RooflineBlock | None) -> int:
    """The tensor-parallel size a roofline context records (1 when it records none)."""
    value = None if roofline is None else roofline.tensor_parallel
    return max(1, int(value)) if value is not None else 1


def measured_point(
    label: str,
    tpot_p50_ms: float | None,
    output_tok_s: float | None,
    gpus: int = 1,
    batch: float | None = None,
    scenario: Scenario | None = None,
) -> ParetoPoint | None:
    """A load's point from its TPOT P50 and output throughput (None when either is missing or
    not positive: a load with no finished multi-token request has no place on the chart)."""
    if tpot_p50_ms is None or output_tok_s is None or tpot_p50_ms <= 0 or output_tok_s <= 0:
        return None
    if not (math.isfinite(tpot_p50_ms) and math.isfinite(output_tok_s)):
        return None
    hardware = None
    if scenario is not None and batch is not None and batch > 0:
        hardware = hardware_point(scenario, batch, gpus)
    return ParetoPoint(label, 1000.0 / tpot_p50_ms, output_tok_s / gpus, batch, hardware)


def scenario_of(roofline: RooflineBlock | None) -> Scenario | None:
    """The Scenario a point's roofline block names, or None (no block, or ids this machine's
    catalogue does not know: a custom GPU or model from another machine)."""
    if roofline is None:
        return None
    gpu, model, fmt, kv = roofline.gpu_id, roofline.model_id, roofline.fmt, roofline.kv_dtype
    if gpu is None or model is None or fmt is None or kv is None:
        return None
    try:
        return Scenario.from_ids(gpu, model, fmt, kv, int(roofline.context or 512))
    except (KeyError, TypeError, ValueError, OSError):
        return None


def point_from_row(label: str, row: PointRow) -> ParetoPoint | None:
    """A point from a finished point's row (ours or vLLM's: its TPOT P50 and output
    throughput); the GPU count, batch and hardware from its roofline block when it has one."""
    roofline = row.roofline
    return measured_point(
        label,
        _number(row.stats.get("median_tpot_ms")),
        _number(row.output_throughput),
        gpu_count(roofline),
        None if roofline is None else _number(roofline.batch),
        scenario_of(roofline),
    )
