"""Bytes and FLOPs of one decode step or one prefill, and the floor time they imply on a GPU."""

from __future__ import annotations

from typing import NamedTuple

from app.roofline.arch import ModelArch
from app.roofline.catalog import GPU, KVDtype, WeightFormat


class StepBytes(NamedTuple):
    """Bytes read from GPU memory by one decode step."""

    weights_bytes: float  # transformer layers (+ final norm), excluding the LM head
    lm_head_bytes: float  # the output projection, read whole every step (tied or not)
    kv_bytes: float  # K and V of every cached token of every running sequence
    total_bytes: float


class Floor(NamedTuple):
    """The shortest possible time for a step: max(memory time, compute time)."""

    seconds: float
    memory_s: float
    compute_s: float
    bound: str  # 'memory' or 'compute'


def _linears_bytes(fmt: WeightFormat, linears: list[tuple[int, int]]) -> float:
    return sum(fmt.linear_bytes(i, o) for i, o in linears)


def _layer_bytes(model: ModelArch, fmt: WeightFormat, experts: float) -> float:
    """One transformer layer's weight bytes with `experts` routed experts counted."""
    total = _linears_bytes(fmt, model.attention_linears())
    total += model.other_params_per_layer() * fmt.other_bits / 8
    if model.is_moe:
        total += _linears_bytes(fmt, model.shared_expert_linears())
        total += experts * _linears_bytes(fmt, model.expert_linears())
    else:
        total += _linears_bytes(fmt, model.mlp_linears())
    return total


def _lm_head_bytes(model: ModelArch, fmt: WeightFormat) -> float:
    # A tied head is the embedding matrix itself, stored in the embedding's precision.
    bits = fmt.embedding_bits if model.tie_word_embeddings else fmt.lm_head_bits
    return model.params_lm_head * bits / 8


def weight_bytes_resident(model: ModelArch, fmt: WeightFormat) -> float:
    """Bytes all weights occupy in GPU memory: every expert, the input table, the LM head."""
    layers = model.num_layers * _layer_bytes(model, fmt, model.num_experts)
    embedding = model.params_embedding * fmt.embedding_bits / 8
    head = 0.0 if model.tie_word_embeddings else _lm_head_bytes(model, fmt)
    final_norm = model.hidden_size * fmt.other_bits / 8
    return layers + embedding + head + final_norm


def experts_touched(model: ModelArch, batch: int) -> float:
    """Expected distinct routed experts per MoE layer for `batch` tokens, routing uniform."""
    if not model.is_moe:
        return 0.0
    e, k = model.num_experts, model.experts_per_tok
    return e * (1.0 - (1.0 - k / e) ** max(batch, 0))


def kv_bytes_per_token(model: ModelArch, kv_dtype: KVDtype) -> float:
    """K and V for one token across all layers: 2 x layers x kv_heads x head_dim x dtype bytes."""
    return 2 * model.num_layers * model.num_kv_heads * model.head_dim * kv_dtype.bytes


def decode_step_bytes(
    model: ModelArch, fmt: WeightFormat, kv_dtype: KVDtype, batch: int, context: float
) -> StepBytes:
    """Bytes one decode step streams for `batch` sequences holding `context` tokens each.

    The input embedding table is only gathered (batch rows), so it is not counted; the LM head
    is read whole. Each running sequence's whole KV cache is read once.
    """
    if batch < 1 or context < 0:
        raise ValueError("batch must be >= 1 and context >= 0")
    layers = model.num_layers * _layer_bytes(model, fmt, experts_touched(model, batch))
    weights = layers + model.hidden_size * fmt.other_bits / 8
    head = _lm_head_bytes(model, fmt)
    kv = batch * context * kv_bytes_per_token(model, kv_dtype)
    return StepBytes(weights, head, kv, weights + head + kv)


def _matmul_params_per_token(model: ModelArch) -> int:
    """Parameters each token multiplies through: active layers plus the LM head."""
    return (
        model.params_active
        - model.params_embedding
        + (model.params_lm_head if model.tie_word_embeddings else 0)
    )


def _attention_flops_per_pair(model: ModelArch) -> float:
    """FLOPs for one (query token, cached key) pair over all layers: QK^T and AV."""
    return 4.0 * model.num_layers * model.num_attention_heads * model.head_dim


def decode_step_flops(model: ModelArch, batch: int, context: float) -> float:
    """2 x active parameters x batch, plus attention over `context` cached tokens each."""
    return batch * (
        2.0 * _matmul_params_per_token(model) + _attention_flops_per_pair(model) * context
    )


def prefill_flops(model: ModelArch, prompt_tokens: int, context_before: int = 0) -> float:
    """FLOPs to prefill `prompt_tokens` new tokens after `context_before` cached ones (causal).

    The LM head runs for one position only: a server samples from the last prompt token's
    logits and drops the rest (vLLM gathers the sampled positions before the head), so a
    1,000-token prompt pays the 545 M-parameter Qwen2.5-7B head once, not 1,000 times.
    """
    p = prompt_tokens
    pairs = p * context_before + p * (p + 1) / 2  # token i attends to everything before it
    head = model.params_lm_head
    body = _matmul_params_per_token(model) - head
    return 2.0 * (body * p + head * min(p, 1)) + _attention_flops_per_pair(model) * pairs


def peak_flops(gpu: GPU, fmt: WeightFormat) -> float:
    """The tensor rate a format's matmuls run at; weight-only formats run at 16-bit rate.

    A GPU without FP8 or INT8 tensor cores runs those checkpoints weight-only (vLLM's Marlin
    kernels on Ampere), so it falls back to its BF16/FP16 rate.
    """
    if fmt.compute == "fp8" and gpu.flops_dense_fp8:
        return gpu.flops_dense_fp8
    if fmt.compute == "int8" and gpu.ops_dense_int8:
        return gpu.ops_dense_int8
    return gpu.flops_dense_bf16


def decode_floor(
    gpu: GPU,
    model: ModelArch,
    fmt: WeightFormat,
    kv_dtype: KVDtype,
    batch: int = 1,
    context: float = 0,
) -> Floor:
    """The decode-step floor at batch b and context L: max(bytes / bandwidth, FLOPs / peak)."""
    step = decode_step_bytes(model, fmt, kv_dtype, batch, context)
    memory_s = step.total_bytes / gpu.bandwidth_bytes_per_s
    compute_s = decode_step_flops(model, batch, context) / peak_flops(gpu, fmt)
    bound = "compute" if compute_s > memory_s else "memory"
    return Floor(max(memory_s, compute_s), memory_s, compute_s, bound)


def prefill_floor(
    gpu: GPU, model: ModelArch, fmt: WeightFormat, prompt_tokens: int, context_before: int = 0
) -> Floor:
    """The prefill floor: all weights once and the prompt's FLOPs, whichever takes longer."""
    memory_s = (
        decode_step_bytes(model, fmt, _NO_KV, max(prompt_tokens, 1), 0).total_bytes
        / gpu.bandwidth_bytes_per_s
    )
    compute_s = prefill_flops(model, prompt_tokens, context_before) / peak_flops(gpu, fmt)
    bound = "compute" if compute_s > memory_s else "memory"
    return Floor(max(memory_s, compute_s), memory_s, compute_s, bound)


_NO_KV = KVDtype(id="none", name="none", bytes=0.0, source="prefill reads no earlier KV here")


def mbu(step_bytes: float, step_seconds: float, gpu: GPU) -> float:
    """Model bandwidth utilisation: (bytes per step / measured step time) / peak bandwidth."""
    if step_seconds <= 0:
        raise ValueError("a measured time must be positive")
    return step_bytes / step_seconds / gpu.bandwidth_bytes_per_s


def mfu(flops: float, seconds: float, gpu: GPU, fmt: WeightFormat) -> float:
    """Model FLOPs utilisation: achieved FLOP/s over the format's peak tensor rate."""
    if seconds <= 0:
        raise ValueError("a measured time must be positive")
    return flops / seconds / peak_flops(gpu, fmt)


def ridge_point(gpu: GPU, fmt: WeightFormat) -> float:
    """Arithmetic intensity (FLOP per byte) where the roofline turns from memory to compute."""
    return peak_flops(gpu, fmt) / gpu.bandwidth_bytes_per_s


def arithmetic_intensity(
    model: ModelArch, fmt: WeightFormat, kv_dtype: KVDtype, batch: int, context: float
) -> float:
    """FLOPs per byte of one decode step."""
    step = decode_step_bytes(model, fmt, kv_dtype, batch, context)
    return decode_step_flops(model, batch, context) / step.total_bytes
