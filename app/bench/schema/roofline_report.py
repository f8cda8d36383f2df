"""What `tpotbench roofline` computes for one GPU, model, weight format, KV dtype, batch and
context: the decode floor and what sets it, the bytes and FLOPs of one decode step, the KV
capacity and, given a measured TPOT, its MBU and MFU. `--json` prints it through the codec
(keys in field order); the text form reads the same fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from app.bench.schema.codec import wire


@dataclass(frozen=True)
class RooflineSources:
    """Where the catalogue's figures come from (datasheets, config.json)."""

    gpu: str
    model: str
    dtype: str


@dataclass(frozen=True)
class RooflineReport:
    """Catalogue ids as the catalogue spells them; times in ms, sizes in bytes."""

    gpu: str
    model: str
    dtype: str
    kv_dtype: str
    batch: int
    context: int
    floor_tpot_ms: float
    memory_ms: float
    compute_ms: float
    bound: str  # "memory" or "compute": which of the two sets the floor
    bytes_per_step: float
    weights_bytes: float
    lm_head_bytes: float
    kv_bytes: float
    flops_per_step: float
    arithmetic_intensity: float
    ridge_flops_per_byte: float
    best_single_stream_tok_s: float
    kv_capacity_tokens: int
    num_gpu_blocks: int
    block_size: int
    kv_capacity_source: Literal["server", "estimate"]
    max_concurrency_at_context: float | None  # None at context 0
    tpot_ms: float | None  # the measured TPOT given (--tpot-ms), with its MBU and MFU
    mbu: float | None
    mfu: float | None
    sources: RooflineSources
    prefill_floor_ms: float | None = field(default=None, metadata=wire(omit="none"))
