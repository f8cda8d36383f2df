"""The Pareto plane: the roofline's frontier worked by hand, the measured frontier, points read
from summaries and result files."""

import itertools
import math

import pytest

from app.bench.results.read import point_from_doc
from app.bench.schema.point_doc import read_point_doc
from app.roofline.pareto import (
    HardwarePoint,
    ParetoPoint,
    hardware_frontier,
    hardware_point,
    max_batch,
    measured_point,
    pareto_front,
    point_from_row,
)
from app.roofline.scenario import Scenario


def point_from_summary(label: str, document: dict) -> ParetoPoint | None:
    """The Pareto point of a result document, read as the window and the report read one."""
    row = point_from_doc(read_point_doc(document, strict=False)).row
    return point_from_row(label, row)


# RTX 3090 + Qwen2.5-7B BF16, KV fp16, context 512, from resources/catalog:
#   GPU: 936 GB/s = 936e9 B/s; 71 TFLOPS dense BF16.
#   Model: hidden 3584, intermediate 18944, 28 layers, 28 heads, 4 KV heads, head_dim 128,
#   vocab 152064, untied LM head, q/k/v biases.
# Weights streamed per decode step, BF16 = 2 bytes per parameter:
#   one layer's linears: q 3584x3584 + k 3584x512 + v 3584x512 + o 3584x3584
#     + gate/up/down 3 x 3584x18944 = 25,690,112 + 3,670,016 + 203,685,888 = 233,046,016
#   one layer's other parameters: 2 norms x 3584 + biases (28 + 2 x 4) x 128 = 11,776
#   28 layers x (233,046,016 + 11,776) x 2 B = 13,051,236,352 B, + final norm 3584 x 2 B
#     = 13,051,243,520 B
#   LM head: 152,064 x 3,584 x 2 B = 1,089,994,752 B (the input table is only gathered)
#   KV per sequence: 2 (K, V) x 28 layers x 4 heads x 128 x 2 B x 512 tokens = 29,360,128 B
# Bytes per step at batch b = 14,141,238,272 + b x 29,360,128:
#   b=1:  14,170,598,400 B / 936e9 = 15.139528 ms -> user 66.0523 tok/s, GPU 1 x 66.0523
#   b=8:  14,376,119,296 B / 936e9 = 15.359102 ms -> user 65.1080 tok/s, GPU 8 x 65.1080 = 520.864
#   b=64: 16,020,286,464 B / 936e9 = 17.115691 ms -> user 58.4259 tok/s, GPU 64 x 58.4259 = 3739.26
# Compute never binds here: at b=64, 64 x (2 x 7,070,619,136 parameters multiplied per token
#   + 4 x 28 x 28 x 128 x 512 attention) = 918.19 GFLOP / 71e12 = 12.93 ms < 17.12 ms.
REF = Scenario.from_ids("rtx3090", "qwen2.5-7b", "bf16", "fp16", 512)

HAND = {
    1: (66.05226, 66.05226),
    8: (65.10797, 520.86379),
    64: (58.42592, 3739.25898),
}


@pytest.mark.parametrize("batch", [1, 8, 64])
def test_hardware_point_matches_the_hand_worked_reference(batch: int) -> None:
    user, gpu = HAND[batch]
    point = hardware_point(REF, batch)
    assert point.batch == batch
    assert point.user_tok_s == pytest.approx(user, abs=1e-4)
    assert point.gpu_tok_s == pytest.approx(gpu, abs=1e-3)


def test_two_gpus_double_the_user_rate_and_keep_the_per_gpu_rate() -> None:
    # Ideal tensor parallelism: each GPU streams half the bytes, so the step takes 15.139528 /
    # 2 ms: one user 2 x 66.0523 = 132.1045 tok/s, per GPU still 66.0523 (132.1045 / 2).
    point = hardware_point(REF, 1, gpus=2)
    assert point.user_tok_s == pytest.approx(132.10451, abs=1e-4)
    assert point.gpu_tok_s == pytest.approx(66.05226, abs=1e-4)
    with pytest.raises(ValueError, match="at least 1"):
        hardware_point(REF, 1, gpus=0)


def test_frontier_stops_where_compute_binds_or_the_kv_cache_is_full() -> None:
    # 5306 blocks of 16 tokens (the field guide's vLLM log) / 32 blocks per 512-token sequence
    # = 165.8: 165 sequences.
    assert max_batch(REF) == 165
    # From batch 96 compute binds: b x 14.35 GFLOP / 71 TFLOPS grows with b as fast as the
    # tokens do, so 128 and 165 give no more per GPU (4948.85 tok/s) and less per user.
    frontier = hardware_frontier(REF)
    assert [p.batch for p in frontier] == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96]
    assert frontier[-1].gpu_tok_s == pytest.approx(4948.85, abs=0.01)
    assert all(a.user_tok_s > b.user_tok_s for a, b in itertools.pairwise(frontier))
    assert all(a.gpu_tok_s < b.gpu_tok_s for a, b in itertools.pairwise(frontier))
    # A long context fills the cache first: 32k tokens, 5306 // 2048 blocks = 2 sequences.
    long = Scenario.from_ids("rtx3090", "qwen2.5-7b", "bf16", "fp16", 32768)
    assert [p.batch for p in hardware_frontier(long)] == [1, 2]


def test_two_gpus_hold_more_sequences() -> None:
    # Each 3090 keeps half the weights: the pool gains a whole weight copy (14.2 GB of 24).
    assert max_batch(REF, 2) > 2 * max_batch(REF)


def test_measured_frontier_keeps_the_points_nothing_beats() -> None:
    points = [
        (60.0, 60.0),  # batch 1: most interactive -> on the front
        (55.0, 400.0),  # on the front
        (50.0, 300.0),  # beaten by (55, 400) on both axes
        (40.0, 1500.0),  # on the front
        (20.0, 1400.0),  # beaten by (40, 1500)
        (40.0, 1200.0),  # same x as a better point: beaten
        (math.nan, 2000.0),  # not measured: never on the front
    ]
    assert pareto_front(points) == [3, 1, 0]
    assert pareto_front([]) == []


def test_a_point_needs_a_tpot_and_a_throughput() -> None:
    assert measured_point("x", None, 100.0) is None
    assert measured_point("x", 20.0, 0.0) is None
    # TPOT P50 20 ms -> 50 tok/s per user; 800 tok/s on 2 GPUs -> 400 per GPU.
    p = measured_point("conc 16", 20.0, 800.0, gpus=2)
    assert p is not None and (p.user_tok_s, p.gpu_tok_s) == (50.0, 400.0)
    assert p.hardware is None and p.user_share is None


def test_point_from_a_result_file_with_its_roofline_block() -> None:
    summary = {
        "median_tpot_ms": 19.7,
        "output_throughput": 395.0,
        "tpotbench": {
            "roofline": {
                "gpu_id": "rtx3090",
                "model_id": "qwen2.5-7b",
                "fmt": "bf16",
                "kv_dtype": "fp16",
                "context": 512,
                "batch": 8.0,
            }
        },
    }
    p = point_from_summary("conc 8", summary)
    assert p is not None
    # 1000 / 19.7 = 50.761 tok/s per user; 395 tok/s on one GPU.
    assert p.user_tok_s == pytest.approx(50.76142, abs=1e-4) and p.gpu_tok_s == 395.0
    assert p.hardware == HardwarePoint(8, pytest.approx(65.10797), pytest.approx(520.86379))
    # 50.761 / 65.108 = 0.7797; 395 / 520.864 = 0.7584.
    assert p.user_share == pytest.approx(0.77965, abs=1e-4)
    assert p.gpu_share == pytest.approx(0.75836, abs=1e-4)
    # A vLLM file has no roofline block: the point, without the hardware beside it.
    bare = point_from_summary("vllm", {"median_tpot_ms": 25.0, "output_throughput": 100.0})
    assert bare is not None and bare.hardware is None and bare.user_tok_s == 40.0


def test_points_at_one_place_are_grouped_and_named_together() -> None:
    from app.roofline.pareto import names_together, same_place

    xy = [(50.0, 48.0), (45.0, 170.0), (50.0, 48.0), (40.0, 470.0), (40.0, 470.0)]
    assert same_place(xy) == [[0, 2], [1], [3, 4]]
    assert names_together(["conc 1", "conc 1"]) == "conc 1 ×2"
    assert names_together(["a conc 1", "b conc 1", "a conc 1"], sep="、") == "a conc 1 ×2、b conc 1"
    assert names_together(["conc 4"]) == "conc 4"
