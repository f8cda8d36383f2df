"""Prefix-cache hits read from /metrics, the stale-cache warning, and who gets a reset."""

from __future__ import annotations

from app.bench.serverstats.parse import parse_metrics
from app.bench.serverstats.summary import summarize
from app.bench.sweep.prefix_cache import hit_rate, is_loopback, stale_cache_warning

PAGE = """# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{{model_name="m"}} {queries}
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{{model_name="m"}} {hits}
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{{model_name="m"}} 0.1
"""


def window(q0: int, h0: int, q1: int, h1: int) -> dict:
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
