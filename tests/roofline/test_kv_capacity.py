"""KV capacity against the field guide's vLLM log and hand-worked memory budgets."""

import pytest

from app.roofline.catalog import get_gpu, get_kv_dtype, get_model, get_weight_format
from app.roofline.kv_capacity import (
    activation_peak_bytes,
    kv_cache_bytes,
    kv_capacity,
    num_gpu_blocks,
)


def test_reference_case_gives_5306_blocks():
    gpu, model = get_gpu("rtx3090"), get_model("qwen2.5-7b")
    bf16, kv = get_weight_format("bf16"), get_kv_dtype("fp16")
    # 24 GiB * 0.987 visible * 0.85 = 21,619,576,877 B; weights 15,231,233,024 B;
    # activations 2048*(3*18944 + 4*3584)*2 + 256*152064*4*2 = 602,931,200 B;
    # non-torch 916,700,000 B -> 4,868,712,653 B for KV; one block = 16 * 57,344 = 917,504 B
    # -> 5306 blocks (5306.47), 84,896 tokens: the field guide's vLLM log.
    assert activation_peak_bytes(model) == 602_931_200
    assert kv_cache_bytes(gpu, model, bf16, 0.85) == pytest.approx(4_868_712_653, abs=1)
    assert num_gpu_blocks(gpu, model, bf16, kv, 0.85) == 5306
    cap = kv_capacity(gpu, model, bf16, kv, 0.85)
    assert cap.tokens == 84_896
    # at 4096 tokens per request: 5306 / 256 blocks = 20.73 concurrent sequences
    assert cap.concurrency(4096) == pytest.approx(20.727, abs=1e-3)


def test_fp8_kv_doubles_blocks_and_int4_frees_memory():
    gpu, model = get_gpu("rtx3090"), get_model("qwen2.5-7b")
    bf16 = get_weight_format("bf16")
    # FP8 KV: 458,752 B per block -> 4,868,712,653 // 458,752 = 10,612 blocks
    assert num_gpu_blocks(gpu, model, bf16, get_kv_dtype("fp8"), 0.85) == 10_612
    # AWQ resident: 15,231,233,024 - 13,051,243,520 - 1,089,994,752 + 3,390,757,888 (layers)
    # and the FP16 input table + head stay -> 5,570,747,392 B; KV = 21,619,576,877 - that
    # - 1,519,631,200 = 14,529,198,285 B -> 15,835 blocks
    awq = get_weight_format("awq-int4")
    assert num_gpu_blocks(gpu, model, awq, get_kv_dtype("fp16"), 0.85) == 15_835


def test_model_that_does_not_fit_has_zero_blocks():
    gpu, model = get_gpu("rtx3090"), get_model("qwen2.5-72b")
    assert num_gpu_blocks(gpu, model, get_weight_format("bf16"), get_kv_dtype("fp16"), 0.9) == 0


def test_bad_utilisation_is_refused():
    gpu, model = get_gpu("rtx3090"), get_model("qwen2.5-7b")
    with pytest.raises(ValueError, match="gpu_memory_utilization"):
        num_gpu_blocks(gpu, model, get_weight_format("bf16"), get_kv_dtype("fp16"), 1.5)
