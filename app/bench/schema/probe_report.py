"""What `tpotbench probe --json` prints of its one request: the endpoint, the request's
outcome (its figures when it completed, its failure when not) and whether it was sent again.
The window's stream carries the smaller `ProbeSummary` (probe_summary.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from app.bench.schema.codec import to_json_obj


@dataclass(frozen=True)
class ProbeAnswer:
    """A request that completed: vLLM's definitions, in ms; None where a figure is not
    defined (TPOT of one token, tokens/s of no time, a reasoning figure of a plain model)."""

    ttft_ms: float
    ttft_first_content_ms: float | None
    tpot_ms: float | None
    e2el_ms: float
    output_tokens: int
    output_tokens_source: str
    output_tok_s: float | None
    chunks: int
    finish_reason: str | None
    itl_ms: list[float]
    chunk_tokens: list[int] | None
    ttfo_ms: float | None
    tpot_answer_ms: float | None
    reasoning_tokens: int | None
    reasoning_tokens_source: str | None
    cached_tokens: int | None
    # --json has always carried the failure's keys, null, beside a completed request's figures
    error_kind: None = None
    error: None = None
    fix: None = None


@dataclass(frozen=True)
class ProbeFailure:
    http_status: int | None
    error_kind: str | None
    error: str
    fix: str


@dataclass(frozen=True)
class ProbeReport:
    url: str
    api: str
    model: str | None
    notes: list[str]
    ok: bool
    generated_text: str
    retried: bool
    retry_error: str | None
    outcome: ProbeAnswer | ProbeFailure

    @property
    def answer(self) -> ProbeAnswer | None:
        return self.outcome if isinstance(self.outcome, ProbeAnswer) else None

    def json_text(self) -> str:
        """The report as --json prints it: one flat object, the outcome's keys after the
        request's."""
        obj = to_json_obj(self)
        obj.update(obj.pop("outcome"))
        return json.dumps(obj, indent=2)
