"""/metrics parsed with prometheus_client's own parser: vLLM V1 names, labels and counts."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families


def scrape(base_url: str) -> dict[str, list]:  # type: ignore[type-arg]
    text = httpx.get(f"{base_url}/metrics").text
    return {family.name: family.samples for family in text_string_to_metric_families(text)}


def value(samples: list, name: str, **labels: str) -> float:  # type: ignore[type-arg]
    matches = [
        s.value
        for s in samples
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    ]
    assert len(matches) == 1, (name, labels, matches)
    return float(matches[0])


def test_vllm_v1_metric_names_and_labels(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim()
    families = scrape(sim.base_url)
    expected = {
        "vllm:num_requests_running": "gauge",
        "vllm:num_requests_waiting": "gauge",
        "vllm:kv_cache_usage_perc": "gauge",
        "vllm:cache_config_info": "gauge",
        "vllm:prompt_tokens": "counter",
        "vllm:generation_tokens": "counter",
        "vllm:num_preemptions": "counter",
        "vllm:request_success": "counter",
        "vllm:time_to_first_token_seconds": "histogram",
        "vllm:inter_token_latency_seconds": "histogram",
        "vllm:e2e_request_latency_seconds": "histogram",
        "vllm:request_queue_time_seconds": "histogram",
    }
    assert set(expected) <= set(families)
    for name in expected:
        for sample in families[name]:
            assert sample.labels.get("engine") == "0"
            if name != "vllm:cache_config_info":
                assert sample.labels["model_name"] == "qwen2.5-7b"
    (info,) = families["vllm:cache_config_info"]
    assert info.labels["num_gpu_blocks"] == "5306"
    assert info.labels["block_size"] == "16"
    assert info.labels["gpu_memory_utilization"] == "0.85"
    assert "cache_dtype" in info.labels
    assert value(families["vllm:prompt_tokens"], "vllm:prompt_tokens_total") == 0


def test_counters_follow_requests(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim()
    body = {"model": "qwen2.5-7b", "prompt": "one two three", "max_tokens": 4}
    for _ in range(2):
        assert httpx.post(f"{sim.base_url}/v1/completions", json=body).status_code == 200
    families = scrape(sim.base_url)
    assert value(families["vllm:prompt_tokens"], "vllm:prompt_tokens_total") == 6
    assert value(families["vllm:generation_tokens"], "vllm:generation_tokens_total") == 8
    success = families["vllm:request_success"]
    assert value(success, "vllm:request_success_total", finished_reason="length") == 2
    ttft = families["vllm:time_to_first_token_seconds"]
    assert value(ttft, "vllm:time_to_first_token_seconds_count") == 2
    itl = families["vllm:inter_token_latency_seconds"]
    assert value(itl, "vllm:inter_token_latency_seconds_count") == 6  # 3 gaps per request
    assert value(families["vllm:num_requests_running"], "vllm:num_requests_running") == 0
    assert value(families["vllm:kv_cache_usage_perc"], "vllm:kv_cache_usage_perc") == 0


def test_a_dropped_stream_counts_as_abort(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(faults=["cut"])
    body = {"prompt": "x", "max_tokens": 6, "ignore_eos": True, "stream": True}
    try:
        with httpx.stream("POST", f"{sim.base_url}/v1/completions", json=body) as response:
            for _ in response.iter_lines():
                pass
    except httpx.RemoteProtocolError:
        pass
    success = scrape(sim.base_url)["vllm:request_success"]
    assert value(success, "vllm:request_success_total", finished_reason="abort") == 1
    assert value(success, "vllm:request_success_total", finished_reason="length") == 0
    running = scrape(sim.base_url)["vllm:num_requests_running"]
    assert value(running, "vllm:num_requests_running") == 0
