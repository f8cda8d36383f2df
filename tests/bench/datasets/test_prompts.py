"""Dataset sampling: vLLM's ShareGPT filter and order, random lengths, prompt files, bad files."""

import json
from pathlib import Path

import pytest

from app.bench.datasets.prompts import (
    DatasetError,
    DatasetOptions,
    default_sharegpt_path,
    get_samples,
    random_length_bounds,
    sample_prompts_file,
    sample_random,
    sample_sharegpt,
)


class WordCounter:
    """One token per whitespace-separated word: makes lengths easy to work out by hand."""

    def count(self, text: str) -> int:
        return len(text.split())


WORDS = WordCounter()


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


def test_random_bounds_like_vllm() -> None:
    # floor for the low end, ceil for the high end; output never below 1
    assert random_length_bounds(10, 4, 0.25) == ((7, 13), (3, 5))
    # 100 * (1 - 0.9) is 9.999... in floating point, so vLLM's floor gives 9, and so do we
    assert random_length_bounds(100, 1, 0.9) == ((9, 190), (1, 2))
    with pytest.raises(DatasetError, match=r"\[0, 1\)"):
        random_length_bounds(10, 10, 1.0)
    with pytest.raises(DatasetError, match="0 tokens"):
        random_length_bounds(1, 10, 0.5)


def test_random_samples_are_seeded_and_in_bounds() -> None:
    a = sample_random(50, input_len=10, output_len=4, range_ratio=0.25, seed=3)
    b = sample_random(50, input_len=10, output_len=4, range_ratio=0.25, seed=3)
    assert a == b
    assert {s.prompt_len for s in a} <= set(range(7, 14))
    assert {s.expected_output_len for s in a} <= {3, 4, 5}
    assert len({s.prompt_len for s in a}) > 3  # really drawn from the range
    # without a tokenizer the prompt is filler words, one per requested token
    assert all(len(s.prompt.split()) == s.prompt_len for s in a)
    fixed = sample_random(4, input_len=6, output_len=2, range_ratio=0.0)
    assert [(s.prompt_len, s.expected_output_len) for s in fixed] == [(6, 2)] * 4


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


def test_a_bad_entry_is_only_an_error_when_sampled(tmp_path: Path) -> None:
    good = [convo(words(5, f"g{i}_"), words(5)) for i in range(30)]
    bad = {"conversations": [{"value": "hi there you all"}, {"value": None}]}
    path = write_sharegpt(tmp_path / "s.json", [*good, bad])
    # vLLM reads an entry's turns only when it gets to it in the shuffled order
    assert len(sample_sharegpt(path, 3, WORDS, seed=0)) == 3
    with pytest.raises(DatasetError, match=r'entry 30: conversations\[1\] has no "value"'):
        sample_sharegpt(path, 31, WORDS, seed=0)


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
