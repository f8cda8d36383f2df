"""What `tpotbench probe --events jsonl` reports of its one request in its point_finished event
(the probe writes no result file): the request's figures, its failure, its text, the endpoint."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProbeEndpoint:
    url: str
    model: str
    api: str


@dataclass(frozen=True)
class ProbeSummary:
    """vLLM's definitions (ms); None where a figure is not defined (a failed request)."""

    ok: bool
    ttft_ms: float | None = None
    ttft_first_content_ms: float | None = None
    tpot_ms: float | None = None
    e2el_ms: float | None = None
    output_tokens: int | None = None
    output_tokens_source: str | None = None
    output_tok_s: float | None = None
    finish_reason: str | None = None
    error_kind: str | None = None
    error: str | None = None
    fix: str | None = None
    generated_text: str | None = None
    endpoint: ProbeEndpoint | None = None
