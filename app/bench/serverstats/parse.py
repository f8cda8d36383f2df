"""Server-side metrics: parse /metrics text (vLLM, SGLang, llama.cpp) and scrape it live."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from app.bench.http.body import MAX_METRICS_BODY_BYTES, get_small

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
        "generation_tokens": ("sglang:generation_tokens_total",),
    },
    "llamacpp": {
        "kv": ("llamacpp:kv_cache_usage_ratio",),
        "running": ("llamacpp:requests_processing",),
        "waiting": ("llamacpp:requests_deferred",),
        "generation_tokens": ("llamacpp:tokens_predicted_total",),
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


@dataclass(frozen=True)
class Histogram:
    """A cumulative Prometheus histogram summed over label sets: (upper bound, count) pairs."""

    buckets: tuple[tuple[float, float], ...]
    sum: float
    count: float

    def minus(self, earlier: Histogram) -> Histogram | None:
        """What was observed between `earlier` and this scrape; None when the two cannot be
        compared (other bucket bounds, or a count that went down: the server restarted)."""
        before = dict(earlier.buckets)
        if set(before) != {le for le, _ in self.buckets} or self.count < earlier.count:
            return None
        buckets = tuple((le, max(0.0, c - before.get(le, 0.0))) for le, c in self.buckets)
        return Histogram(
            buckets, max(0.0, self.sum - earlier.sum), max(0.0, self.count - earlier.count)
        )

    def mean(self) -> float | None:
        return self.sum / self.count if self.count > 0 else None

    def quantile(self, q: float) -> float | None:
        """Approximate quantile, linear inside the bucket (like PromQL's histogram_quantile)."""
        if self.count <= 0 or not self.buckets:
            return None
        rank = q * self.buckets[-1][1]
        lower, below = 0.0, 0.0
        for le, cumulative in self.buckets:
            if cumulative >= rank and cumulative > below:
                if math.isinf(le):
                    return lower  # only a lower bound is known past the last finite bucket
                return lower + (le - lower) * (rank - below) / (cumulative - below)
            lower, below = (le if not math.isinf(le) else lower), cumulative
        return lower

    def stats_ms(self) -> dict[str, float | int | None]:
        def ms(v: float | None) -> float | None:
            return None if v is None else round(v * 1000.0, 3)

        return {
            "count": int(self.count),
            "mean": ms(self.mean()),
            "p50": ms(self.quantile(0.50)),
            "p90": ms(self.quantile(0.90)),
            "p99": ms(self.quantile(0.99)),
        }


@dataclass(frozen=True)
class KVCapacity:
    """KV-cache pool size, from vllm:cache_config_info or sglang:max_total_num_tokens."""

    tokens: int
    num_gpu_blocks: int | None = None
    block_size: int | None = None

    def max_sequences(self, context_len: int) -> int:
        """Whole sequences of `context_len` tokens that fit at once (block-granular for vLLM)."""
        if context_len <= 0:
            raise ValueError("context length must be a positive number of tokens")
        if self.num_gpu_blocks and self.block_size:
            return self.num_gpu_blocks // math.ceil(context_len / self.block_size)
        return self.tokens // context_len

    def concurrency_ratio(self, context_len: int) -> float:
        """Pool tokens / context length: the 'Maximum concurrency ... 20.73x' vLLM logs at start."""
        return self.tokens / context_len


@dataclass(frozen=True)
class MetricsSnapshot:
    """One parsed /metrics page, reduced to what the benchmark shows."""

    server: str  # a SERVER_LABELS key
    kv_cache_usage: float | None = None  # fraction 0..1
    running: float | None = None
    waiting: float | None = None
    preemptions_total: float | None = None
    generation_tokens_total: float | None = None
    capacity: KVCapacity | None = None
    cache_config: dict[str, str] = field(default_factory=dict)
    ttft: Histogram | None = None
    itl: Histogram | None = None
    e2el: Histogram | None = None
    model_names: tuple[str, ...] = ()
    # Monotonic counters by COUNTERS key (only those the server exports).
    counters: dict[str, float] = field(default_factory=dict)
    # One line per series left out because its values were unusable (e.g. le="abc").
    dropped: tuple[str, ...] = ()


@dataclass(frozen=True)
class MetricsSample:
    """One point of the live series; preemptions count from the first scrape of the run."""

    t_s: float
    kv_cache_usage: float | None
    running: float | None
    waiting: float | None
    preemptions: float | None

    def to_dict(self) -> dict[str, float | None]:
        return asdict(self)


SERIES_KEYS = ("t_s", "kv_cache_usage", "running", "waiting", "preemptions")


def series_to_dict(samples: Iterable[MetricsSample]) -> dict[str, list[float | None]]:
    """Columnar form for result files: {"t_s": [...], "kv_cache_usage": [...], ...}."""
    rows = list(samples)
    return {key: [getattr(s, key) for s in rows] for key in SERIES_KEYS}


def series_from_dict(data: dict[str, list[float | None]]) -> list[MetricsSample]:
    columns = [data.get(key) or [] for key in SERIES_KEYS]
    n = len(columns[0])
    if any(len(c) != n for c in columns[1:]):
        raise ValueError("server-metrics series columns have different lengths")
    return [MetricsSample(*(c[i] for c in columns)) for i in range(n)]


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
    "prefix_cache_queries",
    "prefix_cache_hits",
    "spec_decode_drafts",
    "spec_decode_draft_tokens",
    "spec_decode_accepted_tokens",
)


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
        model_names=tuple(models),
        counters={
            key: value
            for key in COUNTERS
            if (value := _gauge(samples, names.get(key, ()), dropped)) is not None
        },
        dropped=tuple(dropped),
    )


def _spread(values: list[float]) -> dict[str, float] | None:
    return {"mean": round(sum(values) / len(values), 4), "max": max(values)} if values else None


def summarize(
    scrapes: list[tuple[float, MetricsSnapshot]],
    samples: list[MetricsSample],
    context_len: int | None = None,
) -> dict[str, Any]:
    """Window summary: gauge mean/max, preemptions, server TTFT/ITL/E2EL from histogram deltas."""
    out: dict[str, Any] = {"samples": len(samples)}
    for key in ("kv_cache_usage", "running", "waiting"):
        out[key] = _spread([v for s in samples if (v := getattr(s, key)) is not None])
    if not scrapes:
        return out
    first, last = scrapes[0][1], scrapes[-1][1]
    out["server"] = last.server
    out["window_s"] = round(scrapes[-1][0] - scrapes[0][0], 3)
    warnings = [line for _, snap in scrapes for line in snap.dropped]
    if first.preemptions_total is not None and last.preemptions_total is not None:
        if last.preemptions_total >= first.preemptions_total:
            out["preemptions"] = last.preemptions_total - first.preemptions_total
        else:
            warnings.append("preemptions: the counter went down (server restarted?); left out")
    if last.capacity is not None:
        cap = last.capacity
        out["kv_capacity_tokens"] = cap.tokens
        out["num_gpu_blocks"] = cap.num_gpu_blocks
        out["block_size"] = cap.block_size
        if context_len and context_len > 0:
            out["max_concurrency"] = {
                "context_len": context_len,
                "sequences": cap.max_sequences(context_len),
                "ratio": round(cap.concurrency_ratio(context_len), 2),
            }
    for key in ("ttft", "itl", "e2el"):
        a, b = getattr(first, key), getattr(last, key)
        if a is not None and b is not None:
            delta = b.minus(a)
            if delta is None:
                warnings.append(
                    f"server {key.upper()} histogram: buckets or count changed between scrapes "
                    "(server restarted?); left out"
                )
            else:
                out[f"server_{key}_ms"] = delta.stats_ms()
    deltas = _counter_deltas(first, last, warnings)
    out.update(counter_summaries(deltas))
    if warnings:
        out["warnings"] = list(dict.fromkeys(warnings))[:20]  # each once, in order
    return out


def _counter_deltas(
    first: MetricsSnapshot, last: MetricsSnapshot, warnings: list[str]
) -> dict[str, float]:
    deltas = {}
    for key in COUNTERS:
        a, b = first.counters.get(key), last.counters.get(key)
        if a is None or b is None:
            continue
        if b < a:
            warnings.append(f"{key}: the counter went down (server restarted?); left out")
            continue
        deltas[key] = b - a
    return deltas


def counter_summaries(deltas: dict[str, float]) -> dict[str, Any]:
    """The server-side prefix-cache hit rate and speculative-decoding acceptance over a
    point, from counter deltas, with vLLM's definitions: hit rate = cached prompt tokens /
    prompt tokens looked up; acceptance rate = accepted / proposed draft tokens; mean
    acceptance length = 1 + accepted / drafts (each verification step also yields the
    target model's own token)."""
    out: dict[str, Any] = {}
    queries, hits = deltas.get("prefix_cache_queries"), deltas.get("prefix_cache_hits")
    if queries is not None and hits is not None:
        out["prefix_cache"] = {
            "queries": queries,
            "hits": hits,
            "hit_rate": round(hits / queries, 4) if queries > 0 else None,
        }
    drafts = deltas.get("spec_decode_drafts")
    proposed = deltas.get("spec_decode_draft_tokens")
    accepted = deltas.get("spec_decode_accepted_tokens")
    if drafts is not None and proposed is not None and accepted is not None:
        out["spec_decode"] = {
            "drafts": drafts,
            "draft_tokens": proposed,
            "accepted_tokens": accepted,
            "acceptance_rate": round(accepted / proposed, 4) if proposed > 0 else None,
            "mean_acceptance_length": round(1 + accepted / drafts, 3) if drafts > 0 else None,
        }
    return out


class MetricsScraper:
    """Scrapes /metrics about once a second on its own connection until stopped.

    Times are seconds since `origin_ns` on `clock` (pass the sweep's clock and start so the
    series shares the latency charts' time axis). A failed scrape is skipped, not fatal.
    """

    def __init__(
        self,
        metrics_url: str,
        *,
        interval_s: float = 1.0,
        headers: dict[str, str] | None = None,
        verify_tls: bool = True,
        timeout_s: float = 2.0,
        request_timeout_s: float | None = 5.0,
        on_sample: Callable[[MetricsSample], None] | None = None,
        clock: Callable[[], int] = time.perf_counter_ns,
        origin_ns: int | None = None,
        max_samples: int = 86_400,
        max_scrapes: int = 3_600,
        gauges_after_first: bool = False,
    ) -> None:
        self.metrics_url = metrics_url
        self.interval_s = interval_s
        self._headers = dict(headers or {})
        self._verify_tls = verify_tls
        self._timeout_s = timeout_s
        # A scrape as a whole never takes longer than this (a dripping /metrics is skipped).
        self._deadline_s = min(x for x in (request_timeout_s, 5.0) if x is not None)
        self._on_sample = on_sample
        self._clock = clock
        self._origin_ns = origin_ns
        # Parsed pages carry histograms (a few kB each), so fewer are kept than light samples;
        # the first one is kept apart so whole-run deltas stay right on long runs.
        self._scrapes: deque[tuple[float, MetricsSnapshot]] = deque(maxlen=max_scrapes)
        self._first: tuple[float, MetricsSnapshot] | None = None
        self._samples: deque[MetricsSample] = deque(maxlen=max_samples)
        self._client: httpx.AsyncClient | None = None
        self._task: asyncio.Task[None] | None = None
        self._base_preemptions: float | None = None
        self._lock = asyncio.Lock()
        self.failures = 0
        self.last_error: str | None = None
        # A live view needs the gauges only: after the first full page (server kind, KV pool,
        # histogram baseline) the others are cut to those lines before parsing.
        self._gauges_after_first = gauges_after_first

    def __repr__(self) -> str:  # headers may carry a key: never show them
        return f"MetricsScraper({self.metrics_url!r}, samples={len(self._samples)})"

    @property
    def samples(self) -> list[MetricsSample]:
        return list(self._samples)

    @property
    def latest(self) -> MetricsSnapshot | None:
        return self._scrapes[-1][1] if self._scrapes else None

    @property
    def running(self) -> bool:
        """Scraping: on its own timer, or started without one (timer=False)."""
        if self._task is not None:
            return not self._task.done()
        return self._client is not None

    def now_s(self) -> float:
        return (self._clock() - (self._origin_ns or 0)) / 1e9

    def set_origin(self, origin_ns: int) -> None:
        """Re-base t_s on another instant of the same clock (e.g. the load's exact start)."""
        shift = ((origin_ns - self._origin_ns) / 1e9) if self._origin_ns is not None else 0.0
        self._origin_ns = origin_ns
        if shift:
            self._scrapes = deque(
                ((t - shift, snap) for t, snap in self._scrapes), self._scrapes.maxlen
            )
            self._samples = deque(
                (replace(s, t_s=s.t_s - shift) for s in self._samples), self._samples.maxlen
            )
            if self._first is not None:
                self._first = (self._first[0] - shift, self._first[1])

    @classmethod
    def for_endpoint(
        cls,
        resolved: Any,
        *,
        api_key: str | None = None,
        extra_headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> MetricsScraper:
        """A scraper for a ResolvedEndpoint's /metrics, sending the same auth headers."""
        from app.bench.http.endpoint import auth_headers

        headers = auth_headers(api_key, extra_headers)
        return cls(resolved.metrics_url, headers=dict(headers), **kwargs)

    @property
    def available(self) -> bool:
        """At least one scrape succeeded (False for a gateway without /metrics)."""
        return bool(self._scrapes)

    async def start(self, *, timer: bool = True) -> None:
        """Take the baseline scrape (histogram deltas count from it), then scrape on a timer
        (`timer=False`: the caller decides when, with scrape_now(); the window changes pace)."""
        if self._client is not None:
            return
        if self._origin_ns is None:
            self._origin_ns = self._clock()
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(self._timeout_s),
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            verify=self._verify_tls,
            headers=self._headers,
        )
        try:
            await self.scrape_now()
        except BaseException:
            await self.stop()
            raise
        if timer:
            self._task = asyncio.create_task(self._loop(), name="metrics-scraper")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def __aenter__(self) -> MetricsScraper:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _loop(self) -> None:
        next_at = time.monotonic()
        while True:
            # Fixed cadence, not "sleep 1 s after each scrape", so a slow page does not drift.
            next_at += self.interval_s
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            await self.scrape_now()

    async def scrape_now(self) -> MetricsSnapshot | None:
        """Scrape once (also between ticks, e.g. at a point boundary); None if it failed."""
        if self._client is None:
            raise RuntimeError("MetricsScraper.start() must be awaited first")
        async with self._lock:
            try:
                reply = await get_small(
                    self._client,
                    self.metrics_url,
                    max_bytes=MAX_METRICS_BODY_BYTES,
                    deadline_s=self._deadline_s,
                    what="the /metrics page",
                )
                if reply.status != 200:
                    raise MetricsParseError(f"HTTP {reply.status} from {self.metrics_url}")
                text = reply.body.decode("utf-8", "replace")
                if self._gauges_after_first and self._first is not None:
                    text = gauges_only(text)
                snap = parse_metrics(text)
            except Exception as exc:  # a scrape that fails is skipped, whatever the reason
                self.failures += 1
                self.last_error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
                return None
            t_s = self.now_s()
            if self._base_preemptions is None:
                self._base_preemptions = snap.preemptions_total
            preempted = (
                snap.preemptions_total - self._base_preemptions
                if snap.preemptions_total is not None and self._base_preemptions is not None
                else None
            )
            sample = MetricsSample(t_s, snap.kv_cache_usage, snap.running, snap.waiting, preempted)
            self._scrapes.append((t_s, snap))
            if self._first is None:
                self._first = (t_s, snap)
            self._samples.append(sample)
        if self._on_sample is not None:
            self._on_sample(sample)
        return snap

    def series(self, t0_s: float | None = None, t1_s: float | None = None) -> dict[str, list[Any]]:
        return series_to_dict(s for s in self._samples if _inside(s.t_s, t0_s, t1_s))

    def summary(
        self, t0_s: float | None = None, t1_s: float | None = None, context_len: int | None = None
    ) -> dict[str, Any]:
        """Summary of [t0_s, t1_s]; histogram deltas run from the last scrape at or before t0_s."""
        scrapes = list(self._scrapes)
        if self._first is not None and (not scrapes or scrapes[0][1] is not self._first[1]):
            scrapes.insert(0, self._first)
        start = 0
        if t0_s is not None:
            before = [i for i, (t, _) in enumerate(scrapes) if t <= t0_s]
            start = before[-1] if before else 0
        window = [sc for sc in scrapes[start:] if t1_s is None or sc[0] <= t1_s]
        samples = [s for s in self._samples if _inside(s.t_s, t0_s, t1_s)]
        return summarize(window, samples, context_len)


def result_block(
    scraper: MetricsScraper, context_len: int | None = None, client: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What a point's result file stores under tpotbench.server_metrics (schema 1).

    `client` is the point's vLLM-style summary: with it, server TTFT/ITL means are set beside
    the client's, and the gap (network + client overhead + queueing outside the engine) is given.
    """
    block: dict[str, Any] = {"schema": 1, "metrics_url": scraper.metrics_url}
    if not scraper.available:
        block["error"] = scraper.last_error or "no successful scrape"
        return block
    block.update(scraper.summary(context_len=context_len))
    block["series"] = scraper.series()
    if client:
        gaps = {}
        for key in ("ttft", "itl", "e2el"):
            server = (block.get(f"server_{key}_ms") or {}).get("mean")
            mine = client.get(f"mean_{key}_ms")
            if isinstance(server, int | float) and isinstance(mine, int | float):
                gaps[f"{key}_ms"] = {
                    "client_mean": round(mine, 3),
                    "server_mean": server,
                    "gap": round(mine - server, 3),
                }
        block["vs_client"] = gaps
    return block


def _inside(t: float, t0: float | None, t1: float | None) -> bool:
    return (t0 is None or t >= t0) and (t1 is None or t <= t1)
