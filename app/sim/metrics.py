"""The simulator's /metrics: vLLM V1's Prometheus names and labels in a private registry."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from app.sim.sequence import SimRequest

# Bucket edges as vLLM's V1 Prometheus logger declares them.
_TTFT_BUCKETS = (
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
    10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
)  # fmt: skip
_ITL_BUCKETS = (
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0,
)  # fmt: skip
_REQUEST_BUCKETS = (
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
    240.0, 480.0, 960.0, 1920.0, 7680.0,
)  # fmt: skip

CONTENT_TYPE = CONTENT_TYPE_LATEST


class SimMetrics:
    """Implements the engine's observer and renders the Prometheus text page."""

    # Long on purpose: the declarations of vLLM's metric families, one after another.
    def __init__(
        self,
        model_name: str,
        *,
        block_size: int,
        num_gpu_blocks: int,
        cache_dtype: str,
        gpu_memory_utilization: float,
        enable_prefix_caching: bool = True,
        num_speculative_tokens: int = 0,
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        labels = ["model_name", "engine"]
        values = {"model_name": model_name, "engine": "0"}
        reg = self.registry

        def gauge(name: str, doc: str) -> Gauge:
            return Gauge(name, doc, labels, registry=reg).labels(**values)

        def counter(name: str, doc: str) -> Counter:
            return Counter(name, doc, labels, registry=reg).labels(**values)

        def histogram(name: str, doc: str, buckets: tuple[float, ...]) -> Histogram:
            return Histogram(name, doc, labels, registry=reg, buckets=buckets).labels(**values)

        self.running = gauge(
            "vllm:num_requests_running", "Number of requests in model execution batches."
        )
        self.waiting = gauge(
            "vllm:num_requests_waiting", "Number of requests waiting to be processed."
        )
        self.kv_usage = gauge(
            "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage."
        )
        self.prompt_tokens = counter("vllm:prompt_tokens", "Number of prefill tokens processed.")
        self.generation_tokens = counter(
            "vllm:generation_tokens", "Number of generation tokens processed."
        )
        self.preemptions = counter(
            "vllm:num_preemptions", "Cumulative number of preemption from the engine."
        )
        self.ttft = histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            _TTFT_BUCKETS,
        )
        self.itl = histogram(
            "vllm:inter_token_latency_seconds",
            "Histogram of inter-token latency in seconds.",
            _ITL_BUCKETS,
        )
        self.e2e = histogram(
            "vllm:e2e_request_latency_seconds",
            "Histogram of e2e request latency in seconds.",
            _REQUEST_BUCKETS,
        )
        self.queue = histogram(
            "vllm:request_queue_time_seconds",
            "Histogram of time spent in WAITING phase for request.",
            _REQUEST_BUCKETS,
        )
        # vLLM V1's per-request phases: prefill from scheduling to the first token, decode from
        # there to the last, inference the two together.
        self.prefill = histogram(
            "vllm:request_prefill_time_seconds",
            "Histogram of time spent in PREFILL phase for request.",
            _REQUEST_BUCKETS,
        )
        self.decode = histogram(
            "vllm:request_decode_time_seconds",
            "Histogram of time spent in DECODE phase for request.",
            _REQUEST_BUCKETS,
        )
        self.inference = histogram(
            "vllm:request_inference_time_seconds",
            "Histogram of time spent in RUNNING phase for request.",
            _REQUEST_BUCKETS,
        )
        # vLLM V1 counts prefix-cache lookups in tokens: a scheduled prompt (a preempted
        # request again, with its output so far) queries all its tokens, hits what was cached.
        self.prefix_queries = counter(
            "vllm:prefix_cache_queries",
            "Prefix cache queries, in terms of number of queried tokens.",
        )
        self.prefix_hits = counter(
            "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens."
        )
        self.spec = _spec_decode_counters(reg, values, num_speculative_tokens)
        self._success = Counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            [*labels, "finished_reason"],
            registry=reg,
        )
        self._success_by_reason = {
            reason: self._success.labels(finished_reason=reason, **values)
            for reason in ("stop", "length", "abort")
        }
        _declare_cache_config(
            reg,
            {
                "block_size": str(block_size),
                "cache_dtype": cache_dtype,
                "gpu_memory_utilization": str(gpu_memory_utilization),
                "num_gpu_blocks": str(num_gpu_blocks),
                "num_cpu_blocks": "0",
                "enable_prefix_caching": str(enable_prefix_caching),
                "engine": "0",
            },
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)

    # --- EngineObserver ---------------------------------------------------------------------
    def on_step(self, running: int, waiting: int, kv_usage: float) -> None:
        self.running.set(running)
        self.waiting.set(waiting)
        self.kv_usage.set(kv_usage)

    def on_preemption(self) -> None:
        self.preemptions.inc()

    def on_scheduled(self, req: SimRequest) -> None:
        if req.scheduled_ns is not None:
            self.queue.observe((req.scheduled_ns - req.arrival_ns) / 1e9)

    def on_first_token(self, req: SimRequest) -> None:
        self.prompt_tokens.inc(req.prompt_tokens)
        self.generation_tokens.inc(req.step_tokens)
        if req.first_token_ns is not None:
            self.ttft.observe((req.first_token_ns - req.arrival_ns) / 1e9)
            if req.scheduled_ns is not None:
                self.prefill.observe(max(0, req.first_token_ns - req.scheduled_ns) / 1e9)

    def on_token(self, req: SimRequest, itl_s: float) -> None:
        self.generation_tokens.inc(req.step_tokens)
        self.itl.observe(itl_s)

    def on_prefix_lookup(self, queried_tokens: int, hit_tokens: int) -> None:
        self.prefix_queries.inc(queried_tokens)
        self.prefix_hits.inc(hit_tokens)

    def on_spec_decode(self, drafts: int, draft_tokens: int, accepted_per_pos: list[int]) -> None:
        if self.spec is None:
            return
        num_drafts, num_draft_tokens, num_accepted, per_pos = self.spec
        num_drafts.inc(drafts)
        num_draft_tokens.inc(draft_tokens)
        num_accepted.inc(sum(accepted_per_pos))
        for counter, accepted in zip(per_pos, accepted_per_pos, strict=False):
            counter.inc(accepted)

    def on_aborted(self, req: SimRequest) -> None:
        self._success_by_reason["abort"].inc()

    def on_finished(self, req: SimRequest) -> None:
        self._success_by_reason.get(req.final_reason, self._success_by_reason["stop"]).inc()
        if req.last_token_ns is not None:
            self.e2e.observe((req.last_token_ns - req.arrival_ns) / 1e9)
            if req.first_token_ns is not None:
                self.decode.observe(max(0, req.last_token_ns - req.first_token_ns) / 1e9)
            if req.scheduled_ns is not None:
                self.inference.observe(max(0, req.last_token_ns - req.scheduled_ns) / 1e9)


SpecCounters = tuple[Counter, Counter, Counter, list[Counter]]


def _spec_decode_counters(
    reg: CollectorRegistry, values: dict[str, str], k: int
) -> SpecCounters | None:
    """vLLM's speculative-decoding counters (drafts, draft tokens, accepted tokens, accepted
    per draft position), declared only when k drafts per step are on, as in vLLM."""
    if not k:
        return None
    labels = list(values)

    def counter(name: str, doc: str) -> Counter:
        return Counter(name, doc, labels, registry=reg).labels(**values)

    per_pos = Counter(
        "vllm:spec_decode_num_accepted_tokens_per_pos",
        "Accepted tokens per draft position.",
        [*labels, "position"],
        registry=reg,
    )
    return (
        counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts."),
        counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens."),
        counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens."),
        [per_pos.labels(position=str(i), **values) for i in range(k)],
    )


def _declare_cache_config(reg: CollectorRegistry, info: dict[str, str]) -> None:
    """vLLM's cache_config_info: a gauge fixed at 1 whose labels carry the KV cache settings."""
    Gauge(
        "vllm:cache_config_info",
        "Information of the LLMEngine CacheConfig",
        list(info),
        registry=reg,
    ).labels(**info).set(1)
