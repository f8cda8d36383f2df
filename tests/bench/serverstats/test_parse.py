"""Server metrics: parsing each server's /metrics page, histogram deltas, and a live scraper."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator

import pytest

from app.bench.schema.codec import to_json_obj
from app.bench.serverstats.parse import MetricsParseError, detect_server, parse_metrics
from app.bench.serverstats.scrape import MetricsScraper, result_block
from app.bench.serverstats.snapshot import (
    KVCapacity,
    MetricsSample,
    series_to_dict,
)
from app.bench.serverstats.summary import summarize
from app.sim.embedded import RunningSim
from tests.bench.serverstats.page_server import Pages, serving

LBL = 'engine="0",model_name="qwen2.5-7b"'


def ttft_block(name: str, cum: dict[str, int], total: float, labels: str = LBL) -> str:
    lines = [
        f"# HELP {name} Histogram of time to first token in seconds.",
        f"# TYPE {name} histogram",
    ]
    for le, c in cum.items():
        lines.append(f'{name}_bucket{{{labels},le="{le}"}} {float(c)}')
    lines.append(f"{name}_count{{{labels}}} {float(list(cum.values())[-1])}")
    lines.append(f"{name}_sum{{{labels}}} {total}")
    return "\n".join(lines) + "\n"


# Before: 1 in (0.04,0.06], 1 in (0.08,0.1], 1 above 0.25 s. After: 10 more, 2 / 6 / 2 in the
# (0.04,0.06], (0.06,0.08], (0.08,0.1] buckets, summing to 0.72 s.
TTFT_A = {"0.04": 0, "0.06": 1, "0.08": 1, "0.1": 2, "0.25": 2, "+Inf": 3}
TTFT_B = {"0.04": 0, "0.06": 3, "0.08": 9, "0.1": 12, "0.25": 12, "+Inf": 13}


def vllm_v1_page(running: int = 12, waiting: int = 3, kv: float = 0.45, preempt: int = 7,
                 ttft: dict[str, int] = TTFT_A, ttft_sum: float = 0.64) -> str:  # fmt: skip
    return (
        "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
        "# TYPE vllm:num_requests_running gauge\n"
        f"vllm:num_requests_running{{{LBL}}} {float(running)}\n"
        "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
        "# TYPE vllm:num_requests_waiting gauge\n"
        f"vllm:num_requests_waiting{{{LBL}}} {float(waiting)}\n"
        "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n"
        "# TYPE vllm:kv_cache_usage_perc gauge\n"
        f"vllm:kv_cache_usage_perc{{{LBL}}} {kv}\n"
        "# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.\n"
        "# TYPE vllm:num_preemptions_total counter\n"
        f"vllm:num_preemptions_total{{{LBL}}} {float(preempt)}\n"
        "# HELP vllm:generation_tokens_total Number of generation tokens processed.\n"
        "# TYPE vllm:generation_tokens_total counter\n"
        f"vllm:generation_tokens_total{{{LBL}}} 55858.0\n"
        "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n"
        "# TYPE vllm:cache_config_info gauge\n"
        'vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",'
        'engine="0",gpu_memory_utilization="0.85",num_cpu_blocks="None",'
        'num_gpu_blocks="5306"} 1.0\n'
        + ttft_block("vllm:time_to_first_token_seconds", ttft, ttft_sum)
        + ttft_block("vllm:inter_token_latency_seconds", {"0.01": 0, "0.025": 40, "+Inf": 50}, 1.0)
    )


def test_vllm_v1_page_gives_gauges_capacity_and_models() -> None:
    snap = parse_metrics(vllm_v1_page())
    assert snap.server == "vllm"
    assert (snap.kv_cache_usage, snap.running, snap.waiting) == (0.45, 12.0, 3.0)
    assert snap.preemptions_total == 7.0
    assert snap.generation_tokens_total == 55858.0
    assert snap.capacity == KVCapacity(84_896, 5306, 16)
    assert snap.cache_config["gpu_memory_utilization"] == "0.85"
    assert snap.model_names == ("qwen2.5-7b",)


def test_kv_capacity_concurrency_is_block_granular() -> None:
    cap = KVCapacity(84_896, 5306, 16)
    assert cap.max_sequences(4096) == 20  # 256 blocks each
    assert cap.concurrency_ratio(4096) == pytest.approx(20.7266, abs=1e-4)
    # A 17-token sequence still takes two 16-token blocks: 2653 sequences, not 84896 // 17 = 4993.
    assert cap.max_sequences(17) == 2653
    assert KVCapacity(161_721).max_sequences(4096) == 39
    with pytest.raises(ValueError):
        cap.max_sequences(0)


def test_histogram_delta_mean_and_percentiles_between_two_scrapes() -> None:
    a = parse_metrics(vllm_v1_page(ttft=TTFT_A, ttft_sum=0.64)).ttft
    b = parse_metrics(vllm_v1_page(ttft=TTFT_B, ttft_sum=1.36)).ttft
    assert a is not None and b is not None
    stats = b.minus(a).stats_ms()
    assert stats.count == 10
    assert stats.mean == pytest.approx(72.0)
    assert stats.p50 == pytest.approx(70.0)  # rank 5: 3rd of 6 in (60, 80] ms
    assert stats.p90 == pytest.approx(90.0)
    assert stats.p99 == pytest.approx(99.0)
    # A quantile in the +Inf bucket is only known to exceed the last finite bound (250 ms).
    assert a.stats_ms().p99 == pytest.approx(250.0)


def test_vllm_legacy_names_and_data_parallel_engines() -> None:
    page = (
        "# TYPE vllm:gpu_cache_usage_perc gauge\n"
        'vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.2\n'
        'vllm:gpu_cache_usage_perc{engine="1",model_name="m"} 0.4\n'
        "# TYPE vllm:num_requests_running gauge\n"
        'vllm:num_requests_running{engine="0",model_name="m"} 5.0\n'
        'vllm:num_requests_running{engine="1",model_name="m"} 7.0\n'
        "# TYPE vllm:num_preemptions counter\n"
        'vllm:num_preemptions_total{engine="0",model_name="m"} 2.0\n'
        + ttft_block(
            "vllm:time_per_output_token_seconds", {"0.02": 3, "+Inf": 4}, 0.1, 'model_name="m"'
        )
    )
    snap = parse_metrics(page)
    assert snap.server == "vllm-legacy"
    assert snap.kv_cache_usage == pytest.approx(0.3)  # usage averages across engines
    assert snap.running == 12.0  # queues add up
    assert snap.waiting is None
    assert snap.preemptions_total == 2.0
    assert snap.itl is not None and snap.itl.count == 4
    assert snap.capacity is None


SGLANG_PAGE = """\
# HELP sglang:token_usage The token usage.
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.28
# HELP sglang:num_running_reqs The number of running requests.
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="meta-llama/Llama-3.1-8B-Instruct"} 8.0
# HELP sglang:num_queue_reqs The number of requests in the waiting queue.
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="meta-llama/Llama-3.1-8B-Instruct"} 4.0
# HELP sglang:max_total_num_tokens Maximum total number of tokens in the KV cache pool.
# TYPE sglang:max_total_num_tokens gauge
sglang:max_total_num_tokens{model_name="meta-llama/Llama-3.1-8B-Instruct"} 161721.0
# HELP sglang:num_retracted_requests_total Total number of retracted requests.
# TYPE sglang:num_retracted_requests_total counter
sglang:num_retracted_requests_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 5.0
"""

LLAMACPP_PAGE = """\
# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 6886
# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 3469
# HELP llamacpp:kv_cache_usage_ratio KV-cache usage. 1 means 100 percent usage.
# TYPE llamacpp:kv_cache_usage_ratio gauge
llamacpp:kv_cache_usage_ratio 0.63
# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 2
# HELP llamacpp:requests_deferred Number of requests deferred.
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 1
"""

TGI_PAGE = """\
# TYPE tgi_batch_current_size gauge
tgi_batch_current_size 4
# TYPE tgi_queue_size gauge
tgi_queue_size 2
"""


def test_sglang_page() -> None:
    snap = parse_metrics(SGLANG_PAGE)
    assert snap.server == "sglang"
    assert (snap.kv_cache_usage, snap.running, snap.waiting) == (0.28, 8.0, 4.0)
    assert snap.preemptions_total == 5.0
    assert snap.capacity == KVCapacity(161_721)


def test_llamacpp_page() -> None:
    snap = parse_metrics(LLAMACPP_PAGE)
    assert snap.server == "llamacpp"
    assert (snap.kv_cache_usage, snap.running, snap.waiting) == (0.63, 2.0, 1.0)
    assert snap.generation_tokens_total == 3469.0
    assert snap.ttft is None and snap.capacity is None


def test_tgi_and_unknown_pages() -> None:
    tgi = parse_metrics(TGI_PAGE)
    assert (tgi.server, tgi.running, tgi.waiting, tgi.kv_cache_usage) == ("tgi", 4.0, 2.0, None)
    other = parse_metrics(
        "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 3.5\n"
    )
    assert other.server == "unknown" and other.running is None
    assert detect_server(SGLANG_PAGE) == "sglang"


@pytest.mark.parametrize("text", ["<html><body>Not found</body></html>", '{"detail":"Not Found"}'])
def test_non_prometheus_text_is_a_parse_error(text: str) -> None:
    with pytest.raises(MetricsParseError):
        parse_metrics(text)


def test_series_round_trip() -> None:
    rows = [MetricsSample(0.0, 0.1, 1.0, 0.0, 0.0), MetricsSample(1.0, 0.5, 8.0, 2.0, None)]
    data = series_to_dict(rows)
    assert data == {
        "t_s": [0.0, 1.0],
        "kv_cache_usage": [0.1, 0.5],
        "running": [1.0, 8.0],
        "waiting": [0.0, 2.0],
        "preemptions": [0.0, None],
    }


@pytest.fixture
def page_server() -> Iterator[tuple[str, Pages]]:
    state = Pages([])
    with serving(state) as url:
        yield url, state


def test_scraper_series_and_window_summary(page_server: tuple[str, Pages]) -> None:
    url, state = page_server
    state.pages = [
        vllm_v1_page(running=2, waiting=0, kv=0.10, preempt=7, ttft=TTFT_A, ttft_sum=0.64),
        vllm_v1_page(running=16, waiting=4, kv=0.50, preempt=9, ttft=TTFT_B, ttft_sum=1.36),
        vllm_v1_page(running=16, waiting=6, kv=0.60, preempt=10, ttft=TTFT_B, ttft_sum=1.36),
    ]
    seen: list[MetricsSample] = []
    fake_ns = iter(range(0, 100 * 10**9, 10**9))  # one second further on each reading

    async def scenario() -> MetricsScraper:
        scraper = MetricsScraper(
            url + "/metrics",
            interval_s=3600,  # the loop scrapes once at start; the rest are explicit
            on_sample=seen.append,
            headers={"Authorization": "Bearer sk-test-1234"},
            clock=lambda: next(fake_ns),
            max_scrapes=2,  # the first scrape must still anchor whole-run deltas
        )
        async with scraper:
            while state.hits < 1:
                await asyncio.sleep(0.01)
            await scraper.scrape_now()
            await scraper.scrape_now()
        assert not scraper.running
        return scraper

    scraper = asyncio.run(scenario())
    assert [s.running for s in seen] == [2.0, 16.0, 16.0]
    assert [s.preemptions for s in seen] == [0.0, 2.0, 3.0]  # counted from the first scrape
    assert [s.t_s for s in seen] == [1.0, 2.0, 3.0]
    assert state.auth[0] == "Bearer sk-test-1234"
    assert "sk-test" not in repr(scraper)
    summary = to_json_obj(scraper.summary(context_len=4096))
    assert summary["samples"] == 3
    assert summary["server"] == "vllm"
    assert summary["preemptions"] == 3.0
    assert summary["running"] == {"mean": pytest.approx(34 / 3, abs=1e-4), "max": 16.0}
    assert summary["waiting"]["max"] == 6.0
    assert summary["kv_cache_usage"]["max"] == 0.6
    assert summary["kv_capacity_tokens"] == 84_896
    assert summary["max_concurrency"] == {"context_len": 4096, "sequences": 20, "ratio": 20.73}
    assert summary["server_ttft_ms"]["count"] == 10
    assert summary["server_ttft_ms"]["mean"] == pytest.approx(72.0)
    # The window [2, 3] starts at the second scrape: no new TTFT observations after it.
    late = to_json_obj(scraper.summary(2.0, 3.0))
    assert late["samples"] == 2 and late["preemptions"] == 1.0
    assert late["server_ttft_ms"]["count"] == 0 and late["server_ttft_ms"]["mean"] is None
    assert scraper.series(2.5)["running"] == [16.0]
    scraper.set_origin(10**9)  # the load started one second after the scraper
    assert [s.t_s for s in scraper.samples] == [0.0, 1.0, 2.0]
    assert to_json_obj(scraper.summary(1.0))["preemptions"] == 1.0


def test_scraper_survives_an_unreachable_server() -> None:
    async def scenario() -> MetricsScraper:
        scraper = MetricsScraper("http://127.0.0.1:9/metrics", interval_s=3600, timeout_s=0.5)
        async with scraper:
            assert await scraper.scrape_now() is None
        return scraper

    scraper = asyncio.run(scenario())
    assert scraper.samples == [] and scraper.failures >= 1
    assert scraper.last_error is not None and scraper.last_error.startswith("cannot connect: ")
    assert to_json_obj(result_block(scraper)) == {
        "schema": 1,
        "metrics_url": "http://127.0.0.1:9/metrics",
        "error": scraper.last_error,
    }
    assert to_json_obj(scraper.summary()) == {
        "samples": 0,
        "kv_cache_usage": None,
        "running": None,
        "waiting": None,
    }


def test_live_scrape_of_the_simulator_follows_the_load(
    make_sim: Callable[..., RunningSim],
) -> None:
    """16 requests at once: the series shows 16 running, then 0; histograms count them all."""
    import httpx

    sim = make_sim()
    # Long enough that the 16 streams overlap however slowly a busy machine sends them.
    n, max_tokens = 16, 200

    e2el_ms: list[float] = []

    async def one(client: httpx.AsyncClient, body: dict) -> httpx.Response:
        t0 = time.perf_counter_ns()
        reply = await client.post(sim.root_url + "/v1/completions", json=body)
        e2el_ms.append((time.perf_counter_ns() - t0) / 1e6)
        return reply

    async def scenario() -> tuple[MetricsScraper, list[dict]]:
        scraper = MetricsScraper(sim.root_url + "/metrics", interval_s=0.1)
        async with scraper, httpx.AsyncClient(timeout=30) as client:
            assert scraper.available  # start() took the baseline for the histogram deltas
            body = {"model": "qwen2.5-7b", "prompt": "hello there", "max_tokens": max_tokens,
                    "ignore_eos": True}  # fmt: skip
            replies = await asyncio.gather(*(one(client, body) for _ in range(n)))
            # The server lowers its running gauge after the last reply went out: read until it
            # did (the hang guard only ends a broken run).
            deadline = time.monotonic() + 60
            await scraper.scrape_now()
            while scraper.samples[-1].running != 0 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
                await scraper.scrape_now()
        return scraper, [r.json() for r in replies]

    scraper, replies = asyncio.run(scenario())
    assert all(r["usage"]["completion_tokens"] == max_tokens for r in replies)
    prompt = replies[0]["usage"]["prompt_tokens"]
    series = scraper.series()
    assert max(series["running"]) == n
    assert series["running"][0] == 0 and series["running"][-1] == 0
    # All 16 sequences hold between ceil((prompt+1)/16) and ceil((prompt+40)/16) blocks each.
    lo, hi = n * -(-(prompt + 1) // 16) / 5306, n * -(-(prompt + max_tokens) // 16) / 5306
    peak = max(v for v in series["kv_cache_usage"] if v is not None)
    assert lo <= peak <= hi
    assert series["preemptions"][-1] == 0
    summary = to_json_obj(scraper.summary())
    assert summary["running"]["max"] == n
    # Say what the summary had if the TTFT delta is ever missing again (it was, under a CPU hog:
    # the simulator stamped first tokens before arrival, see test_engine).
    assert "server_ttft_ms" in summary, (summary.get("warnings"), sorted(summary))
    assert summary["server_ttft_ms"]["count"] == n
    assert summary["server_itl_ms"]["count"] == n * (max_tokens - 1)
    assert summary["server_e2el_ms"]["count"] == n
    assert summary["kv_capacity_tokens"] == 84_896
    # The block a result file stores: JSON-clean, the series round-trips, server vs client.
    client_mean = sum(e2el_ms) / n
    block = json.loads(
        json.dumps(to_json_obj(result_block(scraper, 4096, {"mean_e2el_ms": client_mean})))
    )
    assert block["schema"] == 1 and block["server"] == "vllm"
    assert block["max_concurrency"] == {"context_len": 4096, "sequences": 20, "ratio": 20.73}
    assert block["series"] == series_to_dict(scraper.samples)
    gap = block["vs_client"]["e2el_ms"]
    assert gap["client_mean"] == pytest.approx(client_mean, abs=1e-3)
    assert gap["server_mean"] == block["server_e2el_ms"]["mean"]
    assert gap["gap"] == pytest.approx(client_mean - gap["server_mean"], abs=1e-3)
    # The server's e2e histogram buckets are coarse, but its mean is exact: sum / count, and
    # the client's window holds the server's (how much wider depends on the machine's load).
    assert gap["gap"] >= 0


def test_engine_modules_do_not_import_qt() -> None:
    import subprocess
    import sys

    code = (
        "import sys, app.bench.serverstats.parse, app.bench.serverstats.scrape, "
        "app.bench.doctor.run, app.commands.doctor; "
        "print([m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'qasync')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("extra", "dropped"),
    [
        ('vllm:e2e_request_latency_seconds_bucket{le="abc"} 1\n', "le='abc' is not a number"),
        ('vllm:e2e_request_latency_seconds_bucket{le="NaN"} 1\n', "le='NaN' is not a number"),
        ('vllm:e2e_request_latency_seconds_bucket{le="1"} -4\n', "bucket count -4.0"),
        (
            'vllm:e2e_request_latency_seconds_bucket{le="1"} 5\n'
            'vllm:e2e_request_latency_seconds_bucket{le="2"} 3\n',
            "not cumulative",
        ),
        (
            "vllm:e2e_request_latency_seconds_bucket 1\nvllm:e2e_request_latency_seconds_sum NaN\n",
            "sum nan",
        ),
        ('block_size="16"', "block_size=-100000"),  # replaces the page's own block size
        ("vllm:num_requests_waiting +Inf\n", "value inf is not a count"),
        ("vllm:num_requests_waiting -2\n", "value -2.0 is not a count"),
    ],
)
def test_an_odd_series_is_dropped_with_a_line_and_the_rest_kept(extra: str, dropped: str) -> None:
    page = vllm_v1_page()
    if extra.startswith("block_size"):
        page, extra = page.replace(extra, 'block_size="-100000"'), ""
    snap = parse_metrics(page + extra)
    assert len(snap.dropped) == 1 and dropped in snap.dropped[0], snap.dropped
    assert snap.dropped[0].endswith("dropped")
    assert snap.running == 12.0 and snap.ttft is not None  # the good series are untouched


def test_histograms_that_cannot_be_compared_are_left_out_with_a_warning() -> None:
    before = parse_metrics(vllm_v1_page(ttft={"0.04": 0, "0.06": 1}))  # no +Inf bucket yet
    after = parse_metrics(vllm_v1_page(ttft=TTFT_B, preempt=2))  # +Inf appears; counter reset
    sample = MetricsSample(0.0, 0.45, 12.0, 3.0, 0.0)
    summary = to_json_obj(summarize([(0.0, before), (1.0, after)], [sample], context_len=100))
    assert "server_ttft_ms" not in summary and "preemptions" not in summary
    assert any("TTFT histogram: buckets or count changed" in w for w in summary["warnings"])
    assert any("preemptions: the counter went down" in w for w in summary["warnings"])
    assert summary["running"] == {"mean": 12.0, "max": 12.0}
    json.dumps(summary, allow_nan=False)  # standard JSON: no NaN or Infinity slips through


def _counters_page(queries: int, hits: int, drafts: int, proposed: int, accepted: int) -> str:
    return "\n".join(
        [
            f"vllm:num_requests_running{{{LBL}}} 0.0",
            f"vllm:prefix_cache_queries_total{{{LBL}}} {queries}.0",
            f"vllm:prefix_cache_hits_total{{{LBL}}} {hits}.0",
            f"vllm:spec_decode_num_drafts_total{{{LBL}}} {drafts}.0",
            f"vllm:spec_decode_num_draft_tokens_total{{{LBL}}} {proposed}.0",
            f"vllm:spec_decode_num_accepted_tokens_total{{{LBL}}} {accepted}.0",
            "",
        ]
    )


def test_prefix_cache_and_spec_decode_from_counter_deltas() -> None:
    first = parse_metrics(_counters_page(1000, 0, 40, 120, 90))
    last = parse_metrics(_counters_page(3000, 1536, 140, 420, 300))
    summary = to_json_obj(summarize([(0.0, first), (5.0, last)], []))
    # 1,536 of 2,000 prompt tokens looked up were cached; 210 of 300 drafted tokens accepted
    # over 100 drafts: each draft step gave 2.1 accepted tokens plus the target's own.
    assert summary["prefix_cache"] == {"queries": 2000, "hits": 1536, "hit_rate": 0.768}
    assert summary["spec_decode"] == {
        "drafts": 100,
        "draft_tokens": 300,
        "accepted_tokens": 210,
        "acceptance_rate": 0.7,
        "mean_acceptance_length": 3.1,
    }
    restarted = parse_metrics(_counters_page(10, 0, 40, 120, 90))
    summary = to_json_obj(summarize([(0.0, first), (5.0, restarted)], []))
    assert "prefix_cache" not in summary
    assert "prefix_cache_queries: the counter went down" in " ".join(summary["warnings"])


def test_server_hit_rate_equals_the_cached_tokens_the_replies_report(
    make_sim: Callable[..., RunningSim],
) -> None:
    """The same long prompt four times: the simulator's counters and its usage agree."""
    import httpx

    sim = make_sim(num_speculative_tokens=3)
    prompt = "The roofline of a decode step is set by memory bandwidth. " * 40

    async def scenario() -> tuple[dict, list[dict]]:
        scraper = MetricsScraper(sim.root_url + "/metrics", interval_s=60)
        async with scraper, httpx.AsyncClient(timeout=60) as client:
            replies = []
            for _ in range(4):  # one after another: each later one finds the first's blocks
                body = {"model": "qwen2.5-7b", "prompt": prompt, "max_tokens": 24}
                reply = await client.post(sim.root_url + "/v1/completions", json=body)
                replies.append(reply.json())
            await scraper.scrape_now()
        return to_json_obj(scraper.summary()), replies

    summary, replies = asyncio.run(scenario())
    usage = [r["usage"] for r in replies]
    prompt_tokens = sum(u["prompt_tokens"] for u in usage)
    cached = sum((u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0 for u in usage)
    assert cached > 0
    assert summary["prefix_cache"]["queries"] == prompt_tokens
    assert summary["prefix_cache"]["hits"] == cached
    assert summary["prefix_cache"]["hit_rate"] == round(cached / prompt_tokens, 4)
    spec = summary["spec_decode"]
    assert spec["drafts"] > 0 and spec["draft_tokens"] == 3 * spec["drafts"]
    assert 0 < spec["acceptance_rate"] <= 1
    assert 1 < spec["mean_acceptance_length"] <= 4


def _phase_page(prefix: str, queue: tuple[float, float], extra: str = "") -> str:
    """A page with a queue-time histogram: (sum, count) of waits, all in the 0.5 s bucket."""
    total, count = queue
    lines = [
        f'{prefix}_bucket{{le="0.3"}} 0',
        f'{prefix}_bucket{{le="0.5"}} {count}',
        f'{prefix}_bucket{{le="+Inf"}} {count}',
        f"{prefix}_sum {total}",
        f"{prefix}_count {count}",
    ]
    return f"# TYPE {prefix} histogram\n" + "\n".join(lines) + "\n" + extra


def test_phase_histograms_of_vllm_and_sglang_give_the_points_queue_time() -> None:
    for name in ("vllm:request_queue_time_seconds", "sglang:queue_time_seconds"):
        gauge = "vllm:num_requests_waiting 0\n" if name.startswith("vllm") else ""
        gauge = gauge or "sglang:num_queue_reqs 0\n"
        first = parse_metrics(_phase_page(name, (4.0, 10), gauge))
        last = parse_metrics(_phase_page(name, (8.0, 20), gauge))
        summary = to_json_obj(summarize([(0.0, first), (2.0, last)], []))
        # Ten waits of 0.4 s between the two scrapes: exact from the sums and counts.
        assert summary["server_queue_ms"]["count"] == 10
        assert summary["server_queue_ms"]["mean"] == 400.0
        assert summary["bracket_s"] == [0.0, 2.0]


def test_llamacpp_prompt_seconds_give_prefill_time_per_token() -> None:
    def page(seconds: float, tokens: int) -> str:
        return (
            "llamacpp:requests_processing 1\n"
            f"llamacpp:prompt_seconds_total {seconds}\nllamacpp:prompt_tokens_total {tokens}\n"
        )

    summary = to_json_obj(
        summarize([(0.0, parse_metrics(page(1.0, 100))), (3.0, parse_metrics(page(3.0, 4100)))], [])
    )
    assert summary["server_prefill_ms_per_token"] == 0.5


def test_finish_ends_the_window_on_a_whole_page(page_server: tuple[str, Pages]) -> None:
    """The ticks parse the gauges only; finish() stops them before its whole-page scrape, so
    the window's last scrape has the histograms and the deltas cover the point."""
    url, state = page_server
    state.pages = [
        vllm_v1_page(running=2, waiting=0, kv=0.10, preempt=7, ttft=TTFT_A, ttft_sum=0.64),
        vllm_v1_page(running=16, waiting=4, kv=0.50, preempt=9, ttft=TTFT_B, ttft_sum=1.36),
    ]

    # The pages the scraper received (a tick's page the server sent while finish() cancelled
    # the tick was never received: counting server hits could be one more).
    received: list[MetricsSample] = []

    async def scenario() -> MetricsScraper:
        enough = asyncio.Event()

        def on_sample(sample: MetricsSample) -> None:
            received.append(sample)
            if len(received) >= 20:
                enough.set()

        scraper = MetricsScraper(
            url + "/metrics",
            interval_s=0.001,
            gauges_after_first=True,
            max_scrapes=100_000,
            on_sample=on_sample,
        )
        await scraper.start()
        # Gauges-only ticks, as fast as the server answers; the bound only ends a broken run.
        await asyncio.wait_for(enough.wait(), timeout=120)
        await scraper.finish()
        assert not scraper.running
        return scraper

    scraper = asyncio.run(scenario())
    assert scraper.latest is not None and scraper.latest.ttft is not None
    summary = to_json_obj(scraper.summary())
    assert summary["server_ttft_ms"]["count"] == 10 and summary["samples"] == len(received)
    assert summary["samples"] >= 21  # the baseline, 19 or more ticks, the closing whole page
