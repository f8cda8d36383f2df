"""Conversations as load against the simulator: each turn resends the history with the replies
the server returned, later turns hit its prefix cache, the concurrency cap holds while
sessions interleave, think time, a failed turn, cancellation."""

from __future__ import annotations

import asyncio
from typing import Any

from app.bench.load.arrivals import LoadState
from app.bench.load.sessions import ThinkTime
from app.sim.textgen import count_chat_tokens
from tests.bench.load.session_runs import make_conversations, run_sessions_on


def test_every_turn_resends_the_history_with_the_replies_the_server_returned(sim) -> None:
    conversations = make_conversations(3, 3)
    outcome, (sent, _) = asyncio.run(
        run_sessions_on(sim.base_url, conversations, max_concurrency=3)
    )
    assert outcome.not_sent == 0 and len(outcome.records) == 9
    assert all(r.ok for r in outcome.records)
    by_turn = {(r.session, r.turn): (r, sent[i][1]) for i, r in enumerate(outcome.records)}
    for s, conv in enumerate(conversations):
        history: list[dict[str, str]] = []
        for t, turn in enumerate(conv.turns):
            record, messages = by_turn[(s, t)]
            history = [*history, {"role": "user", "content": turn.user}]
            assert messages == history
            # the simulator counts the templated history exactly: what it prefilled is it
            assert record.usage["prompt_tokens"] == count_chat_tokens(messages)
            assert record.generated_text  # resent next turn, as the server wrote it
            history.append({"role": "assistant", "content": record.generated_text})


def test_later_turns_hit_the_prefix_cache_only_with_caching_on(make_sim) -> None:
    conversations = make_conversations(2, 3)
    on = make_sim()
    off = make_sim(enable_prefix_caching=False)
    for server, caching in ((on, True), (off, False)):
        outcome, _ = asyncio.run(run_sessions_on(server.base_url, conversations, max_concurrency=1))
        for r in outcome.records:
            if r.turn == 0 or not caching:
                assert not r.cached_tokens  # first turns share nothing; no cache, no hits
            else:
                # at least every full 16-token block of the previous turn's prompt
                previous = next(
                    p for p in outcome.records if (p.session, p.turn) == (r.session, r.turn - 1)
                )
                assert r.cached_tokens >= previous.usage["prompt_tokens"] // 16 * 16


def test_concurrency_caps_requests_and_sessions_interleave_turn_by_turn(sim) -> None:
    conversations = make_conversations(4, 3)
    outcome, (_, peak) = asyncio.run(
        run_sessions_on(sim.base_url, conversations, max_concurrency=2)
    )
    assert peak == 2
    order = [(r.session, r.turn) for r in outcome.records]
    # every session's first turn goes out before any session's third: turn by turn, not
    # session after session
    assert sorted(order[:4]) == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert max(order.index((s, 0)) for s in range(4)) < min(order.index((s, 2)) for s in range(4))
    # a turn that waited for a slot has that wait as slot wait, not in its TTFT
    assert any(r.slot_wait_ns > 0 for r in outcome.records)


def test_think_time_separates_a_reply_from_the_next_turn(sim) -> None:
    conversations = make_conversations(2, 3)
    outcome, _ = asyncio.run(
        run_sessions_on(
            sim.base_url, conversations, think_time=ThinkTime(0.2, 0.0), max_concurrency=4
        )
    )
    done = {(r.session, r.turn): r for r in outcome.records}
    for (s, t), r in done.items():
        if t > 0:
            assert r.send_ns - done[(s, t - 1)].end_ns >= 0.2e9


def test_a_failed_turn_ends_its_session_and_the_rest_count_as_not_sent(make_sim) -> None:
    server = make_sim(faults=["500"], fault_every=2)  # the second request fails
    state = LoadState()
    outcome, _ = asyncio.run(
        run_sessions_on(server.base_url, make_conversations(1, 4), max_concurrency=1, state=state)
    )
    assert [(r.turn, r.ok) for r in outcome.records] == [(0, True), (1, False)]
    assert outcome.not_sent == 2 and state.total == 4 and state.failed == 1


def test_cancel_stops_new_turns(sim) -> None:
    async def go() -> Any:
        cancel = asyncio.Event()
        count = {"n": 0}

        def on_record(index: int, record: Any) -> None:
            count["n"] += 1
            if count["n"] == 2:
                cancel.set()

        return await run_sessions_on(
            sim.base_url,
            make_conversations(1, 5),
            max_concurrency=1,
            cancel=cancel,
            on_record=on_record,
        )

    outcome, _ = asyncio.run(go())
    assert outcome.cancelled and len(outcome.records) == 2 and outcome.not_sent == 3
