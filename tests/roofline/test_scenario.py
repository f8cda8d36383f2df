"""Scenario: what-if rows, gains and floor curve, checked by hand (a point's floor and MBU:
tests/bench/results/test_roofline_results.py)."""

import pytest

from app.roofline.scenario import Scenario

REF = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16", "kv_dtype": "fp16"}


def test_what_if_formats_on_reference_gpu():
    s = Scenario.from_ids(**REF, context=0)
    rows = {r.fmt.id: r for r in s.what_if_formats()}
    assert rows["bf16"].floor_ms == pytest.approx(15.1082, abs=1e-4)
    assert rows["bf16"].tok_s == pytest.approx(66.19, abs=0.01)  # 1000 / 15.1082
    assert rows["bf16"].kv_tokens == 84_896
    # AWQ: 4,480,752,640 B / 936e9 = 4.7871 ms; 15.1082 / 4.7871 = 3.156x
    assert rows["awq-int4"].floor_ms == pytest.approx(4.7871, abs=1e-4)
    assert rows["awq-int4"].speedup == pytest.approx(3.156, abs=1e-3)


def test_what_if_gpus_sorted_and_fit():
    s = Scenario.from_ids("rtx3090", "qwen2.5-72b", "bf16", "fp16", 512)
    rows = s.what_if_gpus()
    floors = [r.floor_ms for r in rows]
    assert floors == sorted(floors)
    by_id = {r.gpu.id: r for r in rows}
    assert by_id["rtx3090"].kv_tokens == 0  # 145 GB of weights on a 24 GB card
    assert by_id["mi300x"].kv_tokens > 0
    assert rows[0].gpu.id == "b200"  # 8 TB/s is the fastest memory in the catalogue


def test_floor_curve_flat_then_rising():
    s = Scenario.from_ids(**REF, context=512)
    curve = dict(s.floor_curve())
    assert curve[1] == pytest.approx(15.1395, abs=1e-4)
    # batch 64: (14,141,238,272 + 64*512*57,344) / 936e9 = 17.1157 ms, still memory-bound
    assert curve[64] == pytest.approx(17.1157, abs=1e-4)
    # batch 512 is compute-bound: 512 * (14,141,238,272 + 401,408*512) / 71e12 = 103.458 ms
    assert curve[512] == pytest.approx(103.458, abs=1e-3)
    assert s.max_batch() == 165  # 5306 blocks // 32 blocks per 512-token sequence
