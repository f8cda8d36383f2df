"""Per-point aggregation of request records with `vllm bench serve`'s metric definitions.

Per request (successful ones only, as vLLM): TTFT from send to the first message with
non-empty `choices`; ITLs are the gaps between successive such messages, pooled over all
requests (a chunk carrying k tokens is one gap); E2EL from send to the last such message;
TPOT = (E2EL - TTFT) / (n - 1) with n = output tokens from `usage` (requests with n <= 1 have
no TPOT, and count as TPOT 0 for goodput). Per point: mean, median, population std and
percentiles with numpy's linear interpolation (an empty list reads as 0, as vLLM's
`np.mean(x or 0)`); throughputs divide by the duration given by the runner (first send to last
completion). Peak output tokens/s and peak concurrency follow vLLM exactly (one-second buckets
counting one per streamed message; a sweep line over successful requests). Extras vLLM lacks:
a token-weighted peak, tokens per chunk, client slot wait, TTFT to the first chunk with
content (`ttft_first_content`: differs from vLLM's when a server sends a role-only delta before
generating), failures grouped by kind; for reasoning models TTFO (to the first chunk of visible
answer text) and the answer phase's own TPOT, reasoning tokens (usage's
completion_tokens_details, else counted per reasoning delta); cached prompt tokens (usage's
prompt_tokens_details) and the client-side prefix-cache hit rate.

One known difference: vLLM stamps each SSE message separately, so a role-only delta that
arrives in the same network read as the first content adds a near-zero ITL to its pool; our
records stamp once per read and cannot see that delta, so no such gap is counted here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.bench.http.record import RequestRecord
from app.bench.metrics.options import DEFAULT_PERCENTILES, GOODPUT_METRICS, percentile_word
from app.bench.metrics.peaks import peak_concurrency, peak_tokens_per_s
from app.bench.metrics.request import (
    prompt_tokens_of,
    record_usage_problem,
    request_tpot,
    vllm_timings,
)


@dataclass(frozen=True)
class Stats:
    """Summary of one metric in milliseconds; `percentiles` maps '99' -> value."""

    mean: float
    median: float
    std: float
    percentiles: dict[str, float]

    @classmethod
    def of_seconds(cls, values_s: Sequence[float], percentiles: Iterable[float]) -> Stats:
        data: Any = list(values_s) or 0  # vLLM's `x or 0`: an empty list summarises as 0
        return cls(
            mean=float(np.mean(data)) * 1000,
            median=float(np.median(data)) * 1000,
            std=float(np.std(data)) * 1000,
            percentiles={
                percentile_word(p): float(np.percentile(data, p)) * 1000 for p in percentiles
            },
        )


@dataclass(frozen=True)
class FailureGroup:
    kind: str
    count: int
    example: str


@dataclass
class PointMetrics:
    """Everything `vllm bench serve` computes for one run, plus our extras."""

    completed: int
    failed: int
    total_input: int
    total_output: int
    duration_s: float
    request_throughput: float
    request_goodput: float | None
    output_throughput: float
    total_token_throughput: float
    stats: dict[str, Stats]
    max_output_tokens_per_s: float
    max_concurrent_requests: int
    peak_output_tokens_per_s_weighted: float
    tokens_per_chunk_mean: float
    tokens_per_chunk_max: int | None
    multi_token_chunk_share: float | None
    failures: list[FailureGroup]
    output_tokens_source: dict[str, int]
    # Per-request arrays in request order (failed requests hold 0 / [] like vLLM's), seconds.
    input_lens: list[int] = field(default_factory=list)
    output_lens: list[int] = field(default_factory=list)
    ttfts: list[float] = field(default_factory=list)
    itls: list[list[float]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    start_times: list[float] = field(default_factory=list)
    queue_times: list[float] = field(default_factory=list)
    generated_texts: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    chunk_counts: list[int] = field(default_factory=list)
    # Tokens each of a request's ITL gaps delivered (None: the server did not say per chunk);
    # other tools' definitions (SGLang's per-token ITL) need them.
    itl_tokens: list[list[int] | None] = field(default_factory=list)
    error_kinds: list[str | None] = field(default_factory=list)
    # Send to end (last byte, or the failure), every request: when a failed one gave up.
    elapsed_s: list[float | None] = field(default_factory=list)
    # Tokens each request got, a failed one's too (vLLM's output_lens says 0 for those).
    received_tokens: list[int] = field(default_factory=list)
    # requests sent a second time on a new connection (the kept-alive one was closed)
    retried: int = 0
    retried_flags: list[bool] = field(default_factory=list)
    # How the requests' chunk times were stamped (wire/stamps.py kinds): requests per kind,
    # and why each kind was used (the first request's words)
    stamping: dict[str, int] = field(default_factory=dict)
    stamping_why: dict[str, str] = field(default_factory=dict)
    # Reasoning models and prefix caching (extras; None when no request said anything)
    reasoning_tokens_total: int | None = None
    reasoning_tokens_source: dict[str, int] = field(default_factory=dict)
    cached_tokens_total: int | None = None
    prompt_tokens_with_cache_info: int = 0
    ttfos: list[float | None] = field(default_factory=list)
    reasoning_lens: list[int | None] = field(default_factory=list)
    cached_lens: list[int | None] = field(default_factory=list)

    @property
    def client_prefix_hit_rate(self) -> float | None:
        """Cached prompt tokens / prompt tokens of the point's successful requests, once any
        reply said how many were cached: vLLM leaves prompt_tokens_details out of a reply
        with none cached, so a reply without it counts as 0 cached."""
        if self.cached_tokens_total is None or not self.prompt_tokens_with_cache_info:
            return None
        return self.cached_tokens_total / self.prompt_tokens_with_cache_info


@dataclass
class _Pools:
    """A point's successful requests, pooled as they are added: latencies in seconds, the
    token timeline for the peak figures, chunk sizes, reasoning and cache counts."""

    ttfts: list[float] = field(default_factory=list)
    content_ttfts: list[float] = field(default_factory=list)
    ttfos: list[float] = field(default_factory=list)
    answer_tpots: list[float] = field(default_factory=list)
    tpots: list[float] = field(default_factory=list)
    all_tpots: list[float] = field(default_factory=list)  # 0 for n <= 1, as vLLM's goodput
    itls: list[float] = field(default_factory=list)
    e2els: list[float] = field(default_factory=list)
    queue: list[float] = field(default_factory=list)
    e2el_queue: list[float] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)
    token_times: list[list[float]] = field(default_factory=list)
    token_weights: list[list[float]] = field(default_factory=list)
    reasoning_total: int | None = None
    reasoning_sources: dict[str, int] = field(default_factory=dict)
    cached_total: int | None = None
    cached_prompt: int = 0
    chunks_total: int = 0
    chunk_max: int | None = None
    multi_chunks: int = 0
    known_chunks: int = 0
    sources: dict[str, int] = field(default_factory=dict)
    completed: int = 0
    total_input: int = 0
    total_output: int = 0

    def add(self, out: PointMetrics, record: RequestRecord, prompt_len: int, wait_s: float) -> None:
        """One successful request: into the pools and `out`'s per-request columns."""
        self.completed += 1
        n = int(record.output_tokens or 0) or 1  # vLLM's fallback when nothing counted tokens
        source = record.output_tokens_source or "usage"
        self.sources[source] = self.sources.get(source, 0) + 1
        ttft, gaps, e2el, stamps = vllm_timings(record)
        if record.first_token_ns is not None:
            self.content_ttfts.append((record.first_token_ns - record.send_ns) / 1e9)
        self._reasoning_and_cache(out, record, prompt_len)
        tpot = request_tpot(ttft, e2el, n)
        if tpot is not None:
            self.tpots.append(tpot)
        self.all_tpots.append(tpot or 0.0)
        self.ttfts.append(ttft)
        self.e2els.append(e2el)
        self.itls.extend(gaps)
        self.queue.append(wait_s)
        self.e2el_queue.append(e2el + wait_s)
        self.total_input += prompt_len
        self.total_output += n
        out.output_lens.append(n)
        out.ttfts.append(ttft)
        out.itls.append(gaps)
        out.itl_tokens.append(_gap_tokens(record, len(gaps)))
        out.latencies.append(e2el)
        self._timeline(record, n, e2el, stamps)

    def _reasoning_and_cache(self, out: PointMetrics, record: RequestRecord, prompt: int) -> None:
        ttfo = getattr(record, "ttfo_s", None)
        out.ttfos.append(ttfo)
        if ttfo is not None:
            self.ttfos.append(ttfo)
            answer_tpot = record.answer_tpot_s
            if answer_tpot is not None:
                self.answer_tpots.append(answer_tpot)
        reasoning = getattr(record, "reasoning_tokens", None)
        out.reasoning_lens.append(reasoning)
        if reasoning is not None:
            self.reasoning_total = (self.reasoning_total or 0) + reasoning
            kind_of = record.reasoning_tokens_source or "counted"
            self.reasoning_sources[kind_of] = self.reasoning_sources.get(kind_of, 0) + 1
        cached = getattr(record, "cached_tokens", None)
        out.cached_lens.append(cached)
        if cached is not None:
            self.cached_total = (self.cached_total or 0) + cached
        self.cached_prompt += prompt

    def _timeline(self, record: RequestRecord, n: int, e2el: float, stamps: list[int]) -> None:
        """The request's span and token times for the peak figures, and its chunk sizes."""
        start = record.send_ns / 1e9
        self.starts.append(start)
        self.ends.append(start + e2el)
        times = [start + (t - record.send_ns) / 1e9 for t in stamps]
        self.token_times.append(times)
        content = len(record.chunk_ns)
        lead = [0.0] * (len(times) - content)  # a role-only first delta carries no token
        sizes = record.chunk_tokens
        if sizes and len(sizes) == content:
            self.token_weights.append(lead + [float(s) for s in sizes])
            self.chunk_max = max([self.chunk_max or 0, *sizes])
            self.known_chunks += len(sizes)
            self.multi_chunks += sum(1 for s in sizes if s > 1)
        else:
            self.token_weights.append(lead + [n / max(content, 1)] * content)
        self.chunks_total += content

    def good(self, goodput: dict[str, float] | None) -> int:
        """Requests within every goodput limit (ms), as vLLM counts them."""
        good = 0
        if goodput:
            columns = {"ttft": self.ttfts, "tpot": self.all_tpots, "e2el": self.e2els}
            names = [name for name in GOODPUT_METRICS if name in goodput]
            for values in zip(*(columns[name] for name in names), strict=True):
                if all(goodput[name] / 1000 >= v for name, v in zip(names, values, strict=True)):
                    good += 1
        return good


def _gap_tokens(record: RequestRecord, gaps: int) -> list[int] | None:
    """The tokens of the chunk that ends each gap: the last `gaps` content chunks (a leading
    role-only message starts the first gap without carrying a token)."""
    sizes = record.chunk_tokens
    if not gaps or not sizes or len(sizes) != len(record.chunk_ns) or gaps > len(sizes):
        return None if gaps else []
    return [int(s) for s in sizes[len(sizes) - gaps :]]


def _add_columns(
    out: PointMetrics, record: RequestRecord, origin_ns: int
) -> tuple[str | None, str, int, float]:
    """The columns every request has, failed or not; returns (failure kind or None, error,
    prompt tokens, slot wait in s)."""
    ok = bool(record.ok)
    problem = record_usage_problem(record) if ok else None
    ok = ok and problem is None
    retried = bool(getattr(record, "retried", False))
    out.retried += retried
    out.retried_flags.append(retried)
    stamping = getattr(record, "stamping", "")
    if stamping:
        out.stamping[stamping] = out.stamping.get(stamping, 0) + 1
        out.stamping_why.setdefault(stamping, getattr(record, "stamping_why", ""))
    wait_s = (record.slot_wait_ns or 0) / 1e9
    out.queue_times.append(wait_s)
    out.start_times.append((record.send_ns - origin_ns) / 1e9)
    out.generated_texts.append(record.generated_text or "")
    error = problem or ("" if ok else (record.error or ""))
    kind = "malformed_usage" if problem else None if ok else (record.error_kind or "unknown")
    out.errors.append(error)
    out.error_kinds.append(kind)
    out.chunk_counts.append(len(record.chunk_ns) if ok else 0)
    end_ns = getattr(record, "end_ns", None)
    out.elapsed_s.append((end_ns - record.send_ns) / 1e9 if end_ns else None)
    out.received_tokens.append(int(record.output_tokens or 0))
    prompt_len = prompt_tokens_of(record)
    out.input_lens.append(prompt_len)
    return kind, error, prompt_len, wait_s


def _add_failure(
    out: PointMetrics, failures: dict[str, FailureGroup], kind: str, error: str
) -> None:
    """A failed request: counted under its kind (the first one's error is the example);
    vLLM's 0 / [] in its per-request columns."""
    group = failures.get(kind)
    failures[kind] = FailureGroup(
        kind, (group.count if group else 0) + 1, group.example if group else error
    )
    out.output_lens.append(0)
    out.ttfts.append(0.0)
    out.itls.append([])
    out.itl_tokens.append(None)
    out.latencies.append(0.0)
    out.ttfos.append(None)
    out.reasoning_lens.append(None)
    out.cached_lens.append(None)


def compute_point_metrics(
    records: Sequence[RequestRecord],
    duration_s: float,
    *,
    percentiles: Iterable[float] = DEFAULT_PERCENTILES,
    goodput: dict[str, float] | None = None,
    origin_ns: int | None = None,
    count_queue_in_e2el: bool = False,
) -> PointMetrics:
    """Aggregate one point's RequestRecords (warmups excluded) over `duration_s` seconds.

    `origin_ns` is the clock reading the per-request `start_times` are measured from (the
    point's start); `count_queue_in_e2el` adds the queue-inclusive E2EL statistic, which vLLM
    reports only with a finite request rate and a concurrency limit.
    """
    percentiles = tuple(percentiles)
    if duration_s <= 0:
        duration_s = 1e-9  # a point with no requests; throughputs are then 0
    if origin_ns is None:
        origin_ns = min((r.send_ns for r in records), default=0)
    pools = _Pools()
    failures: dict[str, FailureGroup] = {}
    out = PointMetrics(
        0, 0, 0, 0, duration_s, 0.0, None, 0.0, 0.0, {}, 0.0, 0, 0.0, 0.0, None, None, [], {}
    )
    for record in records:
        kind, error, prompt_len, wait_s = _add_columns(out, record, origin_ns)
        if kind is not None:
            _add_failure(out, failures, kind, error)
        else:
            pools.add(out, record, prompt_len, wait_s)
    _summarise(out, pools, len(records), duration_s, percentiles, goodput, count_queue_in_e2el)
    out.failures = sorted(failures.values(), key=lambda g: (-g.count, g.kind))
    return out


def _summarise(
    out: PointMetrics,
    pools: _Pools,
    requests: int,
    duration_s: float,
    percentiles: tuple[float, ...],
    goodput: dict[str, float] | None,
    count_queue_in_e2el: bool,
) -> None:
    """The point's totals, throughputs, statistics and peaks from its pools."""
    p = pools
    good = p.good(goodput)
    out.completed = p.completed
    out.failed = requests - p.completed
    out.total_input = p.total_input
    out.total_output = p.total_output
    out.request_throughput = p.completed / duration_s
    out.request_goodput = good / duration_s if goodput else None
    out.output_throughput = p.total_output / duration_s
    out.total_token_throughput = (p.total_input + p.total_output) / duration_s
    out.stats = {
        "ttft": Stats.of_seconds(p.ttfts, percentiles),
        "tpot": Stats.of_seconds(p.tpots, percentiles),
        "itl": Stats.of_seconds(p.itls, percentiles),
        "e2el": Stats.of_seconds(p.e2els, percentiles),
        "client_queue_time": Stats.of_seconds(p.queue, percentiles),
        "ttft_first_content": Stats.of_seconds(p.content_ttfts, percentiles),
        "ttfo": Stats.of_seconds(p.ttfos, percentiles),
        "tpot_answer": Stats.of_seconds(p.answer_tpots, percentiles),
    }
    out.reasoning_tokens_total = p.reasoning_total
    out.reasoning_tokens_source = p.reasoning_sources
    out.cached_tokens_total = p.cached_total
    out.prompt_tokens_with_cache_info = p.cached_prompt
    if count_queue_in_e2el:
        out.stats["e2el_including_client_queue"] = Stats.of_seconds(p.e2el_queue, percentiles)
    if p.starts:
        out.max_output_tokens_per_s = peak_tokens_per_s(p.starts, p.ends, p.token_times, None)
        out.peak_output_tokens_per_s_weighted = peak_tokens_per_s(
            p.starts, p.ends, p.token_times, p.token_weights
        )
        out.max_concurrent_requests = peak_concurrency(p.starts, p.ends)
    out.tokens_per_chunk_mean = p.total_output / p.chunks_total if p.chunks_total else 0.0
    out.tokens_per_chunk_max = p.chunk_max
    out.multi_token_chunk_share = p.multi_chunks / p.known_chunks if p.known_chunks else None
    out.output_tokens_source = p.sources
