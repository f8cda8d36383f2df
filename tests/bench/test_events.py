"""The JSON-lines event protocol: what the writer emits and what the parser accepts."""

from __future__ import annotations

import io
import json
import math

import pytest

from app import __version__
from app.bench.events import EventError, EventWriter, parse_event
from app.bench.sweep import plan_points


def lines(buffer: io.StringIO) -> list[dict]:
    return [parse_event(line) for line in buffer.getvalue().splitlines()]


def test_writer_emits_the_documented_shapes() -> None:
    out = io.StringIO()
    writer = EventWriter(out)
    writer.run_started(
        plan_points([math.inf], [1, None]),
        10,
        {"url": "http://h/v1/chat/completions", "model": "m", "api": "chat"},
    )
    writer.tokens(0, [0.1234567891], [19.87654321])
    writer.progress(0, 3, 1, 10, 2, 1.23456, 99.999)
    writer.request(0, True, 0.0412, 0.0197, 0.5, 24, None)
    writer.point_finished(
        0,
        None,
        {
            "completed": 3,
            "ttfts": [0.1],
            "request_rate": math.inf,
            "tpotbench": {"chunk_counts": [1], "cancelled": False},
        },
    )
    writer.run_finished(True, [], None)
    writer.error("boom")
    events = lines(out)
    assert events[0] == {
        "type": "run_started",
        "schema": 1,
        "app_version": __version__,
        "points": [
            {"index": 0, "request_rate": "inf", "max_concurrency": 1},
            {"index": 1, "request_rate": "inf", "max_concurrency": None},
        ],
        "num_prompts": 10,
        "endpoint": {"url": "http://h/v1/chat/completions", "model": "m", "api": "chat"},
    }
    assert events[1] == {"type": "tokens", "point": 0, "t_s": [0.123457], "itl_ms": [19.8765]}
    assert events[2]["elapsed_s"] == 1.235 and events[2]["in_flight"] == 2
    assert events[3] == {
        "type": "request",
        "point": 0,
        "ok": True,
        "ttft_ms": 41.2,
        "tpot_ms": 19.7,
        "e2el_ms": 500.0,
        "output_tokens": 24,
        "error_kind": None,
    }
    # bulky arrays are left out; inf (not JSON) becomes null
    assert events[4]["summary"] == {
        "completed": 3,
        "request_rate": None,
        "tpotbench": {"cancelled": False},
    }
    assert events[5] == {"type": "run_finished", "cancelled": True, "paths": [], "csv": None}
    assert events[6] == {"type": "error", "message": "boom"}
    assert all("\n" not in line for line in out.getvalue().splitlines())


def test_parser_rejects_non_events() -> None:
    with pytest.raises(EventError, match="not JSON"):
        parse_event("cancel")
    with pytest.raises(EventError, match="not an event"):
        parse_event(json.dumps({"type": "surprise"}))
    with pytest.raises(ValueError, match="unknown event type"):
        EventWriter(io.StringIO()).emit("surprise")


def test_bad_flags_in_events_mode_also_emit_an_error_event(tmp_path) -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "sweep",
            "--events",
            "jsonl",
            "--request-rate",
            "x",
            "--result-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    [event] = [parse_event(line) for line in proc.stdout.splitlines()]
    assert event["type"] == "error" and "--request-rate" in event["message"]


def test_engine_modules_import_without_qt() -> None:
    import subprocess
    import sys

    code = (
        "import sys, app.bench.sweep, app.bench.results, app.bench.events, app.commands.sweep, "
        "app.commands.report; print([m for m in sys.modules if m.startswith(('PySide6', 'qasync', "
        "'pyqtgraph'))])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr
