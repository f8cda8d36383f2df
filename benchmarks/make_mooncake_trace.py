"""Make the synthetic Mooncake-format trace shipped in resources/datasets/.

    .venv/bin/python benchmarks/make_mooncake_trace.py [--seed 0] [--requests 300] [--output F]

The same seed always writes the same file (tests/bench/test_mooncake.py regenerates it and
compares). Its shape follows what the Mooncake FAST'25 traces show, scaled to the
simulator's 4,096-token context:
- bursty arrivals: a Poisson process whose rate switches between calm (2 req/s) and bursts
  (12 req/s), calm spells of ~15 s and bursts of ~3 s; timestamps in whole milliseconds;
- shared system prompts: four applications with system prompts of 1-3 whole 512-token
  blocks, picked with unequal weights (one request in ten has none);
- conversations: about a third of requests continue a recent one, resending its prompt and
  reply (the full blocks keep their hash ids, the rest is new);
- long-tail lengths: log-normal user text (median 500 tokens) and replies (median 120),
  prompts at most 3,584 tokens and replies at most 512, so every request fits 4,096.
Hash ids are numbered in order of first appearance, as in the Mooncake traces.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BLOCK = 512
MAX_INPUT = 3584
MAX_OUTPUT = 512
APPS_BLOCKS = (2, 1, 3, 1)
APPS_WEIGHTS = (0.4, 0.3, 0.15, 0.15)
NO_SYSTEM_SHARE = 0.1
FOLLOW_UP_SHARE = 0.35
RECENT_SESSIONS = 20
CALM_RATE, BURST_RATE = 2.0, 12.0
CALM_S, BURST_S = 15.0, 3.0
DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / "resources/datasets/mooncake_synthetic.jsonl"


class _Ids:
    def __init__(self) -> None:
        self.next = 0

    def take(self, count: int) -> list[int]:
        ids = list(range(self.next, self.next + count))
        self.next += count
        return ids


def _arrivals(rng: np.random.Generator, count: int) -> list[int]:
    """Whole-millisecond times of a Poisson process whose rate switches calm <-> burst."""
    times: list[int] = []
    t, burst = 0.0, False
    spell_end = rng.exponential(CALM_S)
    while len(times) < count:
        t += rng.exponential(1.0 / (BURST_RATE if burst else CALM_RATE))
        while t > spell_end:
            burst = not burst
            spell_end += rng.exponential(BURST_S if burst else CALM_S)
        times.append(int(t * 1000))
    return [stamp - times[0] for stamp in times]


def _lognormal(rng: np.random.Generator, median: float, sigma: float, low: int, high: int) -> int:
    return int(np.clip(round(median * np.exp(sigma * rng.standard_normal())), low, high))


@dataclass
class _Request:
    input_length: int
    hash_ids: list[int]
    output_length: int = 0


def _follow_up(rng: np.random.Generator, prev: _Request, ids: _Ids) -> _Request | None:
    """The next turn of a conversation: its prompt and reply resent with new text; the
    full blocks keep their hash ids. None when it would not fit the context."""
    length = prev.input_length + prev.output_length + _lognormal(rng, 80, 0.8, 4, 1024)
    if length > MAX_INPUT:
        return None
    kept = prev.hash_ids[: prev.input_length // BLOCK]
    return _Request(length, kept + ids.take(-(-length // BLOCK) - len(kept)))


def make_trace(seed: int = 0, requests: int = 300) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    ids = _Ids()
    app_ids: dict[int, list[int]] = {}
    sessions: list[_Request] = []  # most recent last
    lines = []
    for stamp in _arrivals(rng, requests):
        request: _Request | None = None
        if sessions and rng.random() < FOLLOW_UP_SHARE:
            recent = sessions[-RECENT_SESSIONS:]
            prev = recent[int(rng.integers(len(recent)))]
            request = _follow_up(rng, prev, ids)
            if request is not None:
                sessions.remove(prev)
        if request is None:
            system: list[int] = []
            if rng.random() >= NO_SYSTEM_SHARE:
                app = int(rng.choice(len(APPS_BLOCKS), p=APPS_WEIGHTS))
                if app not in app_ids:
                    app_ids[app] = ids.take(APPS_BLOCKS[app])
                system = app_ids[app]
            user = _lognormal(rng, 500, 0.9, 16, MAX_INPUT - len(system) * BLOCK)
            request = _Request(len(system) * BLOCK + user, system + ids.take(-(-user // BLOCK)))
        request.output_length = _lognormal(rng, 120, 0.7, 8, MAX_OUTPUT)
        sessions.append(request)
        lines.append(
            {
                "timestamp": stamp,
                "input_length": request.input_length,
                "output_length": request.output_length,
                "hash_ids": request.hash_ids,
            }
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    lines = make_trace(args.seed, args.requests)
    args.output.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    span = int(str(lines[-1]["timestamp"])) / 1000
    print(f"wrote {len(lines)} requests over {span:.1f} s to {args.output}")


if __name__ == "__main__":
    main()
