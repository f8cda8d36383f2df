"""One request's figures as vLLM's client measures them: TTFT, ITLs, E2EL, TPOT, prompt tokens."""

from __future__ import annotations

import itertools
from typing import TypeGuard

from app.bench.http.record import RequestRecord

# More tokens than any served context holds: a count above this is a server's mistake.
MAX_TOKENS_PER_REQUEST = 10_000_000


def request_tpot(ttft_s: float, e2el_s: float, output_tokens: int) -> float | None:
    """vLLM's per-request TPOT in seconds: (E2EL - TTFT) / (n - 1); None with n <= 1."""
    return (e2el_s - ttft_s) / (output_tokens - 1) if output_tokens > 1 else None


def vllm_timings(record: RequestRecord) -> tuple[float, list[float], float, list[int]]:
    """(TTFT, ITLs, E2EL) in seconds as vLLM's client measures them, plus the message stamps.

    vLLM stamps every message with non-empty choices, a role-only first delta included; our
    record keeps that stamp as `first_choice_ns` and leaves it out of `chunk_ns`, so it is put
    back in front here. E2EL ends at the last such message (the usage-only message and
    [DONE] do not count).
    """
    stamps = list(record.chunk_ns)
    first = record.first_choice_ns
    if first is None:
        first = record.first_token_ns
    if first is not None and (not stamps or first < stamps[0]):
        stamps.insert(0, first)
    if not stamps:
        stamps = [record.end_ns]
    send = record.send_ns
    gaps = [(b - a) / 1e9 for a, b in itertools.pairwise(stamps)]
    return (stamps[0] - send) / 1e9, gaps, (stamps[-1] - send) / 1e9, stamps


def _plausible_count(value: object) -> TypeGuard[int]:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and 0 <= value <= MAX_TOKENS_PER_REQUEST
    )


def prompt_tokens_of(record: RequestRecord) -> int:
    """The prompt length vLLM counts: the server's usage.prompt_tokens, else the dataset's."""
    usage = record.usage or {}
    prompt_tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    # vLLM replaces the dataset's prompt length with the server's count when it has one (an
    # impossible count is not one).
    if _plausible_count(prompt_tokens):
        return int(prompt_tokens)
    return int(record.prompt_len) if _plausible_count(record.prompt_len) else 0


def record_usage_problem(record: RequestRecord) -> str | None:
    """Why a successful record's token count cannot be used (None when it can). The stream
    reader should already have failed such a request; this keeps the sums sane if not."""
    n = record.output_tokens
    if n is None or _plausible_count(n):
        return None
    return f"impossible output token count {n!r} (usage completion_tokens)"[:300]
