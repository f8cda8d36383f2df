"""The synthetic ShareGPT-format dataset the simulator is calibrated with (deterministic).

Lengths are log-normal (ShareGPT's heavy right tail) and pass vLLM's ShareGPT filter (prompt
and reply >= 4 tokens, prompt <= 1024, prompt + reply <= 2048). The medians are solved so the
means land on the field guide's run: 247 prompt and 212 reply tokens per request. Token counts
are `app.sim.textgen.count_tokens`, exact for this text.

The seed is chosen, not arbitrary. Several calibration figures are order statistics of one
200-prompt sample: a P99 over 200 requests is about the third-worst request (a first-wave
request with a short reply that decodes while the rest of the wave is prefilled), and a run's
duration is set by its longest reply. Between samples of the same length distribution they
vary far more than the bands allow: across vLLM sampling seeds 0-19 the timing model's TPOT
P99 ratio between concurrency 64 and 32 spans 1.5-2.7x (median 1.9x). The field guide's
figures are one such sample of real ShareGPT. This seed is the best of 150 (scored by distance
to the guide's figures in virtual time, `app.sim.replay`) whose default sample (vLLM's seed 0,
first 200) reproduces that run: every band passes, the knee at 2.3x. Other sampling seeds give
other, equally valid runs; tests/sim/test_replay.py pins both facts. The calibration does
not rest on this seed: over sampling seeds 0-4 and the two client tokenizers that count this
text as the model does (the model's own and a 4-characters-a-token estimate) the median of
every banded figure is inside its band, the knee's too (2.0-2.2x). A third, coarser client
tokenizer (3 characters a token) asks for ~1.4x the replies and filters out more long
prompts: a different workload, on which the conc-32 TPOT P99 and the rate-4 req/s leave
their bands (benchmarks/sim_calibration_seeds.py prints all three, and why; tests too).

Regenerate with:  python -m app.sim.dataset resources/datasets/sharegpt_synthetic.json
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.sim.textgen import words_text

DEFAULT_SEED = 126
DEFAULT_ENTRIES = 1000
PROMPT_MEAN, PROMPT_SIGMA = 247.0, 1.25
REPLY_MEAN, REPLY_SIGMA = 212.0, 0.9


def _solve_lengths(z: list[float], sigma: float, target_mean: float, cap: list[int]) -> list[int]:
    """Lengths round(exp(ln m + sigma z)) clipped to [4, cap]; m bisected to hit the mean."""
    lo, hi = math.log(1.0), math.log(4096.0)
    lengths: list[int] = []
    for _ in range(80):
        mid = (lo + hi) / 2
        lengths = [
            min(c, max(4, round(math.exp(mid + sigma * zi)))) for zi, c in zip(z, cap, strict=True)
        ]
        if sum(lengths) / len(lengths) < target_mean:
            lo = mid
        else:
            hi = mid
    return lengths


def build_dataset(seed: int = DEFAULT_SEED, entries: int = DEFAULT_ENTRIES) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    z_prompt = [rng.gauss(0.0, 1.0) for _ in range(entries)]
    z_reply = [rng.gauss(0.0, 1.0) for _ in range(entries)]
    prompts = _solve_lengths(z_prompt, PROMPT_SIGMA, PROMPT_MEAN, [1024] * entries)
    replies = _solve_lengths(z_reply, REPLY_SIGMA, REPLY_MEAN, [2048 - p for p in prompts])
    data = []
    for i, (p, r) in enumerate(zip(prompts, replies, strict=True)):
        data.append(
            {
                "id": f"synthetic-{i:05d}",
                "conversations": [
                    {"from": "human", "value": words_text(seed + 2 * i, p)},
                    {"from": "gpt", "value": words_text(seed + 2 * i + 1, r)},
                ],
            }
        )
    return data


def dump(data: list[dict[str, Any]]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def main(
    argv: list[str],
    build: Callable[[], list[dict[str, Any]]] = build_dataset,
    module: str = "app.sim.dataset",
) -> int:
    """Write the dataset `build` makes to the file named in argv (the multi-turn one too)."""
    if len(argv) != 1:
        print(f"usage: python -m {module} OUTPUT.json", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dump(build()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
