"""ShareGPT conversations sampled as `vllm bench serve` samples them (first two turns of an
entry: prompt and reply)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from app.bench.datasets.prompts import (
    DatasetError,
    PromptTokenizer,
    SampleRequest,
    parse_json,
    read_text,
)
from app.paths import resources_dir

# vLLM's ShareGPT pruning (benchmarks/datasets.py is_valid_sequence), kept identical so the same
# file and seed give the same prompts.
MIN_SEQUENCE_LEN = 4
MAX_PROMPT_LEN = 1024
MAX_TOTAL_LEN = 2048


def default_sharegpt_path() -> Path:
    """The synthetic ShareGPT-format file shipped for offline use."""
    return resources_dir() / "datasets" / "sharegpt_synthetic.json"


def is_valid_sequence(prompt_len: int, output_len: int, *, fixed_output_len: bool) -> bool:
    """vLLM's ShareGPT filter: prompt 4..1024 tokens, prompt + output <= 2048."""
    if prompt_len < MIN_SEQUENCE_LEN or prompt_len > MAX_PROMPT_LEN:
        return False
    if not fixed_output_len and output_len < MIN_SEQUENCE_LEN:
        return False
    return prompt_len + output_len <= MAX_TOTAL_LEN


def load_sharegpt_entries(path: Path) -> list[tuple[int, list[Any]]]:
    """(entry index, turns) of every entry with two or more turns, in file order.

    Entries without `conversations` or with fewer than two turns are skipped, as vLLM does.
    The turns' texts are checked only when an entry is sampled (`sharegpt_pair`): vLLM reads
    only those, so a bad entry it would never reach does not stop a run here either.
    """
    data = parse_json(path, read_text(path))
    if not isinstance(data, list):
        raise DatasetError(
            f"{path}: expected a JSON list of ShareGPT entries, found a {type(data).__name__}"
        )
    entries: list[tuple[int, list[Any]]] = []
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise DatasetError(
                f"{path}: entry {index} is a {type(entry).__name__}, expected an object "
                'with "conversations"'
            )
        turns = entry.get("conversations")
        if turns is None:
            continue
        if not isinstance(turns, list):
            raise DatasetError(f'{path}: entry {index}: "conversations" is not a list')
        if len(turns) >= 2:
            entries.append((index, turns))
    if not entries:
        raise DatasetError(f"{path}: no entry has at least two conversation turns")
    return entries


def sharegpt_pair(path: Path, index: int, turns: list[Any]) -> tuple[str, str]:
    """(prompt, reply): the values of an entry's first two turns; DatasetError names the entry."""
    values = []
    for turn_index in (0, 1):
        turn = turns[turn_index]
        value = turn.get("value") if isinstance(turn, dict) else None
        if not isinstance(value, str):
            raise DatasetError(
                f'{path}: entry {index}: conversations[{turn_index}] has no "value" string'
            )
        values.append(value)
    return values[0], values[1]


def _oversample(samples: list[SampleRequest], num_requests: int, seed: int) -> list[SampleRequest]:
    if len(samples) >= num_requests:
        return samples
    rng = random.Random(seed)
    extra = []
    for i in range(num_requests - len(samples)):
        pick = rng.choice(samples)
        extra.append(
            SampleRequest(
                pick.prompt, pick.prompt_len, pick.expected_output_len, str(len(samples) + i)
            )
        )
    return samples + extra


def sample_sharegpt(
    path: Path,
    num_requests: int,
    tokenizer: PromptTokenizer,
    *,
    seed: int = 0,
    output_len: int | None = None,
) -> list[SampleRequest]:
    """vLLM's ShareGPT sampling: shuffle with the seed, keep entries passing the length
    filter until `num_requests`, then oversample with the seed if the file ran short."""
    entries = load_sharegpt_entries(path)
    random.Random(seed).shuffle(entries)
    samples: list[SampleRequest] = []
    for index, turns in entries:
        if len(samples) >= num_requests:
            break
        prompt, completion = sharegpt_pair(path, index, turns)
        prompt_len = tokenizer.count(prompt)
        new_output_len = tokenizer.count(completion) if output_len is None else output_len
        if not is_valid_sequence(
            prompt_len, new_output_len, fixed_output_len=output_len is not None
        ):
            continue
        samples.append(SampleRequest(prompt, prompt_len, new_output_len, str(len(samples))))
    if not samples:
        raise DatasetError(
            f"{path}: no conversation passes vLLM's length filter (prompt {MIN_SEQUENCE_LEN}-"
            f"{MAX_PROMPT_LEN} tokens, prompt + reply <= {MAX_TOTAL_LEN})"
        )
    return _oversample(samples, num_requests, seed)
