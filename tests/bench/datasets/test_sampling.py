"""Choosing and sampling a dataset: dispatch, option errors, the shipped default, and hostile
files named with the entry at fault."""

from pathlib import Path

import pytest

from app.bench.datasets.prompts import DatasetError
from app.bench.datasets.sampling import DatasetOptions, get_samples
from app.bench.datasets.sharegpt import default_sharegpt_path
from tests.bench.datasets.word_counter import WORDS, WordCounter


def test_get_samples_dispatch_and_option_errors(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="takes no --dataset-path"):
        get_samples(DatasetOptions(name="random", path=tmp_path / "x"), WORDS)
    with pytest.raises(DatasetError, match="needs --dataset-path"):
        get_samples(DatasetOptions(name="prompts"), WORDS)
    with pytest.raises(DatasetError, match="--num-prompts must be at least 1"):
        get_samples(DatasetOptions(num_prompts=0), WORDS)
    random = get_samples(
        DatasetOptions(name="random", num_prompts=3, random_input_len=8, output_len=5), WORDS
    )
    assert [(s.prompt_len, s.expected_output_len) for s in random] == [(8, 5)] * 3


@pytest.mark.skipif(not default_sharegpt_path().exists(), reason="synthetic dataset not shipped")
def test_shipped_synthetic_sharegpt_is_the_default() -> None:
    samples = get_samples(DatasetOptions(num_prompts=20, output_len=32), WORDS)
    assert len(samples) == 20
    assert all(s.prompt.strip() and s.expected_output_len == 32 for s in samples)


HOSTILE = [
    ("deep.json", "[" * 100_000 + "]" * 100_000, "deep.json: JSON nested too deeply"),
    (
        "digits.json",
        '[{"conversations": [{"value": "a"}, {"value": ' + "9" * 5000 + "}]}]",
        "digits.json: an integer of 5000 digits at line 1, column 47",
    ),
    ("nan.json", '[{"conversations": NaN}]', "nan.json: NaN is not a JSON number"),
    ("huge.json", '[{"x": 1e400}]', "huge.json: 1e400 is too large for a number"),
    (
        "types.json",
        '[{"conversations": [{"value": ["a"]}, {"value": "b"}]}]',
        'types.json: entry 0: conversations[0] has no "value" string',
    ),
    ("deep.jsonl", '{"prompt": ' + "[" * 100_000 + "]" * 100_000 + "}", "line 1: JSON nested"),
    (
        "digits.jsonl",
        '{"prompt": "a"}\n{"prompt": "b", "output_len": ' + "9" * 5000 + "}",
        "digits.jsonl: line 2: an integer of 5000 digits",
    ),
    (
        "absurd.jsonl",
        '{"prompt": "a", "output_len": 99999999999}',
        'absurd.jsonl: line 1: "output_len" must be a positive integer up to 10000000',
    ),
]


@pytest.mark.parametrize(("name", "text", "message"), HOSTILE)
def test_hostile_dataset_files_name_the_file_and_entry(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    kind = "prompts" if name.endswith(".jsonl") else "sharegpt"
    options = DatasetOptions(name=kind, path=path, num_prompts=2)
    with pytest.raises(DatasetError) as info:
        get_samples(options, WordCounter())
    assert message in str(info.value) and str(info.value).startswith(str(tmp_path))
