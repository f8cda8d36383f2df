"""Token counts of a finished stream: the server's usage when it is a possible count, else the
tokenizer or an estimate; reasoning and cached prompt tokens."""

from __future__ import annotations

from typing import Any

from app.bench.http.record import RequestRecord
from app.bench.http.tokens import TokenCounter, estimate_tokens

# Token counts above this are not a count but garbage (1e30); no model has such a context.
MAX_PLAUSIBLE_TOKENS = 100_000_000


def usage_problem(usage: dict[str, Any]) -> str | None:
    """Why a stream's ``usage`` cannot be true (negative, fractional or absurd counts), or None."""
    for key in ("completion_tokens", "prompt_tokens"):
        value = usage.get(key)
        if value is None:
            continue
        if type(value) is float and value.is_integer():
            value = int(value)
        if type(value) is not int or not 0 <= value <= MAX_PLAUSIBLE_TOKENS:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            return (
                f"the server's usage.{key} is {shown}, not a possible token count "
                "(a whole number from 0 to 100,000,000)"
            )
    return None


def _count(value: object) -> int | None:
    """A token count as an int, or None when it is not a possible one."""
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is int and 0 <= value <= MAX_PLAUSIBLE_TOKENS:
        return value
    return None


def count_tokens(
    rec: RequestRecord,
    usage: dict[str, Any] | None,
    cum_tokens: list[object],
    extra_parts: list[str],
    tokenizer: TokenCounter | None,
) -> None:
    completion = _count(usage.get("completion_tokens")) if usage else None
    if completion is not None:
        rec.output_tokens = completion
        rec.output_tokens_source = "usage"
        prompt_tokens = _count(usage.get("prompt_tokens")) if usage else None
        if prompt_tokens is not None:
            rec.prompt_len = prompt_tokens
    else:
        text = rec.generated_text + "".join(extra_parts)
        if tokenizer is not None:
            rec.output_tokens = tokenizer.count(text)
            rec.output_tokens_source = "tokenizer"
        else:
            rec.output_tokens = estimate_tokens(text)
            rec.output_tokens_source = "estimate"
    # Per-chunk token counts only when every token chunk carried cumulative usage
    # (vLLM's continuous_usage_stats), each a possible count that never goes down; never
    # guessed from the number of chunks.
    if cum_tokens and len(cum_tokens) == len(rec.chunk_ns):
        prev = 0
        per_chunk = []
        for value in cum_tokens:
            c = _count(value)
            if c is None or c < prev:
                return
            per_chunk.append(c - prev)
            prev = c
        rec.chunk_tokens = per_chunk


def reasoning_and_cache(rec: RequestRecord, usage: dict[str, Any] | None) -> None:
    """Reasoning tokens from usage.completion_tokens_details when the server reports them,
    else one per reasoning delta (marked "counted"); cached prompt tokens from
    usage.prompt_tokens_details (vLLM sends it only with prefix caching on)."""
    usage = usage if isinstance(usage, dict) else {}
    completion = usage.get("completion_tokens_details")
    reported = _count(completion.get("reasoning_tokens")) if isinstance(completion, dict) else None
    if reported is not None and (reported > 0 or rec.reasoning_chunks == 0):
        rec.reasoning_tokens, rec.reasoning_tokens_source = reported, "usage"
    elif rec.reasoning_chunks:
        rec.reasoning_tokens, rec.reasoning_tokens_source = rec.reasoning_chunks, "counted"
    prompt = usage.get("prompt_tokens_details")
    if isinstance(prompt, dict):
        rec.cached_tokens = _count(prompt.get("cached_tokens"))
