"""What one /metrics scrape holds: gauges, histograms, KV capacity, and the sampled series."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from app.bench.schema.point_blocks import HistogramFigures


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

    def stats_ms(self) -> HistogramFigures:
        # Rounded here, not on the wire: the client/server gap is taken from the stored mean.
        def ms(v: float | None) -> float | None:
            return None if v is None else round(v * 1000.0, 3)

        return HistogramFigures(
            int(self.count),
            ms(self.mean()),
            ms(self.quantile(0.50)),
            ms(self.quantile(0.90)),
            ms(self.quantile(0.99)),
        )


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
    # Per-request phase histograms ('queue', 'prefill', 'decode', 'inference') the server has.
    phases: dict[str, Histogram] = field(default_factory=dict)
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
