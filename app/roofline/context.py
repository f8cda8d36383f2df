"""RooflineContext: the hardware a run's points are set against (GPU, model architecture, weight
format, KV-cache dtype, context length, tensor-parallel size), as the roofline panel picks it,
a profile saves it and `tpotbench sweep --gpu ...` gives it. Each point's file records it with
the decode floor at the point's batch (tpotbench.roofline, app.bench.schema.point_blocks)."""

from __future__ import annotations

from dataclasses import dataclass

from app.roofline.scenario import Scenario


@dataclass(frozen=True)
class RooflineContext:
    """Catalogue ids as given (not the catalogue's spelling of them) and the two numbers.
    `model_id` is None while the run waits for the server to name its model."""

    gpu_id: str
    model_id: str | None
    fmt: str = "bf16"
    kv_dtype: str = "fp16"
    context: int = 512  # cached tokens per sequence, for the KV bytes of a decode step
    tensor_parallel: int = 1  # GPUs the model is split over (throughput per GPU divides by it)

    def scenario(self) -> Scenario:
        """The catalogue's scenario; CatalogError (a ValueError naming the unknown id), or
        ValueError when no model is named yet."""
        if not self.model_id:
            raise ValueError("roofline context lacks model_id")
        return Scenario.from_ids(self.gpu_id, self.model_id, self.fmt, self.kv_dtype, self.context)
