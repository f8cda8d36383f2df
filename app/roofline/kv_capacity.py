"""KV-cache capacity: vLLM's num_gpu_blocks from GPU memory, or from cache_config_info."""

from __future__ import annotations

import math
from typing import NamedTuple

from app.roofline.arch import ModelArch
from app.roofline.catalog import GPU, KVDtype, WeightFormat
from app.roofline.decode_step import kv_bytes_per_token, weight_bytes_resident

# vLLM sizes its KV pool after a profiling run:
#     kv_bytes = total_gpu_memory x gpu_memory_utilization - weights - peak activations - non-torch
#     num_gpu_blocks = kv_bytes // (block_size x KV bytes per token)
# We model each term:
#   * total_gpu_memory is what CUDA reports, not the marketed size: the driver keeps 1-1.5 %
#     (an RTX 3090 reports 23.69 of its 24 GiB; 80 GB A100/H100 cards about 79.1 GiB), so we use
#     CUDA_VISIBLE_FRACTION of the datasheet size.
#   * weights: weight_bytes_resident().
#   * peak activations of the profiling forward pass over max_num_batched_tokens tokens (the gated
#     MLP's gate/up/activation outputs plus a few hidden-size buffers, 16 bit) and of the dummy
#     sampler over max_num_seqs rows of FP32 logits (logits and probabilities).
#   * NON_TORCH_BYTES: CUDA context, cuBLAS/attention workspaces and allocator slack that vLLM sees
#     outside PyTorch's peak. Calibrated once: the field guide's vLLM log for Qwen2.5-7B BF16 on an
#     RTX 3090 at utilisation 0.85 shows num_gpu_blocks=5306, block_size=16; with the two modelled
#     terms above (0.56 GiB of activations) the remainder is 0.854 GiB, inside the one-block window
#     (0.9 MB wide) that gives exactly 5306. Total non-KV reserve in that case: 1.42 GiB.
CUDA_VISIBLE_FRACTION = 0.987
NON_TORCH_BYTES = 916_700_000
DEFAULT_MAX_NUM_BATCHED_TOKENS = 2048
DEFAULT_MAX_NUM_SEQS = 256


class KVCapacity(NamedTuple):
    num_gpu_blocks: int
    block_size: int
    tokens: int

    def concurrency(self, context_tokens: int) -> float:
        """Sequences of `context_tokens` that fit at once (vLLM's 'maximum concurrency')."""
        if context_tokens <= 0:
            raise ValueError("context length must be positive")
        blocks_each = math.ceil(context_tokens / self.block_size)
        return self.num_gpu_blocks / blocks_each


def activation_peak_bytes(
    model: ModelArch,
    max_num_batched_tokens: int = DEFAULT_MAX_NUM_BATCHED_TOKENS,
    max_num_seqs: int = DEFAULT_MAX_NUM_SEQS,
) -> float:
    """Modelled peak of vLLM's profiling run (forward over the token budget, then the sampler)."""
    if model.is_moe:
        mlp = model.experts_per_tok * model.moe_intermediate_size
        mlp += model.shared_expert_intermediate_size
    else:
        mlp = model.intermediate_size
    forward = max_num_batched_tokens * (3 * mlp + 4 * model.hidden_size) * 2
    sampler = max_num_seqs * model.vocab_size * 4 * 2
    return float(forward + sampler)


def non_kv_reserve_bytes(
    model: ModelArch,
    max_num_batched_tokens: int = DEFAULT_MAX_NUM_BATCHED_TOKENS,
    max_num_seqs: int = DEFAULT_MAX_NUM_SEQS,
) -> float:
    """Activation peak plus the non-torch allowance: memory neither weights nor KV may use."""
    return activation_peak_bytes(model, max_num_batched_tokens, max_num_seqs) + NON_TORCH_BYTES


def kv_cache_bytes(
    gpu: GPU,
    model: ModelArch,
    fmt: WeightFormat,
    gpu_memory_utilization: float,
    *,
    max_num_batched_tokens: int = DEFAULT_MAX_NUM_BATCHED_TOKENS,
    max_num_seqs: int = DEFAULT_MAX_NUM_SEQS,
) -> float:
    """Bytes left for the KV cache (may be negative: the model does not fit)."""
    if not 0 < gpu_memory_utilization <= 1:
        raise ValueError("gpu_memory_utilization must be in (0, 1]")
    budget = gpu.memory_bytes * CUDA_VISIBLE_FRACTION * gpu_memory_utilization
    reserve = non_kv_reserve_bytes(model, max_num_batched_tokens, max_num_seqs)
    return budget - weight_bytes_resident(model, fmt) - reserve


def num_gpu_blocks(
    gpu: GPU,
    model: ModelArch,
    fmt: WeightFormat,
    kv_dtype: KVDtype,
    gpu_memory_utilization: float,
    block_size: int = 16,
    *,
    max_num_batched_tokens: int = DEFAULT_MAX_NUM_BATCHED_TOKENS,
    max_num_seqs: int = DEFAULT_MAX_NUM_SEQS,
) -> int:
    """vLLM's num_gpu_blocks for this setup; 0 when the weights alone do not fit."""
    if block_size <= 0:
        raise ValueError("block_size must be positive")
    free = kv_cache_bytes(
        gpu,
        model,
        fmt,
        gpu_memory_utilization,
        max_num_batched_tokens=max_num_batched_tokens,
        max_num_seqs=max_num_seqs,
    )
    per_block = block_size * kv_bytes_per_token(model, kv_dtype)
    return max(0, int(free // per_block))


def kv_capacity(
    gpu: GPU,
    model: ModelArch,
    fmt: WeightFormat,
    kv_dtype: KVDtype,
    gpu_memory_utilization: float,
    block_size: int = 16,
) -> KVCapacity:
    blocks = num_gpu_blocks(gpu, model, fmt, kv_dtype, gpu_memory_utilization, block_size)
    return KVCapacity(blocks, block_size, blocks * block_size)
