"""vLLM's random dataset: length bounds and seeded draws."""

import pytest

from app.bench.datasets.prompts import DatasetError
from app.bench.datasets.synthetic import random_length_bounds, sample_random


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
