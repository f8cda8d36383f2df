"""Mooncake traces: JSON lines of `timestamp` (ms), `input_length`, `output_length` and
`hash_ids`, the format of the Mooncake FAST'25 traces that AIPerf (`mooncake_trace`), vLLM's
timed traces and SGLang replay.

Each hash id stands for one block of BLOCK_SIZE prompt tokens and, by the format's
convention, for everything before it: two requests whose `hash_ids` start alike share that
much prompt. The prompts are synthesised so that this holds token for token (the same hash
id always becomes the same words), so a server's prefix cache hits where the trace says.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.bench.datasets.prompts import (
    DatasetError,
    SampleRequest,
    VocabTokenizer,
    parse_json,
    read_text,
)
from app.bench.datasets.synthetic import FILLER_WORDS, allowed_ids
from app.bench.schema.point_blocks import TraceBlock
from app.paths import resources_dir

BLOCK_SIZE = 512  # tokens per hash id in the Mooncake traces
# Prompts are built up front, ~6 bytes of text per token (and a list of ids per prompt
# when a tokenizer counts them): 20M tokens stay in the low hundreds of MB.
MAX_TRACE_TOKENS = 20_000_000
# The longest context any served model accepts today is in the low millions of tokens; a
# trace line beyond that is a unit mistake, and one such line alone would fill gigabytes.
MAX_LENGTH = 2_000_000
REQUIRED = ("timestamp", "input_length", "output_length")


@dataclass(frozen=True)
class TraceEntry:
    """One line of a trace: when it is due (ms on the trace's clock) and what it asks."""

    line: int
    timestamp_ms: float
    input_length: int
    output_length: int
    hash_ids: tuple[int, ...] = ()


def default_trace_path() -> Path:
    """The synthetic trace shipped for offline use (benchmarks/make_mooncake_trace.py)."""
    return resources_dir() / "datasets" / "mooncake_synthetic.jsonl"


def _whole(path: Path, number: int, obj: dict[str, Any], key: str, low: int) -> int:
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= MAX_LENGTH:
        raise DatasetError(
            f'{path}: line {number}: "{key}" must be a whole number from {low} to '
            f"{MAX_LENGTH:,}, got {str(value)[:40]}"
        )
    return value


def _entry(path: Path, number: int, obj: Any, block_size: int) -> TraceEntry:
    if not isinstance(obj, dict):
        raise DatasetError(
            f"{path}: line {number}: expected an object with "
            f"{', '.join(REQUIRED)} and hash_ids, found a {type(obj).__name__}"
        )
    for key in REQUIRED:
        if key not in obj:
            raise DatasetError(f'{path}: line {number}: no "{key}" field')
    stamp = obj["timestamp"]
    if not isinstance(stamp, int | float) or isinstance(stamp, bool) or not 0 <= stamp < math.inf:
        raise DatasetError(
            f'{path}: line {number}: "timestamp" must be milliseconds, 0 or more, got '
            f"{str(stamp)[:40]}"
        )
    input_length = _whole(path, number, obj, "input_length", 1)
    output_length = _whole(path, number, obj, "output_length", 1)
    raw = obj.get("hash_ids", [])
    if not isinstance(raw, list) or not all(
        isinstance(h, int) and not isinstance(h, bool) and h >= 0 for h in raw
    ):
        raise DatasetError(
            f'{path}: line {number}: "hash_ids" must be a list of whole numbers, 0 or more'
        )
    blocks = -(-input_length // block_size)
    if len(raw) > blocks:
        raise DatasetError(
            f'{path}: line {number}: "hash_ids" names {len(raw)} blocks but "input_length" '
            f"{input_length} fills only {blocks} of {block_size} tokens"
        )
    return TraceEntry(number, float(stamp), input_length, output_length, tuple(raw))


def load_trace(
    path: Path, limit: int | None = None, block_size: int = BLOCK_SIZE
) -> list[TraceEntry]:
    """The trace's entries in file order (the first `limit` of them), checked: one
    DatasetError naming the file, line and field for a bad line or an unsorted trace."""
    entries: list[TraceEntry] = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        if limit is not None and len(entries) >= limit:
            break
        entry = _entry(path, number, parse_json(path, line, f"line {number}"), block_size)
        if entries and entry.timestamp_ms < entries[-1].timestamp_ms:
            before = entries[-1]
            raise DatasetError(
                f'{path}: line {number}: "timestamp" {entry.timestamp_ms:g} is before line '
                f"{before.line}'s {before.timestamp_ms:g}; sort the trace by timestamp"
            )
        entries.append(entry)
    if not entries:
        raise DatasetError(f"{path}: the trace has no requests")
    total = sum(e.input_length for e in entries)
    if total > MAX_TRACE_TOKENS:
        raise DatasetError(
            f"{path}: {len(entries):,} requests hold {total:,} prompt tokens, over "
            f"{MAX_TRACE_TOKENS:,} built in memory; replay fewer lines with --num-prompts"
        )
    return entries


def block_lengths(entry: TraceEntry, block_size: int = BLOCK_SIZE) -> list[int]:
    """Tokens of each of the prompt's blocks: full blocks, then the remainder."""
    full, rest = divmod(entry.input_length, block_size)
    return [block_size] * full + ([rest] if rest else [])


class _Blocks:
    """The tokens of each hash id's block, drawn once from a generator seeded by the id:
    filler words (one token each) or, with the served model's tokenizer, token ids."""

    def __init__(self, seed: int, block_size: int, vocab: VocabTokenizer | None) -> None:
        self.seed, self.block_size, self.vocab = seed, block_size, vocab
        self._cache: dict[int, list[Any]] = {}
        self._allowed: np.ndarray | None = None

    def _draw(self, rng: np.random.Generator, length: int) -> list[Any]:
        if self.vocab is None:
            picks = rng.integers(0, len(FILLER_WORDS), size=length)
            return [FILLER_WORDS[int(k)] for k in picks]
        if self._allowed is None:
            self._allowed = allowed_ids(self.vocab)
        return [int(i) for i in self._allowed[rng.integers(0, len(self._allowed), size=length)]]

    def _text(self, tokens: list[Any]) -> str:
        return " ".join(tokens) if self.vocab is None else self.vocab.decode(tokens)

    def shared(self, hash_id: int, length: int) -> str:
        """The first `length` tokens of the hash id's block, as text."""
        tokens = self._cache.get(hash_id)
        if tokens is None:
            rng = np.random.default_rng([self.seed, 0, hash_id])
            tokens = self._cache[hash_id] = self._draw(rng, self.block_size)
        return self._text(tokens[:length])

    def unique(self, line: int, index: int, length: int) -> str:
        # Blocks beyond a line's hash ids belong to that line alone.
        return self._text(self._draw(np.random.default_rng([self.seed, 1, line, index]), length))


def trace_prompt(entry: TraceEntry, blocks: _Blocks, block_size: int = BLOCK_SIZE) -> str:
    """The prompt text of one entry: its blocks in order, a space between them."""
    pieces = []
    for k, length in enumerate(block_lengths(entry, block_size)):
        if k < len(entry.hash_ids):
            pieces.append(blocks.shared(entry.hash_ids[k], length))
        else:
            pieces.append(blocks.unique(entry.line, k, length))
    return " ".join(pieces)


def sample_trace(
    entries: Sequence[TraceEntry],
    *,
    seed: int = 0,
    block_size: int = BLOCK_SIZE,
    vocab: VocabTokenizer | None = None,
    output_len: int | None = None,
) -> list[SampleRequest]:
    """One request per entry, in trace order: `input_length` tokens whose blocks follow the
    hash ids, asking for `output_length` tokens (or `output_len` for all)."""
    blocks = _Blocks(seed, block_size, vocab)
    samples = []
    for i, entry in enumerate(entries):
        prompt = trace_prompt(entry, blocks, block_size)
        # Filler words are one token each; a tokenizer's text is counted as it will be read.
        length = entry.input_length if vocab is None else vocab.count(prompt)
        samples.append(SampleRequest(prompt, length, output_len or entry.output_length, str(i)))
    return samples


def predicted_hit_tokens(entries: Sequence[TraceEntry], block_size: int = BLOCK_SIZE) -> list[int]:
    """Prompt tokens each entry finds in an unbounded prefix cache that holds every earlier
    entry's prompt, as its hash ids say: the leading blocks seen before, each as far as an
    earlier entry had it (a partial last block covers only its own tokens)."""
    seen: dict[int, int] = {}
    hits = []
    for entry in entries:
        lengths = block_lengths(entry, block_size)
        hit = 0
        for h, length in zip(entry.hash_ids, lengths, strict=False):
            cached = seen.get(h, 0)
            hit += min(cached, length)
            if cached < length:
                break
        hits.append(hit)
        for h, length in zip(entry.hash_ids, lengths, strict=False):
            seen[h] = max(seen.get(h, 0), length)
    return hits


def predicted_hit_rate(entries: Sequence[TraceEntry], block_size: int = BLOCK_SIZE) -> float:
    """Share of all prompt tokens an unbounded prefix cache serves (predicted_hit_tokens)."""
    total = sum(e.input_length for e in entries)
    return sum(predicted_hit_tokens(entries, block_size)) / total if total else 0.0


def trace_summary(
    path: Path, entries: Sequence[TraceEntry], speedup: float, replay_span_s: float
) -> TraceBlock:
    """The `trace` block of a replayed point's result: which trace, how fast, and the
    prefix-cache hit rate its hash ids predict (to set beside the measured ones)."""
    span_s = (entries[-1].timestamp_ms - entries[0].timestamp_ms) / 1000.0 if entries else 0.0
    return TraceBlock(
        format="mooncake",
        path=str(path),
        requests=len(entries),
        span_s=round(span_s, 3),
        speedup=speedup,
        replay_span_s=round(replay_span_s, 3),
        block_size=BLOCK_SIZE,
        predicted_hit_rate=round(predicted_hit_rate(entries), 4),
    )
