"""Parsing one /metrics page (vLLM, SGLang, llama.cpp, TGI) into a MetricsSnapshot."""

from __future__ import annotations

import itertools
import math
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from app.bench.serverstats.snapshot import Histogram, KVCapacity, MetricsSnapshot

# Metric names per server family, first match wins. vLLM V1 renamed gpu_cache_usage_perc to
# kv_cache_usage_perc; both are fractions 0..1 despite "perc". Counters are read by their sample
# name (with _total), which the parser keeps whatever the TYPE line says.
_NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "vllm": {
        "kv": ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
        "running": ("vllm:num_requests_running",),
        "waiting": ("vllm:num_requests_waiting",),
        "preemptions": ("vllm:num_preemptions_total",),
        "ttft": ("vllm:time_to_first_token_seconds",),
        # V0 had only time_per_output_token_seconds, which is per-token (an ITL), not per-request.
        "itl": ("vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"),
        "e2el": ("vllm:e2e_request_latency_seconds",),
        # Per-request phases: waiting for a slot, prefill (scheduled to first token), decode
        # (first to last token) and the two together; vLLM V1 exports all four.
        "queue": ("vllm:request_queue_time_seconds",),
        "prefill": ("vllm:request_prefill_time_seconds",),
        "decode": ("vllm:request_decode_time_seconds",),
        "inference": ("vllm:request_inference_time_seconds",),
        "generation_tokens": ("vllm:generation_tokens_total",),
        # Counters whose deltas over a point are summarised (see COUNTERS).
        "prefix_cache_queries": ("vllm:prefix_cache_queries_total",),
        "prefix_cache_hits": ("vllm:prefix_cache_hits_total",),
        "spec_decode_drafts": ("vllm:spec_decode_num_drafts_total",),
        "spec_decode_draft_tokens": ("vllm:spec_decode_num_draft_tokens_total",),
        "spec_decode_accepted_tokens": ("vllm:spec_decode_num_accepted_tokens_total",),
    },
    "sglang": {
        "kv": ("sglang:token_usage",),
        "running": ("sglang:num_running_reqs",),
        "waiting": ("sglang:num_queue_reqs",),
        "preemptions": ("sglang:num_retracted_requests_total",),
        "ttft": ("sglang:time_to_first_token_seconds",),
        "itl": ("sglang:inter_token_latency_seconds",),
        "e2el": ("sglang:e2e_request_latency_seconds",),
        "queue": ("sglang:queue_time_seconds",),
        "generation_tokens": ("sglang:generation_tokens_total",),
    },
    "llamacpp": {
        "kv": ("llamacpp:kv_cache_usage_ratio",),
        "running": ("llamacpp:requests_processing",),
        "waiting": ("llamacpp:requests_deferred",),
        "generation_tokens": ("llamacpp:tokens_predicted_total",),
        # Time spent on prompts and on generation, summed over requests: a point's prefill
        # and decode shares from their deltas.
        "prompt_seconds": ("llamacpp:prompt_seconds_total",),
        "prompt_tokens": ("llamacpp:prompt_tokens_total",),
        "decode_seconds": ("llamacpp:tokens_predicted_seconds_total",),
    },
    "tgi": {
        "running": ("tgi_batch_current_size",),
        "waiting": ("tgi_queue_size",),
    },
}

SERVER_LABELS = {
    "vllm": "vLLM (V1 metric names)",
    "vllm-legacy": "vLLM (legacy V0 metric names)",
    "sglang": "SGLang",
    "llamacpp": "llama.cpp server",
    "tgi": "Text Generation Inference",
    "unknown": "unrecognised Prometheus exporter",
}

Samples = dict[str, list[tuple[dict[str, str], float]]]


class MetricsParseError(ValueError):
    """The text is not in the Prometheus exposition format."""


def _flatten(text: str) -> Samples:
    samples: Samples = {}
    try:
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                samples.setdefault(s.name, []).append((dict(s.labels), _float(s.value)))
    except Exception as exc:  # the parser's errors are not one type; a page is never fatal
        raise MetricsParseError(f"not Prometheus text: {exc}"[:300]) from None
    return samples


def _float(value: Any) -> float:
    """A sample's value as a float; an integer past a float's range is infinite (and so
    dropped by the checks below) rather than an error that would lose the whole page."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def detect_server(samples: Samples | str) -> str:
    """Which server wrote this page (a SERVER_LABELS key)."""
    names = _flatten(samples) if isinstance(samples, str) else samples
    if any(n.startswith("vllm:") for n in names):
        return "vllm" if "vllm:kv_cache_usage_perc" in names else "vllm-legacy"
    for prefix, kind in (("sglang:", "sglang"), ("llamacpp:", "llamacpp"), ("tgi_", "tgi")):
        if any(n.startswith(prefix) for n in names):
            return kind
    return "unknown"


def _first(samples: Samples, names: tuple[str, ...]) -> list[tuple[dict[str, str], float]] | None:
    for name in names:
        if name in samples:
            return samples[name]
    return None


def _gauge(
    samples: Samples, names: tuple[str, ...], dropped: list[str], mean: bool = False
) -> float | None:
    """A gauge or counter summed (or averaged) over its series; these are all counts or
    fractions, so a negative or infinite value drops the metric."""
    rows = _first(samples, names)
    if not rows:
        return None
    values = [v for _, v in rows if not math.isnan(v)]
    if not values:
        return None
    bad = next((v for v in values if not 0.0 <= v < math.inf), None)
    if bad is not None:
        name = next(n for n in names if n in samples)
        dropped.append(f"{name}: value {bad} is not a count; series dropped")
        return None
    # Data-parallel engines each export their own series: queues add up, usage fractions average.
    return sum(values) / len(values) if mean else sum(values)


def _histogram(samples: Samples, names: tuple[str, ...], dropped: list[str]) -> Histogram | None:
    for base in names:
        rows = samples.get(base + "_bucket")
        if not rows:
            continue
        problem = _histogram_problem(samples, base)
        if problem:
            dropped.append(f"{base}: {problem}; series dropped")
            return None
        by_le: dict[float, float] = {}
        for labels, value in rows:
            le = float(labels.get("le", "+Inf"))
            by_le[le] = by_le.get(le, 0.0) + value
        total = sum(v for _, v in samples.get(base + "_sum", []))
        count = sum(v for _, v in samples.get(base + "_count", []))
        buckets = tuple(sorted(by_le.items()))
        if any(b[1] < a[1] for a, b in itertools.pairwise(buckets)):
            dropped.append(f"{base}: bucket counts are not cumulative; series dropped")
            return None
        return Histogram(buckets, total, count)
    return None


def _histogram_problem(samples: Samples, base: str) -> str | None:
    """Why a histogram cannot be used (None when it can): bounds must be numbers, counts and
    sums finite and not negative."""
    for labels, value in samples.get(base + "_bucket", []):
        bound = labels.get("le", "+Inf")
        try:
            if math.isnan(float(bound)):
                raise ValueError
        except ValueError:
            return f"bucket bound le={bound!r} is not a number"
        if not 0.0 <= value < math.inf:
            return f"bucket count {value} is not a count"
    for suffix in ("_sum", "_count"):
        for _, value in samples.get(base + suffix, []):
            if not 0.0 <= value < math.inf:
                return f"{suffix[1:]} {value} is not a finite, non-negative number"
    return None


def _capacity(samples: Samples, dropped: list[str]) -> tuple[KVCapacity | None, dict[str, str]]:
    rows = samples.get("vllm:cache_config_info")
    if rows:
        labels = rows[0][0]
        try:
            blocks, size = int(labels["num_gpu_blocks"]), int(labels["block_size"])
        except (KeyError, ValueError):
            return None, labels
        if blocks <= 0 or size <= 0:
            dropped.append(
                f"vllm:cache_config_info: num_gpu_blocks={blocks}, block_size={size} are not "
                "a KV pool; capacity dropped"
            )
            return None, labels
        return KVCapacity(blocks * size, blocks, size), labels
    tokens = _gauge(samples, ("sglang:max_total_num_tokens",), dropped)
    if tokens and tokens >= 1:
        return KVCapacity(int(tokens)), {}
    return None, {}


COUNTERS = (
    "prompt_seconds",
    "prompt_tokens",
    "decode_seconds",
    "prefix_cache_queries",
    "prefix_cache_hits",
    "spec_decode_drafts",
    "spec_decode_draft_tokens",
    "spec_decode_accepted_tokens",
)

# Per-request phase histograms (seconds), by _NAMES key.
PHASES = ("queue", "prefill", "decode", "inference")

_GAUGE_NAMES = frozenset(
    name
    for families in _NAMES.values()
    for key in ("kv", "running", "waiting", "preemptions")
    for name in families.get(key, ())
)


def gauges_only(text: str) -> str:
    """The lines of a /metrics page that carry the live gauges (KV usage, running, waiting,
    preemptions), without comments: a page of histograms parses in a fraction of the time."""
    keep = []
    for line in text.splitlines():
        if line[:1] == "#" or not line:
            continue
        end = min((i for i in (line.find("{"), line.find(" ")) if i >= 0), default=len(line))
        if line[:end] in _GAUGE_NAMES:
            keep.append(line)
    return "\n".join(keep) + "\n"


def parse_metrics(text: str) -> MetricsSnapshot:
    """Parse one /metrics page; missing metrics stay None. Raises MetricsParseError."""
    samples = _flatten(text)
    server = detect_server(samples)
    names = _NAMES.get("vllm" if server == "vllm-legacy" else server, {})
    dropped: list[str] = []
    capacity, cache_config = _capacity(samples, dropped)
    models = sorted(
        {
            labels["model_name"]
            for rows in samples.values()
            for labels, _ in rows
            if "model_name" in labels
        }
    )
    return MetricsSnapshot(
        server=server,
        kv_cache_usage=_gauge(samples, names.get("kv", ()), dropped, mean=True),
        running=_gauge(samples, names.get("running", ()), dropped),
        waiting=_gauge(samples, names.get("waiting", ()), dropped),
        preemptions_total=_gauge(samples, names.get("preemptions", ()), dropped),
        generation_tokens_total=_gauge(samples, names.get("generation_tokens", ()), dropped),
        capacity=capacity,
        cache_config=cache_config,
        ttft=_histogram(samples, names.get("ttft", ()), dropped),
        itl=_histogram(samples, names.get("itl", ()), dropped),
        e2el=_histogram(samples, names.get("e2el", ()), dropped),
        phases={
            key: hist
            for key in PHASES
            if (hist := _histogram(samples, names.get(key, ()), dropped)) is not None
        },
        model_names=tuple(models),
        counters={
            key: value
            for key in COUNTERS
            if (value := _gauge(samples, names.get(key, ()), dropped)) is not None
        },
        dropped=tuple(dropped),
    )
