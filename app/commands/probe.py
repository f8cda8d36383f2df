"""`tpotbench probe`: one streaming request, its TTFT, TPOT, output tokens and tokens/s."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import TYPE_CHECKING, Any

from app.bench.http.auth import cleartext_warning
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


def _target(args: argparse.Namespace) -> dict[str, Any]:
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
    return {
        "resolved": resolved,
        "headers": conn.headers,
        "verify": conn.verify_tls,
        "api_key": require_api_key(args.api_key_env, conn.profile),
        "tokenizer": tokenizer,
    }


async def _probe(args: argparse.Namespace, target: dict[str, Any], events: Any) -> Any:
    from dataclasses import replace

    from app.bench.http.client import make_client
    from app.bench.http.request import RequestSpec
    from app.bench.http.stream import send_request
    from app.bench.sweep.discovery import UnreachableError, fetch_first_model

    resolved = target["resolved"]
    if not resolved.model:
        try:
            model = await fetch_first_model(
                resolved,
                target["api_key"],
                target["headers"],
                target["verify"],
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
        target["resolved"] = resolved
    spec = RequestSpec(args.prompt, 0, args.max_tokens, ignore_eos=args.ignore_eos)
    on_chunk = None
    if events is not None:
        point = PointSpec(0, math.inf, 1)
        endpoint = EndpointInfo(resolved.url, resolved.model, resolved.api)
        events.run_started(RunStarted(points=(point,), num_prompts=1, endpoint=endpoint))
        events.point_started(PointStarted.of(point))
        on_chunk = _TokenEvents(events)
    on_text = on_chunk.add_text if on_chunk is not None else None
    async with make_client(
        1, target["verify"], args.timeout, request_timeout_s=args.request_timeout
    ) as client:
        record = await send_request(
            client,
            resolved,
            spec,
            api_key=target["api_key"],
            extra_headers=target["headers"],
            tokenizer=target["tokenizer"],
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


def _report(record: Any) -> dict[str, Any]:
    from app.bench.http.failures import fix_for
    from app.bench.metrics.request import request_tpot, vllm_timings

    out: dict[str, Any] = {
        "ok": record.ok,
        "generated_text": record.generated_text,
        "retried": record.retried,
        "retry_error": record.retry_error or None,
    }
    if record.ok:
        ttft, itls, e2el, _ = vllm_timings(record)
        n = record.output_tokens
        out.update(
            ttft_ms=ttft * 1e3,
            ttft_first_content_ms=record.ttft_s * 1e3,
            tpot_ms=None if (tpot := request_tpot(ttft, e2el, n)) is None else tpot * 1e3,
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
            error_kind=None,
            error=None,
            fix=None,
        )
    else:
        out.update(
            http_status=record.http_status,
            error_kind=record.error_kind,
            error=record.error,
            fix=fix_for(record.error_kind or "client_error"),
        )
    return out


def _fmt(value: float | None, unit: str = "ms") -> str:
    return "n/a" if value is None else f"{value:.2f} {unit}"


def _print_text(report: dict[str, Any], resolved: Any) -> None:
    print(f"endpoint   {resolved.url} ({resolved.api}, model {resolved.model})")
    if report["retried"]:
        print(f"retried    once on a new connection after: {report['retry_error']}")
    if not report["ok"]:
        return
    first = report["ttft_first_content_ms"]
    ttft = _fmt(report["ttft_ms"])
    if abs(first - report["ttft_ms"]) >= 0.01:
        ttft += f" (first content: {first:.2f} ms)"
    itls = report["itl_ms"]
    print(f"TTFT       {ttft}")
    print(f"TPOT       {_fmt(report['tpot_ms'])}")
    if report["reasoning_tokens"] is not None:
        print(
            f"TTFO       {_fmt(report['ttfo_ms'])} (first answer token, after "
            f"{report['reasoning_tokens']} reasoning tokens, {report['reasoning_tokens_source']})"
        )
        print(f"TPOT answer {_fmt(report['tpot_answer_ms'])}")
    if report["cached_tokens"] is not None:
        print(f"cached     {report['cached_tokens']} prompt tokens (prefix cache)")
    if itls:
        ordered = sorted(itls)
        p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
        print(
            f"ITL        mean {sum(itls) / len(itls):.2f} ms, max {ordered[-1]:.2f} ms, "
            f"p99 {p99:.2f} ms over {len(itls)} gaps"
        )
    print(f"E2EL       {_fmt(report['e2el_ms'])}")
    source = report["output_tokens_source"]
    note = "" if source == "usage" else " - the server sent no usage"
    print(
        f"output     {report['output_tokens']} tokens ({source}{note}), "
        f"{report['chunks']} chunks, finish_reason {report['finish_reason']}"
    )
    print(f"tok/s      {_fmt(report['output_tok_s'], 'tok/s')} (output tokens / E2EL)")


def _emit(
    events: EventWriter,
    record: RequestRecord,
    report: dict[str, Any],
    resolved: ResolvedEndpoint,
) -> None:
    """The probe as an --events stream: its one request, its point and the run's end."""
    # prompt_tokens stays null: the probe's stream has never carried it
    events.request(
        RequestDone(
            point=0,
            ok=record.ok,
            ttft_ms=report.get("ttft_ms"),
            tpot_ms=report.get("tpot_ms"),
            e2el_ms=report.get("e2el_ms"),
            output_tokens=record.output_tokens,
            error_kind=record.error_kind,
            prompt_tokens=None,
        )
    )
    events.point_finished(PointFinished(0, None, _summary(report, resolved)))
    events.run_finished(RunFinished(False, (), None))


def run(args: argparse.Namespace) -> int:
    from app.bench.http.client import run as run_async

    events = None
    if args.events:
        from app.bench.sweep.events import EventWriter

        events = EventWriter(sys.stdout)
    try:
        target = _target(args)
        for text in target["resolved"].notes:
            note(text)
        if warning := cleartext_warning(target["resolved"].url, target["api_key"]):
            print(warning, file=sys.stderr)
        outcome = run_async(_probe(args, target, events))
    except UsageError as exc:
        return error("probe", str(exc), events=events)
    resolved = target["resolved"]
    if isinstance(outcome, str):  # nothing answered at all
        if events is not None:
            events.error(RunError(outcome))
        print(f"tpotbench probe: {outcome}", file=sys.stderr)
        return 1
    record = outcome
    report = _report(record)
    if events is not None:
        _emit(events, record, report, resolved)
    elif args.json:
        print(
            json.dumps(
                {
                    "url": resolved.url,
                    "api": resolved.api,
                    "model": resolved.model,
                    "notes": resolved.notes,
                    **report,
                },
                indent=2,
            )
        )
    else:
        _print_text(report, resolved)
    if not record.ok:
        print(
            f"tpotbench probe: {record.error} [{record.error_kind}] {report['fix']}",
            file=sys.stderr,
        )
        return 1
    return 0


def _summary(report: dict[str, Any], resolved: Any) -> ProbeSummary:
    return ProbeSummary(
        ok=report["ok"],
        ttft_ms=report.get("ttft_ms"),
        ttft_first_content_ms=report.get("ttft_first_content_ms"),
        tpot_ms=report.get("tpot_ms"),
        e2el_ms=report.get("e2el_ms"),
        output_tokens=report.get("output_tokens"),
        output_tokens_source=report.get("output_tokens_source"),
        output_tok_s=report.get("output_tok_s"),
        finish_reason=report.get("finish_reason"),
        error_kind=report.get("error_kind"),
        error=report.get("error"),
        fix=report.get("fix"),
        generated_text=report.get("generated_text"),
        endpoint=ProbeEndpoint(resolved.url, resolved.model, resolved.api),
    )
