"""Result files parsed once: a file is parsed again only when it changed on disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.bench.results.file_cache import PointFileCache
from app.bench.results.read import ResultFileError, point_from_dict

POINT = {
    "date": "20250601-101500",
    "backend": "openai-chat",
    "model_id": "qwen2.5-7b",
    "num_prompts": 8,
    "request_rate": 4.0,
    "max_concurrency": 16,
    "duration": 2.5,
    "completed": 8,
    "failed": 0,
    "mean_tpot_ms": 23.91,
}


def _write(path: Path, **changes: object) -> None:
    # As the sweep writes: a new file renamed over the old one.
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_text(json.dumps({**POINT, **changes}), encoding="utf-8")
    os.replace(tmp, path)


def test_a_file_is_parsed_once_until_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "expA_rate4_conc16.json"
    _write(path)
    cache = PointFileCache()
    first = cache.read(path)
    again = cache.read(path)
    assert cache.parsed == 1
    assert [p.metric("tpot", "mean") for p in again] == [23.91]
    assert first[0] is again[0]

    _write(path, mean_tpot_ms=30.5)
    changed = cache.read(path)
    assert cache.parsed == 2
    assert changed[0].metric("tpot", "mean") == 30.5


def test_a_broken_file_is_not_parsed_again_and_still_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"completed": ', encoding="utf-8")
    cache = PointFileCache()
    for _ in range(3):
        with pytest.raises(ResultFileError, match="not valid JSON"):
            cache.read(path)
    assert cache.parsed == 1


def test_a_vanished_file_is_reported_and_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "gone.json"
    _write(path)
    cache = PointFileCache()
    cache.read(path)
    path.unlink()
    with pytest.raises(ResultFileError, match="no such file"):
        cache.read(path)
    assert len(cache) == 0


def test_forget_except_keeps_only_listed_files(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    _write(a)
    _write(b)
    cache = PointFileCache()
    cache.read(a)
    cache.read(b)
    cache.forget_except([b])
    assert len(cache) == 1
    cache.read(b)
    assert cache.parsed == 2


def test_a_point_added_from_a_summary_stands_for_its_file_until_it_changes(
    tmp_path: Path,
) -> None:
    # A sweep's finished point arrives with its result less the per-request arrays.
    path = tmp_path / "expA_rate4_conc16.json"
    _write(path, itls=[[0.02, 0.021]], ttfts=[0.1])
    cache = PointFileCache()
    summary = point_from_dict(dict(POINT), path)
    assert cache.add(path, [summary])
    assert cache.read(path) == [summary]
    assert cache.stored(path) == [summary]
    assert cache.parsed == 0
    # The per-request data when asked: the file read once, then kept.
    full = cache.detailed(summary)
    assert full.doc.vllm.itls == [[0.02, 0.021]] and summary.doc.vllm.itls is None
    assert cache.detailed(summary) is full
    assert cache.read(path) == [full]
    assert cache.parsed == 1
    # Changed on disk: parsed again, as any file.
    _write(path, mean_tpot_ms=30.5)
    assert cache.read(path)[0].metric("tpot", "mean") == 30.5
    assert cache.parsed == 2


def test_a_summary_of_a_file_already_gone_is_not_kept(tmp_path: Path) -> None:
    path = tmp_path / "gone.json"
    cache = PointFileCache()
    assert not cache.add(path, [point_from_dict(dict(POINT), path)])
    assert len(cache) == 0
