"""The multi-turn dataset: the shipped synthetic file, both file formats, pairing, the context
limit, seeded sampling and the lines bad input gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.bench.datasets.conversations import (
    Turn,
    default_conversations_path,
    load_conversations,
    sample_conversations,
)
from app.bench.datasets.prompts import DatasetError
from app.bench.datasets.sharegpt import default_sharegpt_path
from app.sim import dataset, multiturn_dataset
from app.sim.textgen import count_tokens


class Words:
    def count(self, text: str) -> int:
        return count_tokens(text)


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_shipped_file_is_what_the_generator_makes_and_every_session_fits() -> None:
    path = default_conversations_path()
    assert path.read_text(encoding="utf-8") == dataset.dump(multiturn_dataset.build_dataset())
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
