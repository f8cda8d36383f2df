"""Prefix-cache hits read from /metrics, the stale-cache warning (not for what the prompts
themselves share: the shared-prefix dataset against the simulator), and who gets a reset."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.bench.datasets.synthetic import sample_prefix
from app.bench.schema.point_blocks import ServerMetricsBlock, TraceBlock
from app.bench.serverstats.parse import parse_metrics
from app.bench.serverstats.summary import summarize
from app.bench.sweep.prefix_cache import (
    expected_share,
    hit_rate,
    is_loopback,
    prompts_share,
    stale_cache_warning,
)
from tests.documents import document

PAGE = """# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{{model_name="m"}} {queries}
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{{model_name="m"}} {hits}
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{{model_name="m"}} 0.1
"""


def window(q0: int, h0: int, q1: int, h1: int) -> ServerMetricsBlock:
    first = parse_metrics(PAGE.format(queries=q0, hits=h0))
    last = parse_metrics(PAGE.format(queries=q1, hits=h1))
    return summarize([(0.0, first), (5.0, last)], [])


def test_hit_rate_over_the_point_window() -> None:
    summary = window(1000, 100, 11000, 8100)  # 10,000 prompt tokens, 8,000 from the cache
    assert hit_rate(summary) == 0.8
    warning = stale_cache_warning(summary, reset=None)
    assert warning is not None and "80%" in warning and "--reset-prefix-cache" in warning
    assert "did not clear" in (stale_cache_warning(summary, reset="reset") or "")


def test_distinct_prompts_raise_no_warning() -> None:
    summary = window(0, 0, 10000, 300)  # a shared chat template only
    assert hit_rate(summary) == 0.03
    assert stale_cache_warning(summary, reset="reset") is None
    assert stale_cache_warning(window(5, 5, 5, 5), reset=None) is None  # no queries: no rate
    assert stale_cache_warning(None, reset=None) is None


def test_loopback_default() -> None:
    for url in ("http://127.0.0.1:8000", "http://localhost:8000/v1", "http://[::1]:8000"):
        assert is_loopback(url)
    for url in ("https://api.example.com/v1", "http://10.0.0.5:8000", "http://gpu-box:8000"):
        assert not is_loopback(url)


def test_the_prompts_own_share_is_measured_from_their_text() -> None:
    # 8 prefixes of 512 words, 200 prompts: (N - P) * prefix / (N * (prefix + suffix)) of the
    # text repeats an earlier prompt's start (the docstring of sample_prefix)
    samples = sample_prefix(200, prefix_len=512, suffix_len=64, num_prefixes=8, seed=1)
    expected = (200 - 8) * 512 / (200 * (512 + 64))
    assert prompts_share(samples) == pytest.approx(expected, abs=0.02)
    distinct = sample_prefix(50, prefix_len=1, suffix_len=200, num_prefixes=50, seed=1)
    assert prompts_share(distinct) < 0.02
    assert prompts_share([]) == 0.0
    # a trace's prediction counts when it is larger than what the text shows
    assert expected_share(distinct, TraceBlock(predicted_hit_rate=0.4)) == 0.4


def _prefix_sweep(base_url: str, out: Path, *extra: str) -> list[dict]:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "sweep",
            "--base-url",
            base_url,
            "--dataset-name",
            "prefix",
            "--prefix-repetition-num-prefixes",
            "2",
            "--prefix-repetition-prefix-len",
            "256",
            "--prefix-repetition-suffix-len",
            "16",
            "--prefix-repetition-output-len",
            "4",
            "--num-prompts",
            "8",
            "--max-concurrency",
            "1,2",
            "--server-metrics",
            "--disable-tqdm",
            "--result-dir",
            str(out),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    raws = sorted((document(p) for p in out.glob("*_conc*.json")), key=_concurrency)
    return [raw["tpotbench"]["prefix_cache"] for raw in raws]


def _concurrency(raw: dict) -> int:
    return int(raw["max_concurrency"])


def test_the_prefix_dataset_warns_only_of_a_cache_warmed_by_an_earlier_point(
    make_sim, tmp_path: Path
) -> None:
    # Reset between points: the hits are the dataset's own shared prefixes, no warning.
    for block in _prefix_sweep(make_sim().base_url, tmp_path / "reset"):
        assert block["reset"] == "reset" and block["hit_rate"] > 0.5
        assert block["warning"] is None
    # Not reset, on a fresh server: the second point finds the first one's prompts cached.
    fresh = make_sim().base_url
    first, second = _prefix_sweep(fresh, tmp_path / "warm", "--no-reset-prefix-cache")
    assert first["warning"] is None
    assert second["hit_rate"] > first["hit_rate"] + 0.1
    assert "warmed by an earlier point" in second["warning"]
