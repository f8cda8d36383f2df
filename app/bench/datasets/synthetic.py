"""Prompts made up to a length: vLLM's random dataset and its prefix_repetition (shared
prefixes + unique suffixes), from a tokenizer's vocabulary or, without one, filler words."""

from __future__ import annotations

import math

import numpy as np

from app.bench.datasets.prompts import DatasetError, SampleRequest, VocabTokenizer

DEFAULT_RANDOM_INPUT_LEN = 1024
DEFAULT_RANDOM_OUTPUT_LEN = 128
# vLLM's prefix_repetition defaults (--prefix-repetition-*)
DEFAULT_PREFIX_LEN = 256
DEFAULT_SUFFIX_LEN = 256
DEFAULT_NUM_PREFIXES = 10
DEFAULT_PREFIX_OUTPUT_LEN = 128

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
FILLER_WORDS: tuple[str, ...] = tuple(_FILLER_TEXT.split())


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
    words = len(FILLER_WORDS)
    return " ".join(FILLER_WORDS[(offset + k) % words] for k in range(length))


def allowed_ids(tokenizer: VocabTokenizer) -> np.ndarray:
    """The vocabulary's token ids in order, without its special tokens (never put in a prompt)."""
    special = tokenizer.special_ids
    return np.array([i for i in range(tokenizer.vocab_size) if i not in special])


def _exact_text(tokenizer: VocabTokenizer, ids: list[int], length: int) -> tuple[str, int]:
    # Decoding and re-encoding can merge or split tokens; truncate so the length never grows.
    ids = tokenizer.encode(tokenizer.decode(ids))[:length]
    return tokenizer.decode(ids), len(ids)


def _token_prompt(
    tokenizer: VocabTokenizer, length: int, offset: int, index: int
) -> tuple[str, int]:
    allowed = allowed_ids(tokenizer)
    ids = allowed[(offset + index + np.arange(length)) % len(allowed)].tolist()
    return _exact_text(tokenizer, ids, length)


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
    vocab = tokenizer.vocab_size if tokenizer is not None else len(FILLER_WORDS)
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
        picks = rng.integers(0, len(FILLER_WORDS), size=length)
        return " ".join(FILLER_WORDS[int(k)] for k in picks), length
    allowed = allowed_ids(tokenizer)
    ids = allowed[rng.integers(0, len(allowed), size=length)].tolist()
    return _exact_text(tokenizer, ids, length)


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
