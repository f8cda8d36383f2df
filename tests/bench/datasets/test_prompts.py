"""Prompt files: text lines or JSONL, and what is wrong with a bad one."""

from pathlib import Path

import pytest

from app.bench.datasets.prompts import DatasetError, sample_prompts_file
from tests.bench.datasets.word_counter import WORDS


def test_prompts_file_text_and_jsonl(tmp_path: Path) -> None:
    text = tmp_path / "p.txt"
    text.write_text("first prompt here\n\nsecond one\n", encoding="utf-8")
    samples = sample_prompts_file(text, 3, WORDS, output_len=16)
    assert [s.prompt for s in samples] == ["first prompt here", "second one", "first prompt here"]
    assert [s.prompt_len for s in samples] == [3, 2, 3]
    assert all(s.expected_output_len == 16 for s in samples)
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text('{"prompt": "a b", "output_len": 9}\n{"prompt": "c"}\n', encoding="utf-8")
    samples = sample_prompts_file(jsonl, 2, WORDS)
    assert [(s.prompt, s.expected_output_len) for s in samples] == [("a b", 9), ("c", 256)]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", r"p\.jsonl: the prompts file is empty"),
        ('{"prompt": "a"}\n{"prompt": \n', r"p\.jsonl: line 2: not valid JSON"),
        (
            '{"prompt": "a"}\n{"text": "b"}\n',
            r'p\.jsonl: line 2: expected an object with a "prompt"',
        ),
        ('{"prompt": "a", "output_len": 0}\n', r'line 1: "output_len" must be a positive'),
    ],
)
def test_malformed_prompts_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError, match=message):
        sample_prompts_file(path, 1, WORDS)
