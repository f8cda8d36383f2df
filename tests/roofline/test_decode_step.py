"""Decode bytes, FLOPs, floors and utilisation against numbers worked out by hand."""

import pytest

from app.roofline.catalog import get_gpu, get_kv_dtype, get_model, get_weight_format
from app.roofline.decode_step import (
    arithmetic_intensity,
    decode_floor,
    decode_step_bytes,
    decode_step_flops,
    experts_touched,
    kv_bytes_per_token,
    mbu,
    mfu,
    prefill_floor,
    prefill_flops,
    ridge_point,
    weight_bytes_resident,
)

# Qwen2.5-7B by hand (config.json: h=3584, I=18944, L=28, 28 q heads, 4 kv heads, d=128,
# V=152064, untied, q/k/v biases):
#   per layer: q 3584*3584 = 12,845,056; k, v 3584*512 = 1,835,008 each; o 12,845,056;
#              MLP 3*3584*18944 = 203,685,888; biases 3584+512+512 = 4,608; 2 norms 7,168
#              -> 233,057,792;  x28 = 6,525,618,176
#   embedding 152064*3584 = 544,997,376; LM head the same; final norm 3,584
#   total 6,525,618,176 + 2*544,997,376 + 3,584 = 7,615,616,512
#   streamed per step in BF16 = (total - embedding) * 2 = 7,070,619,136 * 2 = 14,141,238,272 B
#   floor = 14,141,238,272 / 936e9 = 15.1082 ms;  MBU at 19.7 ms = 15.1082 / 19.7 = 76.69 %
QWEN7_TOTAL = 7_615_616_512
QWEN7_STEP_BF16 = 14_141_238_272
QWEN7_LM_HEAD_BF16 = 1_089_994_752


@pytest.fixture
def ref():
    return (
        get_gpu("rtx3090"),
        get_model("qwen2.5-7b"),
        get_weight_format("bf16"),
        get_kv_dtype("fp16"),
    )


def test_reference_params_and_bytes(ref):
    _, model, bf16, kv = ref
    assert model.params_total == QWEN7_TOTAL
    assert model.params_embedding == 544_997_376
    step = decode_step_bytes(model, bf16, kv, batch=1, context=0)
    assert step.total_bytes == QWEN7_STEP_BF16
    assert step.lm_head_bytes == QWEN7_LM_HEAD_BF16
    assert step.kv_bytes == 0
    assert weight_bytes_resident(model, bf16) == 2 * QWEN7_TOTAL  # 15,231,233,024 B


def test_reference_floor_is_15_1_ms_and_mbu_at_19_7_ms(ref):
    gpu, model, bf16, kv = ref
    floor = decode_floor(gpu, model, bf16, kv, batch=1, context=0)
    assert floor.bound == "memory"
    assert floor.seconds == pytest.approx(0.0151082, abs=1e-7)
    step = decode_step_bytes(model, bf16, kv, 1, 0)
    assert mbu(step.total_bytes, 0.0197, gpu) == pytest.approx(0.76691, abs=1e-5)


def test_kv_bytes_per_token_and_context(ref):
    gpu, model, bf16, kv = ref
    # 2 * 28 layers * 4 kv heads * 128 * 2 bytes = 57,344 B per token
    assert kv_bytes_per_token(model, kv) == 57_344
    assert kv_bytes_per_token(model, get_kv_dtype("fp8")) == 28_672
    step = decode_step_bytes(model, bf16, kv, batch=4, context=512)
    assert step.kv_bytes == 4 * 512 * 57_344  # 117,440,512
    # context 512, batch 1: (14,141,238,272 + 29,360,128) / 936e9 = 15.1395 ms
    assert decode_floor(gpu, model, bf16, kv, 1, 512).seconds == pytest.approx(0.0151395, abs=1e-7)


def test_awq_int4_reference_case(ref):
    gpu, model, _, kv = ref
    awq = get_weight_format("awq-int4")
    # linear weights 6,525,618,176 - 28*(4,608 + 7,168) = 6,525,288,448 params at 4 bits
    #   = 3,262,644,224 B; every in-dimension (3584, 18944) divides by 128, so there are
    #   6,525,288,448 / 128 = 50,978,816 groups, each an FP16 scale + 4-bit zero = 2.5 B
    #   = 127,447,040 B; norms and biases stay 16-bit: 28*11,776*2 + 3,584*2 = 666,624 B;
    # LM head stays FP16: 1,089,994,752 B. Total 4,480,752,640 B (4.156 bits per linear weight)
    step = decode_step_bytes(model, awq, kv, 1, 0)
    assert step.lm_head_bytes == QWEN7_LM_HEAD_BF16
    assert step.weights_bytes == 3_262_644_224 + 127_447_040 + 666_624  # 3,390,757,888
    assert step.total_bytes == 4_480_752_640
    floor = decode_floor(gpu, model, awq, kv, 1, 0)
    # 4,480,752,640 / 936e9 = 4.7871 ms: the floor drops to 31.7 % of BF16 (the measured
    # TPOT in the field guide's plan only halves because int4 kernels reach a lower MBU)
    assert floor.seconds == pytest.approx(0.0047871, abs=1e-7)
    assert floor.seconds / 0.0151082 == pytest.approx(0.3169, abs=1e-3)


def test_gguf_formats_bits_per_weight(ref):
    _, model, _, kv = ref
    q8 = get_weight_format("q8_0")
    assert q8.bytes_per_param == pytest.approx(8.5 / 8)
    q4 = get_weight_format("q4_k_m")
    assert q4.bytes_per_param == pytest.approx(4.85 / 8)
    step = decode_step_bytes(model, q8, kv, 1, 0)
    # Q8_0 quantises the output too: 544,997,376 * 8.5 / 8 = 579,059,712 B
    assert step.lm_head_bytes == 579_059_712


def test_h100_llama_70b_fp8():
    gpu = get_gpu("h100-sxm")
    model = get_model("llama-3.1-70b")
    fp8 = get_weight_format("fp8")
    kv = get_kv_dtype("fp8")
    # Llama 3.1 70B: L=80, h=8192, I=28672, 64 q / 8 kv heads of 128, V=128256, untied
    #   per layer: q 67,108,864 + k,v 2*8,388,608 + o 67,108,864 + MLP 3*234,881,024
    #              = 855,638,016 linear weights, 1 byte each, + per-channel FP32 scales
    #              (8192+1024+1024+8192+28672+28672+8192 = 83,968 channels * 4 = 335,872 B)
    #              + 2 norms * 8192 * 2 B = 32,768 B -> 856,006,656 B;  x80 = 68,480,532,480
    #   final norm 16,384 B; LM head 128256*8192*2 = 2,101,346,304 B (kept BF16)
    #   total 70,581,895,168 B / 3.35e12 = 21.069 ms at batch 1
    step = decode_step_bytes(model, fp8, kv, 1, 0)
    assert step.total_bytes == 70_581_895_168
    floor = decode_floor(gpu, model, fp8, kv, 1, 0)
    assert floor.seconds == pytest.approx(0.021069, abs=1e-6)
    assert floor.bound == "memory"
    # ridge: 1978.9e12 FP8 FLOP/s / 3.35e12 B/s = 590.7 FLOP per byte
    assert ridge_point(gpu, fp8) == pytest.approx(590.72, abs=0.01)


def test_compute_bound_at_large_batch(ref):
    gpu, model, bf16, kv = ref
    # FLOPs per token = 2 * (7,615,616,512 - 544,997,376) = 14,141,238,272; at batch 1024 and
    # context 0 that is 1.448e16 FLOP / 71e12 = 203.9 ms, above the 15.1 ms memory time
    assert decode_step_flops(model, 1, 0) == 14_141_238_272
    floor = decode_floor(gpu, model, bf16, kv, 1024, 0)
    assert floor.bound == "compute"
    assert floor.seconds == pytest.approx(0.20395, abs=1e-5)
    # attention adds 4 * 28 * 28 * 128 = 401,408 FLOPs per cached token per sequence
    assert decode_step_flops(model, 2, 100) == 2 * (14_141_238_272 + 40_140_800)


def test_prefill_and_ridge(ref):
    gpu, model, bf16, _ = ref
    # 1000 prompt tokens: the layers (6,525,621,760 params) for every token, the LM head
    # (544,997,376) for the last one only, attention 401,408 * 1000*1001/2 = 1.3253e16 FLOP
    assert prefill_flops(model, 1000) == (
        2 * 6_525_621_760 * 1000 + 2 * 544_997_376 + 401_408 * 500_500
    )
    assert prefill_flops(model, 1) == decode_step_flops(model, 1, 0) + 401_408
    pf = prefill_floor(gpu, model, bf16, 1000)
    assert pf.bound == "compute"
    assert pf.seconds == pytest.approx(0.18666, abs=1e-5)  # 1.32532e16 / 71e12
    assert ridge_point(gpu, bf16) == pytest.approx(75.85, abs=0.01)  # 71e12 / 936e9
    # a batch-1 step does ~1 FLOP per byte: deep in the memory-bound region
    assert arithmetic_intensity(model, bf16, get_kv_dtype("fp16"), 1, 0) == pytest.approx(1.0)


def test_mfu_and_bad_times(ref):
    gpu, model, bf16, _ = ref
    # 50 tok/s at batch 1 -> 50 * 14,141,238,272 FLOP/s = 7.07e11 / 71e12 = 0.9959 %
    assert mfu(14_141_238_272 * 50, 1.0, gpu, bf16) == pytest.approx(0.009959, abs=1e-6)
    with pytest.raises(ValueError):
        mbu(1.0, 0.0, gpu)
    with pytest.raises(ValueError):
        decode_step_bytes(model, bf16, get_kv_dtype("fp16"), 0, 0)


def test_moe_touches_only_routed_experts():
    model = get_model("qwen3-30b-a3b")
    bf16 = get_weight_format("bf16")
    kv = get_kv_dtype("bf16")
    assert experts_touched(model, 1) == 8
    # 128 experts, 8 per token, batch 64: 128 * (1 - (120/128)^64) = 125.94 experts per layer
    assert experts_touched(model, 64) == pytest.approx(125.94, abs=0.01)
    one = decode_step_bytes(model, bf16, kv, 1, 0).total_bytes
    # active 3,353,... params: streamed = 2 * (active - embedding), ~6.08 GB, not 61 GB
    expected = 2 * (model.params_active - model.params_embedding)
    assert one == expected
    assert 6.0e9 < one < 6.2e9


def test_h100_reference_model_bf16(ref):
    _, model, bf16, kv = ref
    gpu = get_gpu("h100-sxm")
    # 14,141,238,272 B / 3.35e12 B/s = 4.2213 ms; ridge 989.4e12 / 3.35e12 = 295.3 FLOP/B
    floor = decode_floor(gpu, model, bf16, kv, 1, 0)
    assert floor.seconds == pytest.approx(0.0042213, abs=1e-7)
    assert ridge_point(gpu, bf16) == pytest.approx(295.34, abs=0.01)
    # batch 256, context 0: 256 * 14,141,238,272 FLOP / 989.4e12 = 3.659 ms < 4.221 ms memory
    assert decode_floor(gpu, model, bf16, kv, 256, 0).bound == "memory"
    # batch 512: 7.317 ms of compute > 4.221 ms
    assert decode_floor(gpu, model, bf16, kv, 512, 0).seconds == pytest.approx(0.0073170, abs=1e-6)
