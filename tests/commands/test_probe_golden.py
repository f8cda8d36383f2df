"""`tpotbench probe`'s three outputs (--json, the text, the --events lines) for fixed request
records, byte for byte as before the report became typed.

How probe_golden.json was produced: at commit 559375b (before this test), for each record of
`_records()` below and the endpoint `_resolved()`, with that commit's code:
`json.dumps({"url", "api", "model", "notes" of the endpoint, **probe._report(record)},
indent=2)` (what `--json` printed), `probe._print_text(report, resolved)`'s stdout (ok records
only; a failure prints no text there), and the lines `probe._emit(EventWriter(buffer), record,
report, resolved)` wrote; `stderr_fix` is `report["fix"]`. The file is written with
`json.dumps(golden, indent=1, ensure_ascii=False)`. Never regenerate it to make a test pass.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

import app.commands.probe as probe
from app.bench.http.endpoint import ResolvedEndpoint, resolve_endpoint
from app.bench.http.record import RequestRecord
from app.bench.schema.probe_report import ProbeAnswer, ProbeFailure, ProbeReport
from app.bench.sweep.events import EventWriter

GOLDEN = json.loads((Path(__file__).parent / "probe_golden.json").read_text(encoding="utf-8"))
MS = 1_000_000


def _records() -> dict[str, RequestRecord]:
    ok = RequestRecord(
        request_id="r1",
        send_ns=1_000 * MS,
        first_choice_ns=1_040 * MS,
        first_token_ns=1_050 * MS,
        chunk_ns=[1_050 * MS, 1_061 * MS + 250_000, 1_073 * MS + 125, 1_090 * MS],
        chunk_tokens=[1, 1, 2, 1],
        end_ns=1_095 * MS,
        ok=True,
        http_status=200,
        generated_text="Bandwidth is \u00e9 bytes per second.",
        finish_reason="length",
        output_tokens=5,
        output_tokens_source="usage",
        retried=True,
        retry_error="connection reset",
        first_output_ns=1_073 * MS + 125,
        reasoning_chunks=2,
        reasoning_tokens=3,
        reasoning_tokens_source="counted",
        cached_tokens=16,
    )
    one = RequestRecord(
        request_id="r2",
        send_ns=0,
        first_token_ns=26_250_000,
        chunk_ns=[26_250_000],
        end_ns=27_000_000,
        ok=True,
        http_status=200,
        generated_text="x",
        finish_reason="stop",
        output_tokens=1,
        output_tokens_source="tokenizer",
    )
    zero_time = RequestRecord(
        request_id="r2b",
        send_ns=5,
        first_token_ns=10,
        chunk_ns=[10],
        end_ns=10,
        ok=True,
        http_status=200,
        generated_text="",
        finish_reason=None,
        output_tokens=1,
        output_tokens_source="estimate",
    )
    auth = RequestRecord(
        request_id="r3",
        send_ns=0,
        end_ns=5,
        ok=False,
        http_status=401,
        error_kind="auth",
        error="HTTP 401: invalid key",
    )
    no_kind = RequestRecord(
        request_id="r4", send_ns=0, end_ns=5, ok=False, error="connection refused"
    )
    return {
        "ok_reasoning": ok,
        "ok_one_token": one,
        "ok_zero_time": zero_time,
        "auth_failure": auth,
        "no_kind": no_kind,
    }


def _resolved() -> ResolvedEndpoint:
    return resolve_endpoint("http://127.0.0.1:8000", None, "chat", model="m-1")


def _outputs(record: RequestRecord, resolved: ResolvedEndpoint) -> dict[str, Any]:
    report = probe._report(record, resolved)
    text, events = io.StringIO(), io.StringIO()
    if record.ok:
        with contextlib.redirect_stdout(text):
            probe._print_text(report)
    writer = EventWriter(events)
    probe._emit(writer, record, report)
    writer.close()
    fix = report.outcome.fix
    return {
        "json": report.json_text(),
        "text": text.getvalue(),
        "events": events.getvalue(),
        "stderr_fix": fix,
    }


def test_the_report_is_typed_from_the_record() -> None:
    """The window's summary and --json come from one typed report, not from a dict."""
    report = probe._report(_records()["ok_reasoning"], _resolved())
    assert isinstance(report, ProbeReport) and isinstance(report.outcome, ProbeAnswer)
    assert report.outcome.reasoning_tokens == 3 and report.model == "m-1"
    failed = probe._report(_records()["auth_failure"], _resolved())
    assert isinstance(failed.outcome, ProbeFailure) and failed.outcome.http_status == 401
    assert failed.answer is None


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_outputs_are_the_golden_bytes(name: str) -> None:
    assert _outputs(_records()[name], _resolved()) == GOLDEN[name]
