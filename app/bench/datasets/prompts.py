"""Benchmark prompts: ShareGPT JSON, random lengths and prompt files, sampled like vLLM."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from app import jsonfile
from app.paths import resources_dir

# vLLM's ShareGPT pruning (benchmarks/datasets.py is_valid_sequence), kept identical so the same
# file and seed give the same prompts.
MIN_SEQUENCE_LEN = 4
MAX_PROMPT_LEN = 1024
MAX_TOTAL_LEN = 2048
DEFAULT_RANDOM_INPUT_LEN = 1024
DEFAULT_RANDOM_OUTPUT_LEN = 128
DEFAULT_PROMPTS_OUTPUT_LEN = 256  # vLLM's --custom-output-len default
DATASET_NAMES = ("sharegpt", "random", "prompts", "prefix", "mooncake")
# vLLM's prefix_repetition defaults (--prefix-repetition-*)
DEFAULT_PREFIX_LEN = 256
DEFAULT_SUFFIX_LEN = 256
DEFAULT_NUM_PREFIXES = 10
DEFAULT_PREFIX_OUTPUT_LEN = 128
MAX_OUTPUT_LEN = 10_000_000  # more than any served context: a larger output_len is a typo

# Short, common English words: each is a single token in the usual BPE vocabularies, so a
# random prompt built from them without a tokenizer lands near the requested length.
_FILLER_TEXT = """
the of and to in is that it for on with as was at by be this from or an are not but have
one all were can there when we which their if will each about how up out them then she
many some so these would other into has more her two like him see time could no make
than first been its who now people my made over did down only way find use may water
long little very after words called just where most know get through back much go good
new write our me man too any day same right look think also around another came come
work three word must because does part even place well such here take why things help
put years
"""
_FILLER_WORDS: tuple[str, ...] = tuple(_FILLER_TEXT.split())


class DatasetError(ValueError):
    """A dataset file or option is unusable; the message names the file, entry and problem."""


@dataclass(frozen=True)
class SampleRequest:
    """One prompt to send: text, its length in tokens, and how many tokens to ask for."""

    prompt: str
    prompt_len: int
    expected_output_len: int
    request_id: str


class PromptTokenizer(Protocol):
    """What sampling needs from a tokenizer (app.bench.http.tokens provides one)."""

    def count(self, text: str) -> int: ...


class VocabTokenizer(PromptTokenizer, Protocol):
    """A real tokenizer, needed to build random prompts of an exact token length."""

    vocab_size: int
    special_ids: frozenset[int]

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: Sequence[int]) -> str: ...


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


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(f"{path}: dataset file not found") from None
    except IsADirectoryError:
        raise DatasetError(f"{path}: is a folder; give the dataset file itself") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc.strerror})") from None


def _parse_json(path: Path, text: str, where: str = "") -> Any:
    """Parsed JSON, or a DatasetError naming the file (and the line of a JSONL file)."""
    try:
        return jsonfile.loads(text)
    except jsonfile.JSONProblem as exc:
        raise DatasetError(f"{path}: {where + ': ' if where else ''}{exc}") from None


def load_sharegpt_entries(path: Path) -> list[tuple[int, list[Any]]]:
    """(entry index, turns) of every entry with two or more turns, in file order.

    Entries without `conversations` or with fewer than two turns are skipped, as vLLM does.
    The turns' texts are checked only when an entry is sampled (`sharegpt_pair`): vLLM reads
    only those, so a bad entry it would never reach does not stop a run here either.
    """
    data = _parse_json(path, _read_text(path))
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


def random_length_bounds(
    input_len: int, output_len: int, range_ratio: float, num_special_tokens: int = 0
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Inclusive (low, high) bounds for input and output lengths, as vLLM computes them."""
    if not 0.0 <= range_ratio < 1.0:
        raise DatasetError(f"--random-range-ratio must be in [0, 1), got {range_ratio}")
    real_input = max(0, input_len - num_special_tokens)
    input_low = math.floor(real_input * (1 - range_ratio))
    input_high = math.ceil(real_input * (1 + range_ratio))
    output_low = max(math.floor(output_len * (1 - range_ratio)), 1)
    output_high = max(math.ceil(output_len * (1 + range_ratio)), 1)
    if input_low < 1:
        raise DatasetError(
            f"--random-input-len {input_len} with --random-range-ratio {range_ratio} allows "
            "prompts of 0 tokens; raise the length or lower the ratio"
        )
    return (input_low, input_high), (output_low, output_high)


def _filler_prompt(length: int, offset: int) -> str:
    words = len(_FILLER_WORDS)
    return " ".join(_FILLER_WORDS[(offset + k) % words] for k in range(length))


def _token_prompt(
    tokenizer: VocabTokenizer, length: int, offset: int, index: int
) -> tuple[str, int]:
    allowed = np.array(sorted(set(range(tokenizer.vocab_size)) - set(tokenizer.special_ids)))
    ids = allowed[(offset + index + np.arange(length)) % len(allowed)].tolist()
    # Decoding and re-encoding can merge or split tokens; truncate so the length never grows.
    prompt = tokenizer.decode(ids)
    ids = tokenizer.encode(prompt)[:length]
    return tokenizer.decode(ids), len(ids)


def sample_random(
    num_requests: int,
    *,
    input_len: int = DEFAULT_RANDOM_INPUT_LEN,
    output_len: int = DEFAULT_RANDOM_OUTPUT_LEN,
    range_ratio: float = 0.0,
    seed: int = 0,
    tokenizer: VocabTokenizer | None = None,
) -> list[SampleRequest]:
    """Random prompts with lengths drawn like vLLM (numpy default_rng(seed), integer-uniform
    in the range-ratio bounds). With a tokenizer the prompt is a token sequence decoded to text
    (exact length); without one it is filler words, about one token each."""
    (in_low, in_high), (out_low, out_high) = random_length_bounds(
        input_len, output_len, range_ratio
    )
    rng = np.random.default_rng(seed)
    input_lens = rng.integers(in_low, in_high + 1, size=num_requests)
    output_lens = rng.integers(out_low, out_high + 1, size=num_requests)
    vocab = tokenizer.vocab_size if tokenizer is not None else len(_FILLER_WORDS)
    offsets = rng.integers(0, vocab, size=num_requests)
    samples = []
    for i in range(num_requests):
        length = int(input_lens[i])
        if tokenizer is not None:
            prompt, length = _token_prompt(tokenizer, length, int(offsets[i]), i)
        else:
            prompt = _filler_prompt(length, int(offsets[i]) + i)
        samples.append(SampleRequest(prompt, length, int(output_lens[i]), str(i)))
    return samples


def _random_piece(
    rng: np.random.Generator, length: int, tokenizer: VocabTokenizer | None
) -> tuple[str, int]:
    """`length` tokens drawn at random: token ids with a tokenizer (exact after a round trip),
    else filler words (about one token each). Random rather than cyclic so no two suffixes
    share a KV block by accident."""
    if tokenizer is None:
        picks = rng.integers(0, len(_FILLER_WORDS), size=length)
        return " ".join(_FILLER_WORDS[int(k)] for k in picks), length
    allowed = np.array(sorted(set(range(tokenizer.vocab_size)) - set(tokenizer.special_ids)))
    ids = allowed[rng.integers(0, len(allowed), size=length)].tolist()
    ids = tokenizer.encode(tokenizer.decode(ids))[:length]
    return tokenizer.decode(ids), len(ids)


def sample_prefix(
    num_requests: int,
    *,
    prefix_len: int = DEFAULT_PREFIX_LEN,
    suffix_len: int = DEFAULT_SUFFIX_LEN,
    num_prefixes: int = DEFAULT_NUM_PREFIXES,
    output_len: int = DEFAULT_PREFIX_OUTPUT_LEN,
    seed: int = 0,
    tokenizer: VocabTokenizer | None = None,
) -> list[SampleRequest]:
    """vLLM's prefix_repetition: `num_prefixes` shared prefixes, each followed by a unique
    suffix in num_requests // num_prefixes prompts (the remainder goes round the prefixes
    again), shuffled with the seed. With a prefix cache every prompt after the first of its
    prefix can reuse the prefix's full KV blocks, so the expected hit rate is
    (N - P) * prefix_len / (N * (prefix_len + suffix_len)), rounded down to whole blocks."""
    if num_prefixes < 1:
        raise DatasetError(
            f"--prefix-repetition-num-prefixes must be at least 1, got {num_prefixes}"
        )
    if prefix_len < 1 or suffix_len < 1:
        raise DatasetError("--prefix-repetition-prefix-len and -suffix-len must be at least 1")
    rng = np.random.default_rng(seed)
    prefixes = [_random_piece(rng, prefix_len, tokenizer) for _ in range(num_prefixes)]
    samples = []
    for i in range(num_requests):
        prefix, plen = prefixes[i % num_prefixes]
        suffix, slen = _random_piece(rng, suffix_len, tokenizer)
        samples.append(SampleRequest(f"{prefix} {suffix}", plen + slen, output_len, str(i)))
    order = rng.permutation(num_requests)
    return [
        SampleRequest(samples[k].prompt, samples[k].prompt_len, output_len, str(i))
        for i, k in enumerate(order)
    ]


def load_prompts_file(path: Path) -> list[tuple[str, int | None]]:
    """Prompts from a text file (one per non-blank line) or JSONL (`{"prompt": ...}` per line,
    optional integer `output_len`). JSONL is recognised by a first line starting with `{`."""
    lines = _read_text(path).splitlines()
    content = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not content:
        raise DatasetError(f"{path}: the prompts file is empty")
    if not content[0][1].lstrip().startswith("{"):
        return [(line, None) for _, line in content]
    prompts: list[tuple[str, int | None]] = []
    for number, line in content:
        obj = _parse_json(path, line, f"line {number}")
        if not isinstance(obj, dict) or not isinstance(obj.get("prompt"), str):
            raise DatasetError(f'{path}: line {number}: expected an object with a "prompt" string')
        out = obj.get("output_len")
        if out is not None and (
            not isinstance(out, int) or isinstance(out, bool) or not 1 <= out <= MAX_OUTPUT_LEN
        ):
            raise DatasetError(
                f'{path}: line {number}: "output_len" must be a positive integer up to '
                f"{MAX_OUTPUT_LEN}"
            )
        prompts.append((obj["prompt"], out))
    return prompts


def sample_prompts_file(
    path: Path,
    num_requests: int,
    tokenizer: PromptTokenizer,
    *,
    output_len: int | None = None,
) -> list[SampleRequest]:
    """The file's prompts in order, repeated from the top if more are needed."""
    prompts = load_prompts_file(path)
    samples = []
    for i in range(num_requests):
        prompt, own_output_len = prompts[i % len(prompts)]
        out = output_len or own_output_len or DEFAULT_PROMPTS_OUTPUT_LEN
        samples.append(SampleRequest(prompt, tokenizer.count(prompt), out, str(i)))
    return samples


@dataclass(frozen=True)
class DatasetOptions:
    """The dataset flags of `tpotbench sweep`, named as in `vllm bench serve`."""

    name: str = "sharegpt"
    path: Path | None = None
    num_prompts: int = 1000
    seed: int = 0
    output_len: int | None = None
    sharegpt_output_len: int | None = None
    random_input_len: int = DEFAULT_RANDOM_INPUT_LEN
    random_output_len: int = DEFAULT_RANDOM_OUTPUT_LEN
    random_range_ratio: float = 0.0
    prefix_len: int = DEFAULT_PREFIX_LEN
    suffix_len: int = DEFAULT_SUFFIX_LEN
    num_prefixes: int = DEFAULT_NUM_PREFIXES
    prefix_output_len: int = DEFAULT_PREFIX_OUTPUT_LEN


class HFVocab:
    """A `tokenizer.json` as a VocabTokenizer, for random prompts of an exact token length."""

    def __init__(self, tokenizer_file: str | Path) -> None:
        from tokenizers import Tokenizer  # only needed for --dataset-name random --tokenizer

        self._tok = Tokenizer.from_file(str(tokenizer_file))
        self.vocab_size = self._tok.get_vocab_size()
        decoder = self._tok.get_added_tokens_decoder()
        self.special_ids = frozenset(i for i, token in decoder.items() if token.special)

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def encode(self, text: str) -> list[int]:
        return self._tok.encode(text, add_special_tokens=False).ids

    def decode(self, ids: Sequence[int]) -> str:
        return self._tok.decode(list(ids), skip_special_tokens=False)


def get_samples(
    options: DatasetOptions,
    tokenizer: PromptTokenizer,
    vocab: VocabTokenizer | None = None,
) -> list[SampleRequest]:
    """Sample `options.num_prompts` requests from the chosen dataset; `tokenizer` counts
    prompt tokens, `vocab` (optional) builds exact-length random prompts."""
    if options.num_prompts < 1:
        raise DatasetError(f"--num-prompts must be at least 1, got {options.num_prompts}")
    if options.name == "sharegpt":
        path = options.path or default_sharegpt_path()
        out = options.output_len or options.sharegpt_output_len
        return sample_sharegpt(
            path, options.num_prompts, tokenizer, seed=options.seed, output_len=out
        )
    if options.name == "random":
        if options.path is not None:
            raise DatasetError(
                "--dataset-name random takes no --dataset-path; use sharegpt or prompts for a file"
            )
        return sample_random(
            options.num_prompts,
            input_len=options.random_input_len,
            output_len=options.output_len or options.random_output_len,
            range_ratio=options.random_range_ratio,
            seed=options.seed,
            tokenizer=vocab,
        )
    if options.name == "prefix":
        if options.path is not None:
            raise DatasetError(
                "--dataset-name prefix takes no --dataset-path; it makes its prompts"
            )
        return sample_prefix(
            options.num_prompts,
            prefix_len=options.prefix_len,
            suffix_len=options.suffix_len,
            num_prefixes=options.num_prefixes,
            output_len=options.output_len or options.prefix_output_len,
            seed=options.seed,
            tokenizer=vocab,
        )
    if options.name == "mooncake":
        from app.bench.datasets import mooncake  # it builds on this module

        entries = mooncake.load_trace(
            options.path or mooncake.default_trace_path(), limit=options.num_prompts
        )
        return mooncake.sample_trace(
            entries, seed=options.seed, vocab=vocab, output_len=options.output_len
        )
    if options.name == "prompts":
        if options.path is None:
            raise DatasetError("--dataset-name prompts needs --dataset-path FILE")
        return sample_prompts_file(
            options.path, options.num_prompts, tokenizer, output_len=options.output_len
        )
    raise DatasetError(
        f"unknown dataset {options.name!r}; choose one of {', '.join(DATASET_NAMES)}"
    )
