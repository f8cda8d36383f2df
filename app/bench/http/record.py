"""One streaming request as measured: send time, per-chunk arrival times, tokens, outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

TokenSource = Literal["usage", "tokenizer", "estimate"]
# "usage": completion_tokens_details.reasoning_tokens; "counted": one per reasoning delta (the
# server did not report it; exact for vLLM without speculative decoding, low with it).
ReasoningSource = Literal["usage", "counted"]

_NS = 1e-9


@dataclass(slots=True)
class RequestRecord:
    """All times are clock nanoseconds (time.perf_counter_ns, CLOCK_MONOTONIC on Linux).

    A "token chunk" is an SSE message whose choices are non-empty, except a role-only first
    delta (``{"role": "assistant", "content": ""}``) which carries no generated token;
    ``first_choice_ns`` keeps vLLM's own stamp (the first message with any choices) so its
    exact TTFT can be recomputed.
    """

    request_id: str = ""
    prompt_len: int = 0
    output_len_requested: int = 0
    slot_wait_ns: int = 0
    # send_ns less the time the arrival schedule set for it (None: not sent on a schedule)
    schedule_lateness_ns: int | None = None
    send_ns: int = 0
    first_token_ns: int | None = None
    chunk_ns: list[int] = field(default_factory=list)
    chunk_tokens: list[int] | None = None
    end_ns: int = 0
    ok: bool = False
    http_status: int | None = None
    error_kind: str | None = None
    error: str = ""
    generated_text: str = ""
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    output_tokens: int = 0
    output_tokens_source: TokenSource = "estimate"
    first_choice_ns: int | None = None
    # when send_request was called; send_ns is when the request bytes started going out
    submit_ns: int = 0
    done_seen: bool = False
    messages: int = 0
    reads: int = 0
    # sent a second time on a new connection after the first send found its kept-alive
    # connection closed before any byte of a reply (send_ns is the second send's)
    retried: bool = False
    retry_error: str = ""
    # How the chunk times were stamped (wire/stamps.py: "kernel", "loop", "tls-record") and
    # why, for a request whose reply began; "" before that.
    stamping: str = ""
    stamping_why: str = ""
    # A reasoning model: the first chunk with visible answer text (TTFO ends here), the number
    # of chunks that carried reasoning, and the reasoning tokens (None: no reasoning seen).
    first_output_ns: int | None = None
    reasoning_chunks: int = 0
    reasoning_tokens: int | None = None
    reasoning_tokens_source: ReasoningSource | None = None
    # usage.prompt_tokens_details.cached_tokens (None when the server did not say)
    cached_tokens: int | None = None
    # A conversation's request: which session of the point and which of its user turns (from
    # 0); None for a single-turn workload.
    session: int | None = None
    turn: int | None = None

    @property
    def ttft_s(self) -> float | None:
        if self.first_token_ns is None:
            return None
        return (self.first_token_ns - self.send_ns) * _NS

    @property
    def ttfo_s(self) -> float | None:
        """Time to first output token: the first visible answer text, after any reasoning."""
        if self.first_output_ns is None:
            return None
        return (self.first_output_ns - self.send_ns) * _NS

    @property
    def answer_tpot_s(self) -> float | None:
        """TPOT of the answer phase alone: from the first answer chunk to the last chunk over
        the answer tokens after the first (output minus reasoning tokens)."""
        if self.first_output_ns is None:
            return None
        answer = self.output_tokens - (self.reasoning_tokens or 0)
        if answer <= 1:
            return None
        return (self.end_ns - self.first_output_ns) * _NS / (answer - 1)

    @property
    def e2el_s(self) -> float:
        return (self.end_ns - self.send_ns) * _NS

    @property
    def tpot_s(self) -> float | None:
        """vLLM's TPOT: (E2EL - TTFT) / (output tokens - 1), only with more than one token."""
        if self.first_token_ns is None or self.output_tokens <= 1:
            return None
        return (self.end_ns - self.first_token_ns) * _NS / (self.output_tokens - 1)
