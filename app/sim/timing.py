"""How long one engine step takes on the simulated GPU: the roofline plus a fixed overhead."""

from __future__ import annotations

from dataclasses import dataclass

from app.roofline.capacity import num_gpu_blocks
from app.roofline.catalog import get_gpu, get_kv_dtype, get_model, get_weight_format
from app.roofline.decode import (
    decode_step_bytes,
    decode_step_flops,
    kv_bytes_per_token,
    peak_flops,
    prefill_flops,
)
from app.sim.config import SimConfig


@dataclass(frozen=True)
class StepWork:
    """What one step computes: decode contexts of running sequences and prefill chunks."""

    decode_contexts: tuple[int, ...] = ()
    prefill_chunks: tuple[tuple[int, int], ...] = ()  # (tokens in chunk, tokens already cached)


class StepCostModel:
    """Step duration = max(bytes / effective bandwidth, FLOPs / effective peak) + overhead."""

    def __init__(self, config: SimConfig) -> None:
        self.gpu = get_gpu(config.gpu)
        self.model = get_model(config.model)
        self.fmt = get_weight_format(config.dtype)
        self.kv_dtype = get_kv_dtype(config.resolved_kv_dtype)
        self.num_gpu_blocks = int(
            num_gpu_blocks(
                self.gpu,
                self.model,
                self.fmt,
                self.kv_dtype,
                config.gpu_memory_utilization,
                block_size=config.block_size,
                max_num_batched_tokens=config.max_num_batched_tokens,
                max_num_seqs=config.max_num_seqs,
            )
        )
        self.kv_bytes_per_token = float(kv_bytes_per_token(self.model, self.kv_dtype))
        self._bandwidth = self.gpu.bandwidth_bytes_per_s * config.bandwidth_efficiency
        self._flops = peak_flops(self.gpu, self.fmt) * config.compute_efficiency
        self._overhead_s = config.step_overhead_ms / 1000.0
        # Weights (and LM head) are streamed once per step whatever the batch; KV is per token.
        empty = decode_step_bytes(self.model, self.fmt, self.kv_dtype, 1, 0.0)
        self._weight_bytes = float(empty.weights_bytes + empty.lm_head_bytes)

    def step_seconds(self, work: StepWork) -> float:
        """Wall time of one step; zero for an empty step."""
        batch = len(work.decode_contexts)
        if batch == 0 and not work.prefill_chunks:
            return 0.0
        kv_tokens = float(sum(work.decode_contexts))
        flops = 0.0
        if batch:
            flops += float(decode_step_flops(self.model, batch, kv_tokens / batch))
        for chunk, cached in work.prefill_chunks:
            flops += float(prefill_flops(self.model, chunk, cached))
            # Attention over the cached prefix reads it; the chunk's own KV is written once.
            kv_tokens += cached + chunk
        total_bytes = self._weight_bytes + kv_tokens * self.kv_bytes_per_token
        return max(total_bytes / self._bandwidth, flops / self._flops) + self._overhead_s
