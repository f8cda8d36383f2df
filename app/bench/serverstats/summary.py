"""A point's server-side summary from its scrapes: gauge spreads, histogram and counter deltas,
built into the block's dataclass (app.bench.schema.point_blocks.ServerMetricsBlock)."""

from __future__ import annotations

from dataclasses import replace

from app.bench.schema.point_blocks import (
    HistogramFigures,
    KvConcurrency,
    ServerMetricsBlock,
    ServerPrefixCache,
    SpecDecode,
    Spread,
)
from app.bench.serverstats.parse import COUNTERS, PHASES
from app.bench.serverstats.snapshot import MetricsSample, MetricsSnapshot


def _spread(values: list[float]) -> Spread | None:
    # The mean is rounded here, not on the wire: the roofline's batch is this figure as stored.
    return Spread(round(sum(values) / len(values), 4), max(values)) if values else None


def summarize(
    scrapes: list[tuple[float, MetricsSnapshot]],
    samples: list[MetricsSample],
    context_len: int | None = None,
) -> ServerMetricsBlock:
    """Window summary: gauge mean/max, preemptions, server TTFT/ITL/E2EL from histogram deltas
    (the block without its URL, series and comparison with the client)."""
    out = ServerMetricsBlock(
        samples=len(samples),
        kv_cache_usage=_spread([v for s in samples if (v := s.kv_cache_usage) is not None]),
        running=_spread([v for s in samples if (v := s.running) is not None]),
        waiting=_spread([v for s in samples if (v := s.waiting) is not None]),
    )
    if not scrapes:
        return out
    first, last = scrapes[0][1], scrapes[-1][1]
    warnings = [line for _, snap in scrapes for line in snap.dropped]
    preemptions = None
    if first.preemptions_total is not None and last.preemptions_total is not None:
        if last.preemptions_total >= first.preemptions_total:
            preemptions = last.preemptions_total - first.preemptions_total
        else:
            warnings.append("preemptions: the counter went down (server restarted?); left out")
    cap = last.capacity
    concurrency = None
    if cap is not None and context_len and context_len > 0:
        concurrency = KvConcurrency(
            context_len, cap.max_sequences(context_len), cap.concurrency_ratio(context_len)
        )
    phases: dict[str, HistogramFigures] = {}
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
                phases[key] = delta.stats_ms()
    for key in PHASES:
        a, b = first.phases.get(key), last.phases.get(key)
        delta = b.minus(a) if a is not None and b is not None else None
        if delta is not None and delta.count > 0:
            phases[key] = delta.stats_ms()
    deltas = _counter_deltas(first, last, warnings)
    prefix_cache, spec_decode = counter_summaries(deltas)
    return replace(
        out,
        server=last.server,
        window_s=scrapes[-1][0] - scrapes[0][0],
        # The window's ends: scraped before the load's first request and after its last (the
        # counters' and histograms' deltas then cover the whole point, however short).
        bracket_s=(scrapes[0][0], scrapes[-1][0]),
        preemptions=preemptions,
        kv_capacity_tokens=cap.tokens if cap is not None else None,
        num_gpu_blocks=cap.num_gpu_blocks if cap is not None else None,
        block_size=cap.block_size if cap is not None else None,
        max_concurrency=concurrency,
        server_ttft_ms=phases.get("ttft"),
        server_itl_ms=phases.get("itl"),
        server_e2el_ms=phases.get("e2el"),
        server_queue_ms=phases.get("queue"),
        server_prefill_ms=phases.get("prefill"),
        server_decode_ms=phases.get("decode"),
        server_inference_ms=phases.get("inference"),
        prefix_cache=prefix_cache,
        spec_decode=spec_decode,
        server_prefill_ms_per_token=_llamacpp_prefill(deltas),
        warnings=tuple(dict.fromkeys(warnings))[:20],  # each once, in order
    )


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


def _llamacpp_prefill(deltas: dict[str, float]) -> float | None:
    """llama.cpp has no per-request histograms, only the seconds spent on prompts and on
    generation: their deltas give the point's prefill time per prompt token."""
    seconds, tokens = deltas.get("prompt_seconds"), deltas.get("prompt_tokens")
    if seconds is None or not tokens:
        return None
    return seconds * 1e3 / tokens


def counter_summaries(
    deltas: dict[str, float],
) -> tuple[ServerPrefixCache | None, SpecDecode | None]:
    """The server-side prefix-cache hit rate and speculative-decoding acceptance over a
    point, from counter deltas, with vLLM's definitions: hit rate = cached prompt tokens /
    prompt tokens looked up; acceptance rate = accepted / proposed draft tokens; mean
    acceptance length = 1 + accepted / drafts (each verification step also yields the
    target model's own token)."""
    prefix_cache = spec_decode = None
    queries, hits = deltas.get("prefix_cache_queries"), deltas.get("prefix_cache_hits")
    if queries is not None and hits is not None:
        # Rounded here, not on the wire: the point's prefix_cache block and its stale-cache
        # warning take this figure as stored.
        rate = round(hits / queries, 4) if queries > 0 else None
        prefix_cache = ServerPrefixCache(queries, hits, rate)
    drafts = deltas.get("spec_decode_drafts")
    proposed = deltas.get("spec_decode_draft_tokens")
    accepted = deltas.get("spec_decode_accepted_tokens")
    if drafts is not None and proposed is not None and accepted is not None:
        spec_decode = SpecDecode(
            drafts,
            proposed,
            accepted,
            accepted / proposed if proposed > 0 else None,
            1 + accepted / drafts if drafts > 0 else None,
        )
    return prefix_cache, spec_decode
