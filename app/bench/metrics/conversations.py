"""A conversation point's own figures: TTFT of first turns against later turns (the history a
later turn resends is what a prefix cache can skip), the share of prompt tokens served from
the cache in each group, and how many sessions finished. Written to `tpotbench.conversations`
beside vLLM's keys, which stay as they are (every turn is one request there)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from app.bench.metrics.point import PointMetrics, Stats
from app.bench.schema.point_blocks import ConversationsBlock, Figures, PointBlocks, ThinkTime
from app.bench.schema.request_arrays import SessionColumns

RATE_MEANING = "sessions started per second"


def _stats(values_s: list[float], percentiles: Iterable[float]) -> Figures | None:
    if not values_s:
        return None
    stats = Stats.of_seconds(values_s, percentiles)
    out: Figures = {"mean": stats.mean, "median": stats.median, "std": stats.std}
    out.update({f"p{word}": value for word, value in stats.percentiles.items()})
    return out


def _hit_rate(cached: list[int | None], prompts: list[int], any_info: bool) -> float | None:
    """Cached / prompt tokens of a group; a reply without the detail counts as 0 cached once
    any reply of the point had it (vLLM leaves it out when nothing was cached)."""
    total = sum(prompts)
    if not any_info or total <= 0:
        return None
    return sum(c or 0 for c in cached) / total


def conversation_block(
    records: Sequence[Any],
    metrics: PointMetrics,
    *,
    sessions: int,
    turns_planned: int,
    think_time_s: tuple[float, float],
    percentiles: Iterable[float],
) -> ConversationsBlock:
    """`tpotbench.conversations` for a point whose records carry `session` and `turn`, in the
    order `compute_point_metrics` saw them (its per-request arrays line up with them)."""
    percentiles = tuple(percentiles)
    first: list[float] = []
    later: list[float] = []
    groups: dict[bool, tuple[list[int | None], list[int]]] = {False: ([], []), True: ([], [])}
    failed_sessions: set[int] = set()
    turns_ok: dict[int, int] = {}
    # what each session's last completed turn leaves as history: its prompt plus its reply
    history: dict[int, int] = {}
    resent = prompt_total = 0
    any_info = metrics.cached_tokens_total is not None
    for i, record in enumerate(records):
        session, turn = getattr(record, "session", None), getattr(record, "turn", None)
        if session is None or turn is None:
            continue
        if metrics.error_kinds[i] is not None:
            failed_sessions.add(session)
            continue
        turns_ok[session] = turns_ok.get(session, 0) + 1
        is_later = turn > 0
        prompt_total += metrics.input_lens[i]
        resent += history.get(session, 0) if is_later else 0
        history[session] = metrics.input_lens[i] + metrics.output_lens[i]
        (later if is_later else first).append(metrics.ttfts[i])
        cached, prompts = groups[is_later]
        cached.append(metrics.cached_lens[i])
        prompts.append(metrics.input_lens[i])
    ok_turns = sum(turns_ok.values())
    return ConversationsBlock(
        sessions=sessions,
        turns_planned=turns_planned,
        turns_completed=ok_turns,
        sessions_with_failure=len(failed_sessions),
        mean_turns_completed=ok_turns / sessions if sessions else None,
        think_time_s=ThinkTime(think_time_s[0], think_time_s[1]),
        request_rate_means=RATE_MEANING,
        first_turns=len(first),
        later_turns=len(later),
        ttft_first_turn_ms=_stats(first, percentiles),
        ttft_later_turns_ms=_stats(later, percentiles),
        prefix_cache_hit_rate_first_turn=_hit_rate(*groups[False], any_info),
        prefix_cache_hit_rate_later_turns=_hit_rate(*groups[True], any_info),
        # The share of prompt tokens that were resent history: about what a prefix cache can
        # serve (less the last partial KV block per turn), so hits up to it are not stale.
        history_share=resent / prompt_total if prompt_total else None,
    )


def session_columns(records: Sequence[Any]) -> SessionColumns:
    """`session` and `turn` per request for `tpotbench.requests` (same order as its rows)."""
    return SessionColumns(
        [getattr(r, "session", None) for r in records], [getattr(r, "turn", None) for r in records]
    )


def conversation_figures(blocks: PointBlocks) -> dict[str, float | None]:
    """Mean TTFT of first and of later turns (ms) of a point; None for a point that was not a
    conversation run (or had no such turn)."""
    conv = blocks.conversations

    def mean(stats: dict[str, float | None] | None) -> float | None:
        value = (stats or {}).get("mean")
        return None if value is None else float(value)

    return {
        "ttft_first_turn_ms": mean(conv.ttft_first_turn_ms if conv else None),
        "ttft_later_turns_ms": mean(conv.ttft_later_turns_ms if conv else None),
    }


def conversation_rows(blocks: PointBlocks) -> list[tuple[str, Any, str]]:
    """Console summary rows of a conversation point (label, value, format); none otherwise."""
    conv = blocks.conversations
    if conv is None:
        return []
    figures = conversation_figures(blocks)
    sessions = f"{conv.sessions} ({conv.turns_completed} turns)"
    rows: list[tuple[str, Any, str]] = [("Sessions:", sessions, "{:<10}")]
    groups = (
        ("first", "first_turn", conv.prefix_cache_hit_rate_first_turn),
        ("later", "later_turns", conv.prefix_cache_hit_rate_later_turns),
    )
    for turns, key, rate in groups:
        mean = figures[f"ttft_{key}_ms"]
        if mean is not None:
            rows.append((f"Mean TTFT, {turns} turns (ms):", mean, "{:<10.2f}"))
        if rate is not None:
            rows.append((f"Prompt cached, {turns} turns:", f"{rate:.1%}", "{:<10}"))
    return rows
