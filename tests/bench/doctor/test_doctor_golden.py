"""The doctor's --json report and its probe requests' bodies, byte for byte as before they
became typed.

How doctor_golden.json was produced: at commit 559375b (before this test), with that commit's
code: `json.dumps(report.to_json(), ensure_ascii=False, indent=2)` (what `tpotbench doctor
--json` prints) for the two reports of `_reports()` below, and `json.dumps(payload(api, model,
stream))` (the body `Probe.post` sends) for every api, model and stream of `_payloads()`,
keyed "api-model-stream". The golden is written with `json.dumps(golden, indent=1,
ensure_ascii=False)`. Never regenerate it to make a test pass.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.bench.doctor.probe import payload
from app.bench.doctor.report import Check, DoctorReport, msg
from app.bench.schema.codec import to_json_obj

GOLDEN = json.loads((Path(__file__).parent / "doctor_golden.json").read_text(encoding="utf-8"))


def _reports() -> dict[str, DoctorReport]:
    failing = DoctorReport(
        "http://127.0.0.1:8000/v1/chat/completions",
        [
            Check.of("reachable", "ok", msg("answered in {ms} ms", ms=12)),
            Check("auth", "warn", "key \u00e9 sent over http", "use https"),
            Check.of(
                "model",
                "fail",
                msg("model {m} not served", m="x"),
                msg("pick one of {ids}", ids=["a", "b"]),
            ),
            Check("metrics", "skip", "", ""),
        ],
    )
    ok = DoctorReport("http://h/v1/completions", [Check("reachable", "ok", "fine")])
    return {"report_with_failure": failing, "report_ok": ok}


def _payloads() -> dict[str, str]:
    return {
        f"{api}-{model}-{stream}": json.dumps(to_json_obj(payload(api, model, stream)))
        for api in ("chat", "completions")
        for model in (None, "m")
        for stream in (False, True)
    }


def test_report_json_is_the_golden_bytes() -> None:
    for name, report in _reports().items():
        assert report.json_text() == GOLDEN[name], name


def test_request_bodies_are_the_golden_bytes() -> None:
    assert _payloads() == GOLDEN["payloads"]
