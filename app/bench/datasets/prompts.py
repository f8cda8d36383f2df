"""Prompts as every dataset hands them to a sweep (SampleRequest), the tokenizers sampling
uses, reading dataset files, and prompt files (text lines or JSONL)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from app import jsonfile

DEFAULT_PROMPTS_OUTPUT_LEN = 256  # vLLM's --custom-output-len default
DATASET_NAMES = ("sharegpt", "random", "prompts", "prefix", "mooncake")
MAX_OUTPUT_LEN = 10_000_000  # more than any served context: a larger output_len is a typo


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


def read_text(path: Path) -> str:
    """A dataset file's text, or a DatasetError naming the file and what is wrong."""
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


def parse_json(path: Path, text: str, where: str = "") -> Any:
    """Parsed JSON, or a DatasetError naming the file (and the line of a JSONL file)."""
    try:
        return jsonfile.loads(text)
    except jsonfile.JSONProblem as exc:
        raise DatasetError(f"{path}: {where + ': ' if where else ''}{exc}") from None


def load_prompts_file(path: Path) -> list[tuple[str, int | None]]:
    """Prompts from a text file (one per non-blank line) or JSONL (`{"prompt": ...}` per line,
    optional integer `output_len`). JSONL is recognised by a first line starting with `{`."""
    lines = read_text(path).splitlines()
    content = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not content:
        raise DatasetError(f"{path}: the prompts file is empty")
    if not content[0][1].lstrip().startswith("{"):
        return [(line, None) for _, line in content]
    prompts: list[tuple[str, int | None]] = []
    for number, line in content:
        obj = parse_json(path, line, f"line {number}")
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
