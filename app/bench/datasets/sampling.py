"""Which dataset a sweep samples (DatasetOptions, named as `vllm bench serve`'s flags) and
sampling it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.bench.datasets import mooncake
from app.bench.datasets.prompts import (
    DATASET_NAMES,
    DatasetError,
    PromptTokenizer,
    SampleRequest,
    VocabTokenizer,
    sample_prompts_file,
)
from app.bench.datasets.sharegpt import default_sharegpt_path, sample_sharegpt
from app.bench.datasets.synthetic import (
    DEFAULT_NUM_PREFIXES,
    DEFAULT_PREFIX_LEN,
    DEFAULT_PREFIX_OUTPUT_LEN,
    DEFAULT_RANDOM_INPUT_LEN,
    DEFAULT_RANDOM_OUTPUT_LEN,
    DEFAULT_SUFFIX_LEN,
    sample_prefix,
    sample_random,
)

# The datasets that make their prompts up, and what to say to one given a file.
_MADE_UP = {"random": "use sharegpt or prompts for a file", "prefix": "it makes its prompts"}


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
    made_up = _MADE_UP.get(options.name)
    if made_up is not None and options.path is not None:
        raise DatasetError(f"--dataset-name {options.name} takes no --dataset-path; {made_up}")
    if options.name == "random":
        return sample_random(
            options.num_prompts,
            input_len=options.random_input_len,
            output_len=options.output_len or options.random_output_len,
            range_ratio=options.random_range_ratio,
            seed=options.seed,
            tokenizer=vocab,
        )
    if options.name == "prefix":
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
