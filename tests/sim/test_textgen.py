"""Token counting, readable deterministic text, reply-length bounds, the shipped dataset."""

from __future__ import annotations

import json
import random
import statistics

from app.paths import resources_dir
from app.sim.dataset import build_dataset, dump
from app.sim.textgen import (
    WORDS,
    count_chat_tokens,
    count_tokens,
    reply_length,
    words_text,
)


def test_count_tokens_by_hand() -> None:
    assert count_tokens("hi there") == 2
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("internationalization") == 2  # 20 letters, 10 per token
    assert count_tokens("用三句话解释什么是显存带宽。") == 14  # one per CJK character
    assert count_tokens("") == 0


def test_chat_tokens_add_the_template() -> None:
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    assert count_chat_tokens(messages) == 3 + (4 + 2) + (4 + 1)
    parts = [{"role": "user", "content": [{"type": "text", "text": "hi there"}]}]
    assert count_chat_tokens(parts) == 3 + 4 + 2


def test_generated_words_count_as_one_token_each() -> None:
    assert max(len(w) for w in WORDS) <= 10
    text = words_text(3, 50)
    assert count_tokens(text) == 50
    assert words_text(3, 50) == text
    assert words_text(4, 50) != text


def test_reply_length_bounds() -> None:
    rng = random.Random(0)
    for _ in range(2000):
        n, reason = reply_length(
            rng, max_tokens=300, min_tokens=20, ignore_eos=False, median=100, sigma=1.0
        )
        assert 20 <= n <= 300
        assert reason == ("length" if n == 300 else "stop")
    assert reply_length(rng, max_tokens=7, min_tokens=0, ignore_eos=True, median=1, sigma=0) == (
        7,
        "length",
    )
    # min_tokens beyond the natural length: the natural EOS is pushed back to min_tokens
    assert reply_length(rng, max_tokens=50, min_tokens=40, ignore_eos=False, median=5, sigma=0) == (
        40,
        "stop",
    )


def test_shipped_dataset_is_the_generator_output() -> None:
    path = resources_dir() / "datasets" / "sharegpt_synthetic.json"
    shipped = path.read_text(encoding="utf-8")
    assert shipped == dump(build_dataset())


def test_dataset_shape_and_lengths() -> None:
    path = resources_dir() / "datasets" / "sharegpt_synthetic.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert len(data) >= 1000
    prompts, replies = [], []
    for entry in data:
        human, gpt = entry["conversations"]
        assert (human["from"], gpt["from"]) == ("human", "gpt")
        prompts.append(count_tokens(human["value"]))
        replies.append(count_tokens(gpt["value"]))
    assert abs(statistics.mean(prompts) - 247) < 1
    assert abs(statistics.mean(replies) - 212) < 1
    # heavy right tail: the median sits well below the mean, a few replies are very long
    assert statistics.median(prompts) < 0.7 * 247
    assert max(replies) > 5 * 212
    # vLLM's ShareGPT filter keeps every entry
    assert all(
        p >= 4 and r >= 4 and p <= 1024 and p + r <= 2048
        for p, r in zip(prompts, replies, strict=True)
    )
