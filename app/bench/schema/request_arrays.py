"""The `tpotbench` block's per-request arrays, typed as the writer makes them.

A result file keeps one entry per request in `tpotbench.requests` (always) and, with
--save-detailed, a few more per-request columns beside it. They are written from these
dataclasses through the codec; `PointDoc.block_rest` holds them as JSON (the event stream leaves
them out, and most readers never need them), and app.bench.results.request_block reads them back
tolerantly, value by value, into `RequestColumns`: one odd entry in a file of a thousand requests
must not hide the other 999.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.bench.schema.codec import wire

_OPTIONAL = wire(omit="none")


@dataclass(frozen=True)
class RequestEntries:
    """tpotbench.requests: one entry per request in send order, failures included (their times
    null, so a plot can colour them without inventing a latency). The keys are
    app.bench.results.per_request.REQUEST_ENTRY_KEYS, in that order."""

    ok: list[bool]
    prompt_tokens: list[int]
    output_tokens: list[int]  # a failure's: the tokens it got before it failed
    start_s: list[float]
    ttft_ms: list[float | None]
    tpot_ms: list[float | None]
    e2el_ms: list[float | None]  # a failure's: when it failed
    error_kind: list[str | None]


@dataclass(frozen=True)
class SessionColumns:
    """The two columns a conversation run adds to tpotbench.requests: each request's session
    and its turn in it."""

    session: list[int | None]
    turn: list[int | None]


@dataclass(frozen=True)
class RequestArrays:
    """The block's per-request arrays: `requests` always, the rest only with --save-detailed
    (each is the PointMetrics attribute of its name; `retried` is `retried_flags`)."""

    requests: RequestEntries | None = field(default=None, metadata=_OPTIONAL)
    ttfos: list[float | None] | None = field(default=None, metadata=_OPTIONAL)
    reasoning_lens: list[int | None] | None = field(default=None, metadata=_OPTIONAL)
    cached_lens: list[int | None] | None = field(default=None, metadata=_OPTIONAL)
    chunk_counts: list[int] | None = field(default=None, metadata=_OPTIONAL)
    itl_tokens: list[list[int] | None] | None = field(default=None, metadata=_OPTIONAL)
    error_kinds: list[str | None] | None = field(default=None, metadata=_OPTIONAL)
    retried: list[bool] | None = field(default=None, metadata=_OPTIONAL)
