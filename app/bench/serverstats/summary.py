"""A point's server-side summary from its scrapes: gauge spreads, histogram and counter deltas."""

from __future__ import annotations

from typing import Any

from app.bench.serverstats.parse import COUNTERS, PHASES
from app.bench.serverstats.snapshot import MetricsSample, MetricsSnapshot


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
    # The window's ends: scraped before the load's first request and after its last (the
    # counters' and histograms' deltas then cover the whole point, however short).
    out["bracket_s"] = [round(scrapes[0][0], 3), round(scrapes[-1][0], 3)]
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
    for key in PHASES:
        a, b = first.phases.get(key), last.phases.get(key)
        delta = b.minus(a) if a is not None and b is not None else None
        if delta is not None and delta.count > 0:
            out[f"server_{key}_ms"] = delta.stats_ms()
    deltas = _counter_deltas(first, last, warnings)
    out.update(counter_summaries(deltas))
    out.update(_llamacpp_phases(deltas))
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


def _llamacpp_phases(deltas: dict[str, float]) -> dict[str, Any]:
    """llama.cpp has no per-request histograms, only the seconds spent on prompts and on
    generation: their deltas give the point's prefill time per prompt token."""
    seconds, tokens = deltas.get("prompt_seconds"), deltas.get("prompt_tokens")
    if seconds is None or not tokens:
        return {}
    return {"server_prefill_ms_per_token": round(seconds * 1e3 / tokens, 4)}


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
