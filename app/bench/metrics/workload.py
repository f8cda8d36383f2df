"""The figures of today's traffic beside vLLM's, read from a point's `tpotbench` block:
reasoning (TTFO, answer-phase TPOT, reasoning tokens), trace replay (speed-up, lateness of
the sends, the hit rate the trace predicts), prefix caching (client- and server-side hit
rates) and speculative decoding (acceptance), for summaries and tables."""

from __future__ import annotations

from typing import Any

from app.bench.metrics.conversations import conversation_rows

Row = tuple[str, Any, str]


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None


def reasoning_figures(block: dict[str, Any]) -> dict[str, float | None]:
    """Mean TTFO and answer TPOT (ms) and mean reasoning tokens; None where not measured."""
    reasoning = _mapping(block.get("reasoning_tokens"))
    return {
        "ttfo_ms": _number(_mapping(block.get("ttfo_ms")).get("mean")),
        "tpot_answer_ms": _number(_mapping(block.get("tpot_answer_ms")).get("mean")),
        "reasoning_tokens": _number(reasoning.get("mean")),
    }


def cache_figures(block: dict[str, Any]) -> dict[str, float | None]:
    """Prefix-cache hit rate (0..1) as the replies' usage says and as /metrics says, and the
    speculative-decoding acceptance rate and mean acceptance length; None where not known."""
    server = _mapping(block.get("server_metrics"))
    spec = _mapping(server.get("spec_decode"))
    return {
        "client_hit_rate": _number(_mapping(block.get("prefix_cache_client")).get("hit_rate")),
        "server_hit_rate": _number(_mapping(server.get("prefix_cache")).get("hit_rate")),
        "acceptance_rate": _number(spec.get("acceptance_rate")),
        "acceptance_length": _number(spec.get("mean_acceptance_length")),
    }


def _sources(block: dict[str, Any]) -> str:
    source = _mapping(_mapping(block.get("reasoning_tokens")).get("source"))
    return "usage" if set(source) <= {"usage"} else "counted from deltas"


def workload_rows(block: dict[str, Any]) -> list[Row]:
    """Summary rows (label, value, format) for what this point measured; none for the rest,
    so an ordinary run's summary reads as before."""
    rows: list[Row] = []
    reasoning = reasoning_figures(block)
    if reasoning["reasoning_tokens"]:
        rows.append(
            (
                f"Mean reasoning tokens ({_sources(block)}):",
                reasoning["reasoning_tokens"],
                "{:<10.1f}",
            )
        )
        if reasoning["ttfo_ms"] is not None:
            rows.append(("Mean TTFO (ms):", reasoning["ttfo_ms"], "{:<10.2f}"))
        if reasoning["tpot_answer_ms"] is not None:
            rows.append(("Mean TPOT, answer only (ms):", reasoning["tpot_answer_ms"], "{:<10.2f}"))
    trace = _mapping(block.get("trace"))
    late = _mapping(block.get("schedule_lateness_ms"))
    if trace:
        rows.append(("Trace replay speed-up:", f"{trace.get('speedup', 1):g}x", "{:<10}"))
        if _number(late.get("p99_ms")) is not None:
            rows.append(("Send lateness p99 (ms):", late["p99_ms"], "{:<10.2f}"))
            rows.append(("Send lateness max (ms):", late["max_ms"], "{:<10.2f}"))
    cache = cache_figures(block)
    predicted = _number(trace.get("predicted_hit_rate"))
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
    rows += conversation_rows(block)
    return rows
