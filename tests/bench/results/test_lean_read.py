"""A large --save-detailed file is read without its per-gap array as Python objects: the gaps
are binned on the way in, and every figure a report shows is the same as from a whole read."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import app.bench.results.read as read
from app.bench.results.request_block import itl_histogram
from app.bench.results.request_samples import request_samples


def _detailed(path: Path, itls: list[list[float]]) -> Path:
    n = len(itls)
    rng = random.Random(1)
    doc = {
        "backend": "openai-chat",
        "endpoint_type": "openai-chat",
        "model_id": "m",
        "num_prompts": n,
        "request_rate": "inf",
        "max_concurrency": 8,
        "duration": 10.0,
        "completed": n - 1,
        "failed": 1,
        "input_lens": [100 + i for i in range(n)],
        "output_lens": [len(g) + 1 if g else 0 for g in itls],
        "ttfts": [round(rng.uniform(0.05, 0.3), 4) if g else 0.0 for g in itls],
        "itls": itls,
        "generated_texts": ['say "itls": [1] here' for _ in itls],  # a key-like string
        "errors": ["" if g else "HTTP 500" for g in itls],
    }
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def _gaps(n: int) -> list[list[float]]:
    rng = random.Random(0)
    return [
        [round(rng.lognormvariate(-4, 0.6), 5) for _ in range(rng.randint(5, 40))] for _ in range(n)
    ]


def test_a_large_file_keeps_its_gaps_binned_and_every_other_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    itls = _gaps(60)
    itls[7] = []  # a failed request: no gaps
    path = _detailed(tmp_path / "big.json", itls)
    whole = read.load_result(path)
    monkeypatch.setattr(read, "LEAN_BYTES", 0)  # every file counts as large
    lean = read.load_result(path)
    assert whole.doc.vllm.itls == itls and lean.doc.vllm.itls is None
    expected = itl_histogram([g * 1000 for gaps in itls for g in gaps])
    assert whole.itl_set_aside is None and lean.itl_set_aside is not None
    assert lean.itl_set_aside.counts == expected
    full = request_samples(whole.doc, whole.itl_set_aside)
    binned = request_samples(lean.doc, lean.itl_set_aside)
    assert binned.itl_counts == expected and sum(binned.itl_counts) == sum(map(len, itls))
    assert full.ttft_ms == binned.ttft_ms and full.tpot_ms == binned.tpot_ms
    assert full.ok == binned.ok and binned.failed == 1
    assert whole.summary_row() == lean.summary_row()
    assert lean.doc.vllm.generated_texts[0] == 'say "itls": [1] here'


def test_gaps_that_are_not_plain_numbers_are_read_whole_and_judged_as_usual(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read, "LEAN_BYTES", 0)
    path = tmp_path / "odd.json"
    path.write_text(
        json.dumps({"completed": 1, "duration": 1.0, "itls": [[0.01, None]]}), encoding="utf-8"
    )
    point = read.load_result(path)
    assert point.doc.vllm.itls == [[0.01, None]] and point.itl_set_aside is None
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps({"completed": 1, "duration": 1.0, "itls": [0.01]}), "utf-8")
    assert read.load_result(flat).doc.vllm.itls == [0.01]
    broken = tmp_path / "broken.json"
    broken.write_text('{"completed": 1, "duration": 1.0, "itls": [[0.01, ]]}', "utf-8")
    with pytest.raises(read.ResultFileError, match="not valid JSON"):
        read.load_result(broken)
