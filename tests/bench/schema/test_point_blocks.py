"""The typed blocks of a point file: tolerant for files, strict for the event stream."""

from __future__ import annotations

import json

import pytest

from app.bench.metrics.conversations import conversation_figures, conversation_rows
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


# As a multi-turn sweep on the simulator wrote it (tpotbench sweep --multi-turn, 6 sessions).
CONVERSATIONS = {
    "sessions": 6,
    "turns_planned": 18,
    "turns_completed": 18,
    "sessions_with_failure": 0,
    "mean_turns_completed": 3.0,
    "think_time_s": {"mean": 0.0, "stddev": 0.0},
    "request_rate_means": "sessions started per second",
    "first_turns": 6,
    "later_turns": 12,
    "ttft_first_turn_ms": {"mean": 88.5, "median": 92.2, "std": 30.4, "p50": 92.2, "p99": 130.1},
    "ttft_later_turns_ms": {"mean": 39.7, "median": 39.6, "std": 6.5, "p50": 39.6, "p99": 54.3},
    "prefix_cache_hit_rate_first_turn": 0.0,
    "prefix_cache_hit_rate_later_turns": 0.8946684005201561,
    "history_share": 0.7523398128149748,
}
CEILING = {
    "streams": 256,
    "ceiling": 128,
    "ceiling_at_least": True,
    "ratio": 2.0,
    "workers": 0,
    "measured": "2026-12-01T10:00:00+00:00",
}


def test_conversation_and_ceiling_blocks_read_typed_and_write_back_the_same() -> None:
    blocks = point_blocks({"conversations": CONVERSATIONS, "client_ceiling": CEILING})
    assert blocks.conversations is not None and blocks.client_ceiling is not None
    assert blocks.conversations.think_time_s is not None
    assert blocks.conversations.think_time_s.stddev == 0.0
    assert blocks.conversations.ttft_later_turns_ms == CONVERSATIONS["ttft_later_turns_ms"]
    assert blocks.client_ceiling.ceiling_at_least is True
    assert json.dumps(to_json_obj(blocks.conversations)) == json.dumps(CONVERSATIONS)
    assert json.dumps(to_json_obj(blocks.client_ceiling)) == json.dumps(CEILING)


def test_conversation_figures_read_the_typed_block() -> None:
    blocks = point_blocks({"conversations": CONVERSATIONS})
    assert conversation_figures(blocks) == {"ttft_first_turn_ms": 88.5, "ttft_later_turns_ms": 39.7}
    rows = conversation_rows(blocks)
    assert rows[0] == ("Sessions:", "6 (18 turns)", "{:<10}")
    assert ("Prompt cached, later turns:", "89.5%", "{:<10}") in rows
    # A file whose conversations block is of the wrong kind: no rows, no figures, no error.
    odd = point_blocks({"conversations": "six"})
    assert conversation_rows(odd) == []
    assert conversation_figures(odd) == {"ttft_first_turn_ms": None, "ttft_later_turns_ms": None}
