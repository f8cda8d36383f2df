"""First-turn and later-turn figures of a conversation point, and the per-request columns."""

from __future__ import annotations

import asyncio

import pytest

from app.bench.metrics.conversations import (
    conversation_block,
    conversation_figures,
    session_columns,
)
from app.bench.metrics.point import compute_point_metrics
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_blocks import EMPTY, point_blocks
from tests.bench.load.session_runs import make_conversations, run_sessions_on


def test_first_and_later_turn_figures_and_per_request_columns(make_sim) -> None:
    server = make_sim()
    outcome, _ = asyncio.run(
        run_sessions_on(server.base_url, make_conversations(3, 3), max_concurrency=3)
    )
    metrics = compute_point_metrics(outcome.records, outcome.duration_s)
    block = to_json_obj(
        typed := conversation_block(
            outcome.records,
            metrics,
            sessions=3,
            turns_planned=9,
            think_time_s=(0.0, 0.0),
            percentiles=(50, 99),
        )
    )
    first = [r.ttft_s for r in outcome.records if r.turn == 0]
    later = [r.ttft_s for r in outcome.records if r.turn]
    assert block["first_turns"] == 3 and block["later_turns"] == 6
    assert block["turns_completed"] == 9 and block["sessions_with_failure"] == 0
    # vLLM's TTFT (the first message with choices), split by turn
    assert block["ttft_first_turn_ms"]["mean"] == pytest.approx(
        sum(metrics.ttfts[i] for i, r in enumerate(outcome.records) if r.turn == 0) / 3 * 1000
    )
    assert len(first) == 3 and len(later) == 6
    assert block["prefix_cache_hit_rate_first_turn"] == 0.0
    assert block["prefix_cache_hit_rate_later_turns"] > 0.5
    # the server can only have cached what was resent: full 16-token blocks of the history
    cached = sum(r.cached_tokens or 0 for r in outcome.records)
    assert block["history_share"] * metrics.total_input >= cached
    assert block["history_share"] * metrics.total_input - cached <= 16 * 6
    columns = session_columns(outcome.records)
    assert columns.turn == [r.turn for r in outcome.records]
    assert sorted(columns.session) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    figures = conversation_figures(point_blocks({"conversations": block}))
    assert figures["ttft_first_turn_ms"] == block["ttft_first_turn_ms"]["mean"]
    assert point_blocks({"conversations": block}).conversations == typed
    assert conversation_figures(EMPTY) == {"ttft_first_turn_ms": None, "ttft_later_turns_ms": None}
