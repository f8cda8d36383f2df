"""One GPU + model + format + KV dtype at a context length: floors, MBU and what-if comparisons."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

from app.roofline.arch import ModelArch
from app.roofline.catalog import (
    GPU,
    KVDtype,
    WeightFormat,
    get_gpu,
    get_kv_dtype,
    get_model,
    get_weight_format,
    list_gpus,
    list_weight_formats,
)
from app.roofline.decode_step import (
    Floor,
    StepBytes,
    decode_floor,
    decode_step_bytes,
    decode_step_flops,
    peak_flops,
    ridge_point,
)
from app.roofline.kv_capacity import KVCapacity, kv_capacity

BATCH_GRID = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)


class WhatIf(NamedTuple):
    """One row of the what-if table."""

    gpu: GPU
    fmt: WeightFormat
    floor_ms: float  # batch-1 floor at the scenario's context
    tok_s: float  # best single-stream output tokens/s = 1000 / floor_ms
    bytes_per_step: float
    kv_tokens: int  # 0: the weights do not fit at this utilisation
    speedup: float  # current floor / this floor


@dataclass(frozen=True)
class Scenario:
    gpu: GPU
    model: ModelArch
    fmt: WeightFormat
    kv: KVDtype
    context: int = 512
    gpu_memory_utilization: float = 0.85
    block_size: int = 16

    @classmethod
    def from_ids(
        cls, gpu_id: str, model_id: str, fmt: str, kv_dtype: str, context: int = 512
    ) -> Scenario:
        """Look every id up in the catalogue (raises CatalogError naming the bad one)."""
        weights, kv = get_weight_format(fmt), get_kv_dtype(kv_dtype)
        return cls(get_gpu(gpu_id), get_model(model_id), weights, kv, context)

    def step(self, batch: int = 1) -> StepBytes:
        return decode_step_bytes(self.model, self.fmt, self.kv, batch, self.context)

    def floor(self, batch: int = 1) -> Floor:
        return decode_floor(self.gpu, self.model, self.fmt, self.kv, batch, self.context)

    def flops(self, batch: int = 1) -> float:
        return decode_step_flops(self.model, batch, self.context)

    def intensity(self, batch: int = 1) -> float:
        """FLOP per byte of one decode step at this batch."""
        return self.flops(batch) / self.step(batch).total_bytes

    def peak_flops(self) -> float:
        return peak_flops(self.gpu, self.fmt)

    def ridge(self) -> float:
        return ridge_point(self.gpu, self.fmt)

    def capacity(self) -> KVCapacity:
        return kv_capacity(
            self.gpu, self.model, self.fmt, self.kv, self.gpu_memory_utilization, self.block_size
        )

    def max_batch(self) -> int:
        """Sequences of `context` tokens the KV cache holds at once (0 if none)."""
        cap = self.capacity()
        return int(cap.concurrency(self.context)) if self.context > 0 else cap.tokens

    def mbu(self, batch: float, tpot_ms: float) -> float:
        """MBU of a measured step: bytes at this batch / TPOT / peak bandwidth."""
        b = max(1, round(batch))
        return self.step(b).total_bytes / (tpot_ms / 1e3) / self.gpu.bandwidth_bytes_per_s

    def achieved_flops(self, batch: float, tpot_ms: float) -> float:
        return self.flops(max(1, round(batch))) / (tpot_ms / 1e3)

    def floor_curve(self, batches: tuple[int, ...] = BATCH_GRID) -> list[tuple[int, float]]:
        """(batch, floor TPOT in ms) over a grid of batch sizes."""
        return [(b, self.floor(b).seconds * 1e3) for b in batches]

    def _row(self, other: Scenario, reference_ms: float) -> WhatIf:
        floor_ms = other.floor(1).seconds * 1e3
        return WhatIf(
            other.gpu,
            other.fmt,
            floor_ms,
            1e3 / floor_ms,
            other.step(1).total_bytes,
            other.capacity().tokens,
            reference_ms / floor_ms,
        )

    def what_if_formats(self) -> list[WhatIf]:
        """The current model and GPU in every weight format."""
        ref = self.floor(1).seconds * 1e3
        return [self._row(replace(self, fmt=f), ref) for f in list_weight_formats()]

    def what_if_gpus(self) -> list[WhatIf]:
        """The current model and format on every catalogue GPU, fastest first."""
        ref = self.floor(1).seconds * 1e3
        rows = [self._row(replace(self, gpu=g), ref) for g in list_gpus()]
        return sorted(rows, key=lambda r: r.floor_ms)
