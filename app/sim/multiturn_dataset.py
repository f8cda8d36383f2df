"""The synthetic multi-turn ShareGPT-format dataset shipped for offline conversations
(deterministic), the multi-turn sibling of `app.sim.dataset`.

Each entry is one chat session of 3 to 8 user turns: a first question of a few hundred tokens
(it carries the task), short follow-ups, and answers of ShareGPT's reply lengths. Lengths are
log-normal and capped so the longest session's context stays under 4,096 tokens (vLLM's
--max-model-len of the field guide and the simulator's default), so no turn is cut by the
loader. Token counts are `app.sim.textgen.count_tokens`, exact for this text. No two sessions
share text: nothing but a session's own history can hit the prefix cache.

Regenerate with:
    python -m app.sim.multiturn_dataset resources/datasets/sharegpt_multiturn_synthetic.json
"""

from __future__ import annotations

import math
import random
import sys
from typing import Any

from app.sim import dataset
from app.sim.textgen import words_text

DEFAULT_SEED = 15
DEFAULT_ENTRIES = 100
MIN_TURNS, MAX_TURNS = 3, 8
FIRST_MEDIAN, FIRST_SIGMA, FIRST_CAP = 180.0, 0.6, 600
FOLLOW_MEDIAN, FOLLOW_SIGMA, FOLLOW_CAP = 40.0, 0.7, 200
REPLY_MEDIAN, REPLY_SIGMA, REPLY_CAP = 150.0, 0.6, 500
# Under 4,096 with the chat template's tokens (4 per message, 3 for the generation prompt).
CONTEXT_BUDGET = 3_600


def _length(rng: random.Random, median: float, sigma: float, cap: int) -> int:
    return min(cap, max(4, round(math.exp(rng.gauss(math.log(median), sigma)))))


def build_dataset(seed: int = DEFAULT_SEED, entries: int = DEFAULT_ENTRIES) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    data = []
    text_seed = seed * 100_003
    for i in range(entries):
        turns = rng.randint(MIN_TURNS, MAX_TURNS)
        messages: list[dict[str, str]] = []
        context = 3
        for t in range(turns):
            if t == 0:
                question = _length(rng, FIRST_MEDIAN, FIRST_SIGMA, FIRST_CAP)
            else:
                question = _length(rng, FOLLOW_MEDIAN, FOLLOW_SIGMA, FOLLOW_CAP)
            reply = _length(rng, REPLY_MEDIAN, REPLY_SIGMA, REPLY_CAP)
            if context + question + reply + 8 > CONTEXT_BUDGET:
                break
            context += question + reply + 8
            text_seed += 2
            messages.append({"from": "human", "value": words_text(text_seed, question)})
            messages.append({"from": "gpt", "value": words_text(text_seed + 1, reply)})
        data.append({"id": f"synthetic-chat-{i:04d}", "conversations": messages})
    return data


def main(argv: list[str]) -> int:
    return dataset.main(argv, build_dataset, "app.sim.multiturn_dataset")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
