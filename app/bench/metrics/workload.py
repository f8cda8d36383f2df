"""The figures of today's traffic beside vLLM's, read from a point's `tpotbench` block:
reasoning (TTFO, answer-phase TPOT, reasoning tokens), trace replay (speed-up, lateness of
the sends, the hit rate the trace predicts), prefix caching (client- and server-side hit
rates) and speculative decoding (acceptance), for summaries and tables."""

from __future__ import annotations

from typing import Any

from app.bench.metrics.conversations import conversation_rows
from app.bench.schema.point_blocks import PointBlocks

Row = tuple[str, Any, str]


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None


def reasoning_figures(blocks: PointBlocks) -> dict[str, float | None]:
    """Mean TTFO and answer TPOT (ms) and mean reasoning tokens; None where not measured."""
    reasoning = blocks.reasoning_tokens
    return {
        "ttfo_ms": _number((blocks.ttfo_ms or {}).get("mean")),
        "tpot_answer_ms": _number((blocks.tpot_answer_ms or {}).get("mean")),
        "reasoning_tokens": _number(reasoning.mean) if reasoning else None,
    }


def cache_figures(blocks: PointBlocks) -> dict[str, float | None]:
    """Prefix-cache hit rate (0..1) as the replies' usage says and as /metrics says, and the
    speculative-decoding acceptance rate and mean acceptance length; None where not known."""
    server = blocks.server_metrics
    spec = server.spec_decode if server else None
    server_cache = server.prefix_cache if server else None
    client = blocks.prefix_cache_client
    return {
        "client_hit_rate": _number(client.hit_rate) if client else None,
        "server_hit_rate": _number(server_cache.hit_rate) if server_cache else None,
        "acceptance_rate": _number(spec.acceptance_rate) if spec else None,
        "acceptance_length": _number(spec.mean_acceptance_length) if spec else None,
    }


def _sources(blocks: PointBlocks) -> str:
    reasoning = blocks.reasoning_tokens
    source = (reasoning.source if reasoning else None) or {}
    return "usage" if set(source) <= {"usage"} else "counted from deltas"


def workload_rows(blocks: PointBlocks) -> list[Row]:
    """Summary rows (label, value, format) for what this point measured; none for the rest,
    so an ordinary run's summary reads as before."""
    rows: list[Row] = []
    reasoning = reasoning_figures(blocks)
    if reasoning["reasoning_tokens"]:
        rows.append(
            (
                f"Mean reasoning tokens ({_sources(blocks)}):",
                reasoning["reasoning_tokens"],
                "{:<10.1f}",
            )
        )
        if reasoning["ttfo_ms"] is not None:
            rows.append(("Mean TTFO (ms):", reasoning["ttfo_ms"], "{:<10.2f}"))
        if reasoning["tpot_answer_ms"] is not None:
            rows.append(("Mean TPOT, answer only (ms):", reasoning["tpot_answer_ms"], "{:<10.2f}"))
    trace, late = blocks.trace, blocks.schedule_lateness_ms
    if trace is not None:
        speedup = trace.speedup if trace.speedup is not None else 1
        rows.append(("Trace replay speed-up:", f"{speedup:g}x", "{:<10}"))
        if late is not None and late.p99_ms is not None:
            rows.append(("Send lateness p99 (ms):", late.p99_ms, "{:<10.2f}"))
            rows.append(("Send lateness max (ms):", late.max_ms, "{:<10.2f}"))
    cache = cache_figures(blocks)
    predicted = _number(trace.predicted_hit_rate) if trace is not None else None
    if predicted is not None:
        rows.append(("Prefix cache hit rate, trace:", f"{predicted:.1%}", "{:<10}"))
    if cache["client_hit_rate"] is not None:
        rows.append(("Prefix cache hit rate, usage:", f"{cache['client_hit_rate']:.1%}", "{:<10}"))
    if cache["server_hit_rate"] is not None:
        rows.append(
            ("Prefix cache hit rate, /metrics:", f"{cache['server_hit_rate']:.1%}", "{:<10}")
        )
    if cache["acceptance_rate"] is not None:
        rows.append(("Spec. decode acceptance rate:", f"{cache['acceptance_rate']:.1%}", "{:<10}"))
    if cache["acceptance_length"] is not None:
        rows.append(("Mean acceptance length:", cache["acceptance_length"], "{:<10.2f}"))
    rows += conversation_rows(blocks)
    return rows
