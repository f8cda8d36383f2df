"""Conversations: the multi-turn dataset, sessions against the simulator (history resent with
the replies it returned, think time, concurrency cap, interleaving, failures) and the
first-turn / later-turn figures."""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from app.bench.datasets.conversations import (
    Conversation,
    Turn,
    default_conversations_path,
    load_conversations,
    sample_conversations,
)
from app.bench.datasets.prompts import DatasetError, default_sharegpt_path
from app.bench.http import client as client_mod
from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.stream import RequestSpec, send_request
from app.bench.load.arrivals import LoadState
from app.bench.load.sessions import ThinkTime, run_sessions
from app.bench.metrics.conversations import (
    add_session_columns,
    conversation_block,
    conversation_figures,
)
from app.bench.metrics.point import compute_point_metrics
from app.sim import multiturn_dataset
from app.sim.textgen import count_chat_tokens, count_tokens


class Words:
    def count(self, text: str) -> int:
        return count_tokens(text)


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- the dataset ---------------------------------------------------------------------------


def test_shipped_file_is_what_the_generator_makes_and_every_session_fits() -> None:
    path = default_conversations_path()
    assert path.read_text(encoding="utf-8") == multiturn_dataset.dump(
        multiturn_dataset.build_dataset()
    )
    conversations = load_conversations(path, Words())
    assert len(conversations) == multiturn_dataset.DEFAULT_ENTRIES  # none cut below 2 turns
    raw = json.loads(path.read_text(encoding="utf-8"))
    for conv, entry in zip(conversations, raw, strict=True):
        # nothing cut by the 4,096-token context: every pair of the file is a turn
        assert conv.num_turns == len(entry["conversations"]) // 2 >= 3
        assert conv.turns[0].output_len == count_tokens(entry["conversations"][1]["value"])
    texts = [t.user for c in conversations for t in c.turns]
    assert len(set(texts)) == len(texts)  # no two sessions share text


def test_sharegpt_and_openai_messages_formats_with_system_prompt_and_breaks(
    tmp_path: Path,
) -> None:
    data = [
        {
            "id": "a",
            "conversations": [
                {"from": "system", "value": "be brief"},
                {"from": "gpt", "value": "hello there"},  # an assistant greeting is not asked
                {"from": "human", "value": "one two three"},
                {"from": "gpt", "value": "four five"},
                {"from": "human", "value": "six"},
                {"from": "gpt", "value": "seven eight nine ten"},
                {"from": "human", "value": "dangling"},  # no answer: not a turn
            ],
        },
        {
            "id": 7,
            "messages": [
                {"role": "user", "content": "q one"},
                {"role": "assistant", "content": "a one"},
                {"role": "user", "content": "q two"},
                {"role": "user", "content": "q two again"},  # the alternation breaks here
                {"role": "assistant", "content": "a two"},
            ],
        },
        {
            "id": "c",
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": "a"},
                {"role": "user", "content": "r"},
                {"role": "assistant", "content": "b"},
            ],
        },
        {"id": "no-turns"},
    ]
    found = load_conversations(_write(tmp_path, data), Words())
    # entry 7 keeps one pair only: one turn is not a conversation
    assert [c.conversation_id for c in found] == ["a", "c"]
    a = found[0]
    assert a.system == "be brief"
    assert a.turns == (Turn("one two three", 3, 2), Turn("six", 1, 4))
    fixed = load_conversations(_write(tmp_path, data), Words(), output_len=9, max_turns=2)
    assert all(t.output_len == 9 for c in fixed for t in c.turns)


def test_context_limit_cuts_a_conversation_before_the_turn_that_passes_it(tmp_path: Path) -> None:
    words = " ".join(["word"] * 100)
    data = [{"conversations": [{"from": f, "value": words} for f in ["human", "gpt"] * 5]}]
    path = _write(tmp_path, data)
    # each turn: 100 + 100 tokens + 2 x 4 template tokens = 208
    assert load_conversations(path, Words(), max_context=4 * 208)[0].num_turns == 4
    assert load_conversations(path, Words(), max_context=4 * 208 - 1)[0].num_turns == 3
    assert load_conversations(path, Words(), max_turns=2)[0].num_turns == 2


def test_sampling_is_seeded_without_repeats_and_bad_inputs_say_what_to_do(
    tmp_path: Path,
) -> None:
    a = sample_conversations(None, 10, Words(), seed=1)
    assert a == sample_conversations(None, 10, Words(), seed=1)
    assert a != sample_conversations(None, 10, Words(), seed=2)
    assert len({c.conversation_id for c in a}) == 10
    with pytest.raises(DatasetError, match="fewer than --num-sessions 101; ask for at most 100"):
        sample_conversations(None, 101, Words())
    # the single-turn ShareGPT file has no conversation
    with pytest.raises(DatasetError, match="omit --dataset-path for the shipped one"):
        sample_conversations(default_sharegpt_path(), 1, Words())
    with pytest.raises(DatasetError, match="--max-turns must be at least 2"):
        sample_conversations(None, 1, Words(), max_turns=1)
    with pytest.raises(DatasetError, match=r"entry 0: conversations\[1\] needs"):
        load_conversations(
            _write(tmp_path, [{"conversations": [{"from": "human", "value": "x"}, {"v": 1}]}]),
            Words(),
        )
    with pytest.raises(DatasetError, match="expected a JSON list of conversations"):
        load_conversations(_write(tmp_path, {"conversations": []}), Words())


# -- sessions against the simulator ---------------------------------------------------------


def _conversations(n: int, turns: int, output_len: int = 3) -> list[Conversation]:
    """n sessions of distinct questions long enough to fill several 16-token KV blocks."""
    out = []
    for s in range(n):
        turns_ = tuple(
            Turn(" ".join(f"s{s}t{t}w{k}" for k in range(40)), 40, output_len) for t in range(turns)
        )
        out.append(Conversation(f"c{s}", turns_))
    return out


async def _run(base_url: str, conversations: list[Conversation], **kw: Any) -> tuple[Any, list]:
    resolved = resolve_endpoint(base_url, api="chat")
    sent: list[tuple[int, list[dict[str, str]]]] = []
    peak = {"now": 0, "max": 0}

    def make_spec(messages: list[dict[str, str]], prompt_len: int, max_tokens: int, rid: str):
        return RequestSpec(messages, prompt_len, max_tokens, model="qwen2.5-7b", request_id=rid)

    async with client_mod.make_client(4) as http:
        real = functools.partial(send_request, http, resolved)

        async def send(spec: RequestSpec):
            sent.append((len(sent), spec.prompt))  # type: ignore[arg-type]
            peak["now"] += 1
            peak["max"] = max(peak["max"], peak["now"])
            try:
                return await real(spec)
            finally:
                peak["now"] -= 1

        outcome = await run_sessions(send, conversations, make_spec, **kw)
    return outcome, [sent, peak["max"]]


def test_every_turn_resends_the_history_with_the_replies_the_server_returned(sim) -> None:
    conversations = _conversations(3, 3)
    outcome, (sent, _) = asyncio.run(_run(sim.base_url, conversations, max_concurrency=3))
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
    conversations = _conversations(2, 3)
    on = make_sim()
    off = make_sim(enable_prefix_caching=False)
    for server, caching in ((on, True), (off, False)):
        outcome, _ = asyncio.run(_run(server.base_url, conversations, max_concurrency=1))
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
    conversations = _conversations(4, 3)
    outcome, (_, peak) = asyncio.run(_run(sim.base_url, conversations, max_concurrency=2))
    assert peak == 2
    order = [(r.session, r.turn) for r in outcome.records]
    # every session's first turn goes out before any session's third: turn by turn, not
    # session after session
    assert sorted(order[:4]) == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert max(order.index((s, 0)) for s in range(4)) < min(order.index((s, 2)) for s in range(4))
    # a turn that waited for a slot has that wait as slot wait, not in its TTFT
    assert any(r.slot_wait_ns > 0 for r in outcome.records)


def test_think_time_separates_a_reply_from_the_next_turn(sim) -> None:
    conversations = _conversations(2, 3)
    outcome, _ = asyncio.run(
        _run(sim.base_url, conversations, think_time=ThinkTime(0.2, 0.0), max_concurrency=4)
    )
    done = {(r.session, r.turn): r for r in outcome.records}
    for (s, t), r in done.items():
        if t > 0:
            assert r.send_ns - done[(s, t - 1)].end_ns >= 0.2e9


def test_a_failed_turn_ends_its_session_and_the_rest_count_as_not_sent(make_sim) -> None:
    server = make_sim(faults=["500"], fault_every=2)  # the second request fails
    state = LoadState()
    outcome, _ = asyncio.run(
        _run(server.base_url, _conversations(1, 4), max_concurrency=1, state=state)
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

        return await _run(
            sim.base_url,
            _conversations(1, 5),
            max_concurrency=1,
            cancel=cancel,
            on_record=on_record,
        )

    outcome, _ = asyncio.run(go())
    assert outcome.cancelled and len(outcome.records) == 2 and outcome.not_sent == 3


# -- the figures ----------------------------------------------------------------------------


def test_first_and_later_turn_figures_and_per_request_columns(make_sim) -> None:
    server = make_sim()
    outcome, _ = asyncio.run(_run(server.base_url, _conversations(3, 3), max_concurrency=3))
    metrics = compute_point_metrics(outcome.records, outcome.duration_s)
    block = conversation_block(
        outcome.records,
        metrics,
        sessions=3,
        turns_planned=9,
        think_time_s=(0.0, 0.0),
        percentiles=(50, 99),
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
    requests = {"ok": [True] * 9}
    add_session_columns(requests, outcome.records)
    assert requests["turn"] == [r.turn for r in outcome.records]
    assert sorted(requests["session"]) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    figures = conversation_figures({"conversations": block})
    assert figures["ttft_first_turn_ms"] == block["ttft_first_turn_ms"]["mean"]
    assert conversation_figures({}) == {"ttft_first_turn_ms": None, "ttft_later_turns_ms": None}
