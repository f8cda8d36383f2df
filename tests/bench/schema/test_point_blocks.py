"""The typed blocks of a point file: tolerant for files, strict for the event stream."""

from __future__ import annotations

import pytest

from app.bench.schema.codec import SchemaError, to_json_obj
from app.bench.schema.point_blocks import (
    EMPTY,
    FailureGroup,
    RooflineBlock,
    Spread,
    blocks_of,
    point_blocks,
)

ROOFLINE = {
    "gpu_id": "rtx3090",
    "model_id": "qwen2.5-7b",
    "fmt": "bf16",
    "kv_dtype": "fp16",
    "context": 512,
    "tensor_parallel": 1,
    "batch": 8,
    "batch_source": "concurrency",
    "tpot_p50_ms": 21.5,
    "floor_tpot_ms": 15.1,
    "bytes_per_step": 15_300_000_000,
    "mbu": 0.7,
}


def test_a_file_block_reads_typed() -> None:
    blocks = point_blocks(
        {
            "run_id": "r1",
            "roofline": ROOFLINE,
            "server_metrics": {"schema": 1, "running": {"mean": 7.5, "max": 8}},
            "failures": [{"kind": "http_404", "count": 3, "title": "t", "fix": "f"}],
            "cancelled": True,
        }
    )
    assert blocks.run_id == "r1"
    assert blocks.roofline is not None and blocks.roofline.floor_tpot_ms == 15.1
    assert blocks.roofline.ids == ("rtx3090", "qwen2.5-7b", "bf16", "fp16", 512)
    assert blocks.server_metrics is not None
    assert blocks.server_metrics.running == Spread(7.5, 8)
    assert blocks.failures == (FailureGroup("http_404", 3, "t", "f", ""),)
    assert blocks.cancelled is True


def test_a_file_keeps_what_it_can_read() -> None:
    """A newer writer's key is ignored; an unreadable sub-block is absent, the rest stays."""
    blocks = point_blocks(
        {
            "roofline": {**ROOFLINE, "added_later": {"x": 1}},
            "slo": "not an object",
            "client": {"cpu_share": "high", "loop_lag_ms": None},
            "stamping": [{"kind": "kernel", "requests": 12, "why": "", "extra": True}],
        }
    )
    assert blocks.roofline == RooflineBlock(**ROOFLINE)
    assert blocks.slo is None
    assert blocks.client is None
    assert [s.requests for s in blocks.stamping] == [12]


def test_no_block_is_the_empty_view() -> None:
    assert point_blocks(None) is EMPTY
    assert point_blocks([1, 2]) is EMPTY
    assert blocks_of({"completed": 3}) is EMPTY  # a vLLM file


def test_the_event_stream_is_strict() -> None:
    with pytest.raises(SchemaError, match=r"^tpotbench\.roofline\.batch: must be a number"):
        point_blocks({"roofline": {**ROOFLINE, "batch": "8"}}, strict=True)
    with pytest.raises(SchemaError, match=r"^tpotbench\.roofline\.added_later: unknown field"):
        point_blocks({"roofline": {**ROOFLINE, "added_later": 1}}, strict=True)
    with pytest.raises(SchemaError, match="tpotbench: must be an object"):
        point_blocks("x", strict=True)
    # The block's untyped parts (per-request arrays) are not the typed view's to judge.
    assert point_blocks({"requests": {"ttft_ms": [1.0]}}, strict=True) == EMPTY


def test_a_block_writes_back_in_its_file_order() -> None:
    assert list(to_json_obj(RooflineBlock(**ROOFLINE))) == list(ROOFLINE)


def test_slo_checks_read_as_their_kind() -> None:
    stat = {"slo": "tpot:p99:50", "kind": "stat", "value_ms": None, "limit_ms": 50, "passed": False}
    share = {"slo": "failed_requests", "kind": "failed_share", "value": 0.0, "limit": 0.01}
    slo = point_blocks({"slo": {"passed": False, "checks": [stat, {**share, "passed": True}]}}).slo
    assert slo is not None
    assert [(c.kind, c.measured, c.bound) for c in slo.checks] == [
        ("stat", None, 50),
        ("failed_share", 0.0, 0.01),
    ]
    # Written back as the file held them: each kind with its own keys, in their order.
    assert [to_json_obj(c) for c in slo.checks] == [stat, {**share, "passed": True}]
    # A share check spelled like a stat check is no check: the block is unreadable.
    wrong = {**share, "kind": "stat", "passed": True}
    assert point_blocks({"slo": {"checks": [wrong]}}).slo is None


def test_a_document_read_again_is_read_once_until_a_part_changes() -> None:
    doc = {"tpotbench": {"roofline": dict(ROOFLINE)}}
    first = blocks_of(doc)
    assert blocks_of(doc) is first  # a table asking for several figures of one point
    doc["tpotbench"]["roofline"] = {**ROOFLINE, "batch": 16}
    assert blocks_of(doc).roofline == RooflineBlock(**{**ROOFLINE, "batch": 16})
    doc["tpotbench"]["slo"] = {"passed": True}
    assert blocks_of(doc).slo is not None
