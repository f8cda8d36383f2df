"""`tpotbench probe`: one streaming request, its TTFT, TPOT, output tokens and tokens/s."""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.bench.http.auth import cleartext_warning
from app.bench.schema.probe_report import ProbeAnswer, ProbeFailure, ProbeReport
from app.bench.schema.probe_summary import ProbeEndpoint, ProbeSummary
from app.bench.sweep.contract import (
    EndpointInfo,
    PointFinished,
    PointStarted,
    RequestDone,
    RunError,
    RunFinished,
    RunStarted,
    Tokens,
)
from app.bench.sweep.plan import PointSpec
from app.commands import flags
from app.commands.connection import add_connection_arguments, connection_from
from app.commands.console import error, note
from app.commands.credentials import UsageError, require_api_key
from app.commands.timeouts import add_request_timeout, request_limit

if TYPE_CHECKING:
    from app.bench.http.endpoint import ResolvedEndpoint
    from app.bench.http.record import RequestRecord
    from app.bench.http.tokens import TokenCounter
    from app.bench.sweep.events import EventWriter

# One probe is one reply of --max-tokens tokens: ten minutes is far beyond it.
DEFAULT_REQUEST_TIMEOUT_S = 600.0

DEFAULT_PROMPT = "Explain in three sentences what GPU memory bandwidth is."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--prompt", default=DEFAULT_PROMPT)
    parser.add_argument("--max-tokens", type=flags.whole(1), default=128)
    parser.add_argument("--ignore-eos", action="store_true", help="generate all --max-tokens")
    parser.add_argument(
        "--tokenizer",
        metavar="DIR",
        help="tokenizer.json folder for counts when the server sends no usage",
    )
    parser.add_argument(
        "--timeout",
        type=flags.seconds,
        default=120.0,
        metavar="S",
        help="longest silence while waiting or reading, seconds (default 120)",
    )
    add_request_timeout(parser, DEFAULT_REQUEST_TIMEOUT_S)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON, every ITL included")
    out.add_argument("--events", choices=["jsonl"], help="JSON-lines events on stdout (GUI)")


@dataclass
class _Target:
    """Where the probe goes and what it sends with; `resolved` gains the model /v1/models
    names when none was given."""

    resolved: ResolvedEndpoint
    headers: dict[str, str]
    verify: bool
    api_key: str | None
    tokenizer: TokenCounter | None


def _target(args: argparse.Namespace) -> _Target:
    args.request_timeout = request_limit(args.request_timeout)
    conn = connection_from(args)
    if not conn.base_url:
        raise UsageError("--base-url is required (for example http://localhost:8000)")
    resolved = conn.resolve()
    tokenizer = None
    if args.tokenizer:
        from app.bench.http.tokens import TokenCounter, TokenizerError

        try:
            tokenizer = TokenCounter(args.tokenizer)
        except TokenizerError as exc:
            raise UsageError(f"--tokenizer: {exc}") from None
    return _Target(
        resolved,
        conn.headers,
        conn.verify_tls,
        require_api_key(args.api_key_env, conn.profile),
        tokenizer,
    )


async def _probe(
    args: argparse.Namespace, target: _Target, events: EventWriter | None
) -> RequestRecord | str:
    from dataclasses import replace

    from app.bench.http.client import make_client
    from app.bench.http.request import RequestSpec
    from app.bench.http.stream import send_request
    from app.bench.sweep.discovery import UnreachableError, fetch_first_model

    resolved = target.resolved
    model = resolved.model
    if not model:
        try:
            model = await fetch_first_model(
                resolved,
                target.api_key,
                target.headers,
                target.verify,
                timeout_s=args.timeout,
                request_timeout_s=args.request_timeout,
            )
        except UnreachableError as exc:
            return str(exc)
        if not model:
            raise UsageError(
                f"--model is required: {resolved.models_url} lists no model id to default to"
            )
        resolved = replace(resolved, model=model)
        target.resolved = resolved
    spec = RequestSpec(args.prompt, 0, args.max_tokens, ignore_eos=args.ignore_eos)
    on_chunk = None
    if events is not None:
        point = PointSpec(0, math.inf, 1)
        endpoint = EndpointInfo(resolved.url, model, resolved.api)
        events.run_started(RunStarted(points=(point,), num_prompts=1, endpoint=endpoint))
        events.point_started(PointStarted.of(point))
        on_chunk = _TokenEvents(events)
    on_text = on_chunk.add_text if on_chunk is not None else None
    async with make_client(
        1, target.verify, args.timeout, request_timeout_s=args.request_timeout
    ) as client:
        record = await send_request(
            client,
            resolved,
            spec,
            api_key=target.api_key,
            extra_headers=target.headers,
            tokenizer=target.tokenizer,
            on_chunk=on_chunk,
            on_text=on_text,
        )
    if on_chunk is not None:
        on_chunk.flush()
    return record


class _TokenEvents:
    """Token arrivals as `tokens` events, batched about ten times a second, with the reply's
    text so far; the first chunk goes out at once with its time (the window's TTFT)."""

    def __init__(self, events: Any) -> None:
        self.events = events
        self.t_s: list[float] = []
        self.itl_ms: list[float] = []
        self.text: list[str] = []
        self.first_token_s: float | None = None
        self.last_flush = time.perf_counter_ns()

    def add_text(self, piece: str) -> None:
        self.text.append(piece)

    def __call__(self, record: Any, t_ns: int) -> None:
        ns = record.chunk_ns
        if len(ns) >= 2:
            self.t_s.append((t_ns - record.send_ns) / 1e9)
            self.itl_ms.append((ns[-1] - ns[-2]) / 1e6)
        elif len(ns) == 1:
            self.first_token_s = (t_ns - record.send_ns) / 1e9
            self.flush()
            self.last_flush = t_ns
            return
        if t_ns - self.last_flush > 100_000_000:
            self.flush()
            self.last_flush = t_ns

    def flush(self) -> None:
        if self.t_s or self.text or self.first_token_s is not None:
            self.events.tokens(
                Tokens(
                    0,
                    self.t_s,
                    self.itl_ms,
                    first_token_s=self.first_token_s,
                    text="".join(self.text) or None,
                )
            )
            self.t_s, self.itl_ms, self.text = [], [], []
            self.first_token_s = None


def _report(record: RequestRecord, resolved: ResolvedEndpoint) -> ProbeReport:
    from app.bench.http.failures import fix_for
    from app.bench.metrics.request import request_tpot, vllm_timings

    outcome: ProbeAnswer | ProbeFailure
    if record.ok:
        ttft, itls, e2el, _ = vllm_timings(record)
        n = record.output_tokens
        tpot = request_tpot(ttft, e2el, n)
        first = record.ttft_s
        outcome = ProbeAnswer(
            ttft_ms=ttft * 1e3,
            ttft_first_content_ms=None if first is None else first * 1e3,
            tpot_ms=None if tpot is None else tpot * 1e3,
            e2el_ms=e2el * 1e3,
            output_tokens=n,
            output_tokens_source=record.output_tokens_source,
            output_tok_s=n / e2el if e2el > 0 else None,
            chunks=len(record.chunk_ns),
            finish_reason=record.finish_reason,
            itl_ms=[v * 1e3 for v in itls],
            chunk_tokens=record.chunk_tokens,
            ttfo_ms=None if record.ttfo_s is None else record.ttfo_s * 1e3,
            tpot_answer_ms=None if record.answer_tpot_s is None else record.answer_tpot_s * 1e3,
            reasoning_tokens=record.reasoning_tokens,
            reasoning_tokens_source=record.reasoning_tokens_source,
            cached_tokens=record.cached_tokens,
        )
    else:
        outcome = ProbeFailure(
            http_status=record.http_status,
            error_kind=record.error_kind,
            error=record.error,
            fix=fix_for(record.error_kind or "client_error"),
        )
    return ProbeReport(
        url=resolved.url,
        api=resolved.api,
        model=resolved.model,
        notes=resolved.notes,
        ok=record.ok,
        generated_text=record.generated_text,
        retried=record.retried,
        retry_error=record.retry_error or None,
        outcome=outcome,
    )


def _fmt(value: float | None, unit: str = "ms") -> str:
    return "n/a" if value is None else f"{value:.2f} {unit}"


def _print_text(report: ProbeReport) -> None:
    print(f"endpoint   {report.url} ({report.api}, model {report.model})")
    if report.retried:
        print(f"retried    once on a new connection after: {report.retry_error}")
    answer = report.answer
    if answer is None:
        return
    first = answer.ttft_first_content_ms
    ttft = _fmt(answer.ttft_ms)
    if first is not None and abs(first - answer.ttft_ms) >= 0.01:
        ttft += f" (first content: {first:.2f} ms)"
    itls = answer.itl_ms
    print(f"TTFT       {ttft}")
    print(f"TPOT       {_fmt(answer.tpot_ms)}")
    if answer.reasoning_tokens is not None:
        print(
            f"TTFO       {_fmt(answer.ttfo_ms)} (first answer token, after "
            f"{answer.reasoning_tokens} reasoning tokens, {answer.reasoning_tokens_source})"
        )
        print(f"TPOT answer {_fmt(answer.tpot_answer_ms)}")
    if answer.cached_tokens is not None:
        print(f"cached     {answer.cached_tokens} prompt tokens (prefix cache)")
    if itls:
        ordered = sorted(itls)
        p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
        print(
            f"ITL        mean {sum(itls) / len(itls):.2f} ms, max {ordered[-1]:.2f} ms, "
            f"p99 {p99:.2f} ms over {len(itls)} gaps"
        )
    print(f"E2EL       {_fmt(answer.e2el_ms)}")
    source = answer.output_tokens_source
    note = "" if source == "usage" else " - the server sent no usage"
    print(
        f"output     {answer.output_tokens} tokens ({source}{note}), "
        f"{answer.chunks} chunks, finish_reason {answer.finish_reason}"
    )
    print(f"tok/s      {_fmt(answer.output_tok_s, 'tok/s')} (output tokens / E2EL)")


def _emit(events: EventWriter, record: RequestRecord, report: ProbeReport) -> None:
    """The probe as an --events stream: its one request, its point and the run's end."""
    answer = report.answer
    # prompt_tokens stays null: the probe's stream has never carried it
    events.request(
        RequestDone(
            point=0,
            ok=record.ok,
            ttft_ms=None if answer is None else answer.ttft_ms,
            tpot_ms=None if answer is None else answer.tpot_ms,
            e2el_ms=None if answer is None else answer.e2el_ms,
            output_tokens=record.output_tokens,
            error_kind=record.error_kind,
            prompt_tokens=None,
        )
    )
    events.point_finished(PointFinished(0, None, _summary(report)))
    events.run_finished(RunFinished(False, (), None))


def run(args: argparse.Namespace) -> int:
    from app.bench.http.client import run as run_async

    events = None
    if args.events:
        from app.bench.sweep.events import EventWriter

        events = EventWriter(sys.stdout)
    try:
        target = _target(args)
        for text in target.resolved.notes:
            note(text)
        if warning := cleartext_warning(target.resolved.url, target.api_key):
            print(warning, file=sys.stderr)
        outcome = run_async(_probe(args, target, events))
    except UsageError as exc:
        return error("probe", str(exc), events=events)
    if isinstance(outcome, str):  # nothing answered at all
        if events is not None:
            events.error(RunError(outcome))
        print(f"tpotbench probe: {outcome}", file=sys.stderr)
        return 1
    record = outcome
    report = _report(record, target.resolved)
    if events is not None:
        _emit(events, record, report)
    elif args.json:
        print(report.json_text())
    else:
        _print_text(report)
    if isinstance(report.outcome, ProbeFailure):
        print(
            f"tpotbench probe: {record.error} [{record.error_kind}] {report.outcome.fix}",
            file=sys.stderr,
        )
        return 1
    return 0


def _summary(report: ProbeReport) -> ProbeSummary:
    """The window's summary of the request, from the same report --json prints."""
    endpoint = ProbeEndpoint(report.url, report.model or "", report.api)
    if isinstance(report.outcome, ProbeFailure):
        failure = report.outcome
        return ProbeSummary(
            ok=False,
            error_kind=failure.error_kind,
            error=failure.error,
            fix=failure.fix,
            generated_text=report.generated_text,
            endpoint=endpoint,
        )
    answer = report.outcome
    return ProbeSummary(
        ok=report.ok,
        ttft_ms=answer.ttft_ms,
        ttft_first_content_ms=answer.ttft_first_content_ms,
        tpot_ms=answer.tpot_ms,
        e2el_ms=answer.e2el_ms,
        output_tokens=answer.output_tokens,
        output_tokens_source=answer.output_tokens_source,
        output_tok_s=answer.output_tok_s,
        finish_reason=answer.finish_reason,
        generated_text=report.generated_text,
        endpoint=endpoint,
    )
