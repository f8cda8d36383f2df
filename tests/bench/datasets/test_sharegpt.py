"""vLLM's ShareGPT sampling: the length filter, the seeded order, bad files and entries."""

import json
from pathlib import Path

import pytest

from app.bench.datasets.prompts import DatasetError
from app.bench.datasets.sharegpt import sample_sharegpt
from tests.bench.datasets.word_counter import WORDS


def words(n: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def write_sharegpt(path: Path, entries: list) -> Path:
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def convo(prompt: str, reply: str) -> dict:
    return {"conversations": [{"from": "human", "value": prompt}, {"from": "gpt", "value": reply}]}


def test_sharegpt_filter_and_fixed_output(tmp_path: Path) -> None:
    path = write_sharegpt(
        tmp_path / "s.json",
        [
            convo(words(10, "keep"), words(20)),  # kept
            convo(words(3), words(20)),  # prompt < 4 tokens
            convo(words(10), words(3)),  # reply < 4 tokens (unless output is fixed)
            convo(words(1025), words(10)),  # prompt > 1024
            convo(words(1000), words(1049)),  # prompt + reply > 2048
            {"id": "no conversations"},  # skipped, as vLLM does
            {"conversations": [{"value": "only one turn"}]},
        ],
    )
    samples = sample_sharegpt(path, 10, WORDS, seed=0)
    # one valid entry: oversampled (seeded) up to 10, ids continue
    assert len(samples) == 10
    assert {s.prompt for s in samples} == {words(10, "keep")}
    assert [s.request_id for s in samples] == [str(i) for i in range(10)]
    assert samples[0].prompt_len == 10 and samples[0].expected_output_len == 20
    fixed = sample_sharegpt(path, 2, WORDS, seed=0, output_len=3)
    # with a fixed output length the short reply no longer disqualifies its entry
    assert {s.prompt_len for s in fixed} <= {10}
    assert all(s.expected_output_len == 3 for s in fixed)


def test_sharegpt_order_follows_the_seed(tmp_path: Path) -> None:
    path = write_sharegpt(
        tmp_path / "s.json", [convo(words(5, f"p{i}_"), words(5)) for i in range(20)]
    )
    a = [s.prompt for s in sample_sharegpt(path, 5, WORDS, seed=1)]
    b = [s.prompt for s in sample_sharegpt(path, 5, WORDS, seed=1)]
    c = [s.prompt for s in sample_sharegpt(path, 5, WORDS, seed=2)]
    assert a == b and a != c
    assert len(set(a)) == 5


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"conversations": [', r"bad\.json: not valid JSON \(line 1, column 21"),
        ('{"conversations": []}', r"bad\.json: expected a JSON list .* found a dict"),
        ('[{"conversations": "hi"}]', r'bad\.json: entry 0: "conversations" is not a list'),
        (
            '[{"conversations": [{"value": "a"}, {"from": "gpt"}]}]',
            r'bad\.json: entry 0: conversations\[1\] has no "value" string',
        ),
        ("[7]", r"bad\.json: entry 0 is a int"),
        ('[{"conversations": [{"value": "a"}]}]', r"no entry has at least two"),
        ('[{"conversations": [{"value": "a"}, {"value": "b"}]}]', r"no conversation passes"),
    ],
)
def test_malformed_sharegpt_names_file_entry_and_problem(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError, match=message):
        sample_sharegpt(path, 3, WORDS)


def test_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"nope\.json: dataset file not found"):
        sample_sharegpt(tmp_path / "nope.json", 1, WORDS)
    blob = tmp_path / "blob.json"
    blob.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(DatasetError, match=r"blob\.json: not UTF-8"):
        sample_sharegpt(blob, 1, WORDS)


def test_a_bad_entry_is_only_an_error_when_sampled(tmp_path: Path) -> None:
    good = [convo(words(5, f"g{i}_"), words(5)) for i in range(30)]
    bad = {"conversations": [{"value": "hi there you all"}, {"value": None}]}
    path = write_sharegpt(tmp_path / "s.json", [*good, bad])
    # vLLM reads an entry's turns only when it gets to it in the shuffled order
    assert len(sample_sharegpt(path, 3, WORDS, seed=0)) == 3
    with pytest.raises(DatasetError, match=r'entry 30: conversations\[1\] has no "value"'):
        sample_sharegpt(path, 31, WORDS, seed=0)
