"""The JSON-lines event protocol: what the writer emits and what the parser accepts."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import threading
import time

import pytest

from app import __version__
from app.bench.schema.point_blocks import PointBlocks
from app.bench.schema.point_doc import PointDoc, VllmKeys
from app.bench.sweep.contract import (
    EndpointInfo,
    EventError,
    PointFinished,
    Progress,
    RequestDone,
    RunError,
    RunFinished,
    RunStarted,
    ServerMetrics,
    Tokens,
)
from app.bench.sweep.event_decode import decode
from app.bench.sweep.events import EventWriter
from app.bench.sweep.plan import plan_points


def lines(buffer: io.StringIO) -> list[dict]:
    """The stream's lines as JSON objects (the file format), each also a valid event."""
    out = []
    for line in buffer.getvalue().splitlines():
        decode(line)
        out.append(json.loads(line))
    return out


def kind(line: str) -> str:
    return decode(line).kind


def test_writer_emits_the_documented_shapes() -> None:
    out = io.StringIO()
    writer = EventWriter(out)
    writer.run_started(
        RunStarted(
            points=tuple(plan_points([math.inf], [1, None])),
            num_prompts=10,
            endpoint=EndpointInfo("http://h/v1/chat/completions", "m", "chat"),
        )
    )
    writer.tokens(Tokens(0, [0.1234567891], [19.87654321]))
    writer.progress(Progress(0, 3, 1, 10, 2, 1.23456, 99.999))
    writer.request(RequestDone(0, True, 41.2, 19.7, 500.0, 24, None, 128))
    writer.point_finished(
        PointFinished(
            0,
            None,
            PointDoc(
                VllmKeys(completed=3, ttfts=[0.1], request_rate="inf"),
                {"mean_ttft_ms": math.inf},
                PointBlocks(),
                {"chunk_counts": [1]},
            ),
        )
    )
    writer.run_finished(RunFinished(True, (), None))
    writer.error(RunError("boom"))
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
        "prompt_tokens": 128,
    }
    # bulky arrays are left out; inf (not JSON) becomes null
    summary = events[4]["summary"]
    assert summary["completed"] == 3 and summary["request_rate"] == "inf"
    assert "ttfts" not in summary and "chunk_counts" not in summary["tpotbench"]
    assert summary["mean_ttft_ms"] is None and summary["tpotbench"]["cancelled"] is False
    assert events[5] == {"type": "run_finished", "cancelled": True, "paths": [], "csv": None}
    assert events[6] == {"type": "error", "message": "boom"}
    assert all("\n" not in line for line in out.getvalue().splitlines())


def test_parser_rejects_non_events() -> None:
    with pytest.raises(EventError, match="not JSON"):
        decode("cancel")
    with pytest.raises(EventError, match="not an event"):
        decode(json.dumps({"type": "surprise"}))
    writer = EventWriter(io.StringIO(), background=True)
    with pytest.raises(TypeError, match="not an event"):  # in the caller, not the thread
        writer.emit({"type": "error", "message": "a dict"})  # type: ignore[arg-type]
    writer.close()


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
    [event] = [decode(line) for line in proc.stdout.splitlines()]
    assert isinstance(event, RunError) and "--request-rate" in event.message


def test_engine_modules_import_without_qt() -> None:
    import subprocess
    import sys

    code = (
        "import sys, app.bench.sweep.runner, app.bench.results.read, app.bench.results.write, "
        "app.bench.sweep.events, "
        "app.bench.sweep.contract, "
        "app.commands.sweep, "
        "app.commands.report; print([m for m in sys.modules if m.startswith(('PySide6', 'qasync', "
        "'pyqtgraph'))])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


# ---- the background writer: the engine's loop only enqueues ------------------------------


def _flatten_sent(batches: list[list[float]]) -> list[tuple[str, float]]:
    return [("t", t) for batch in batches for t in batch]


def _emit(writer: EventWriter, rounds: int) -> list[tuple[str, float]]:
    """Emit ~16 KB of events per round; return what was sent, flattened: ('t', value) per
    token, ('p', i) per progress event."""
    sent: list[tuple[str, float]] = []
    for i in range(rounds):
        # three token batches in a row (the writer may merge them), then a progress event
        batches = [[round(i + k / 10 + j * 1e-4, 6) for j in range(200)] for k in range(3)]
        for batch in batches:
            writer.tokens(Tokens(0, batch, [5.0] * len(batch)))
        writer.progress(Progress(0, i, 0, 10**6, 1, 0.0, 0.0))
        sent.extend(_flatten_sent(batches))
        sent.append(("p", i))
    return sent


def _stalled_reader(fd: int, release: threading.Event, received: list[str]) -> threading.Thread:
    def read() -> None:
        release.wait()  # the GUI busy elsewhere: the 64 KB pipe fills up
        with os.fdopen(fd, encoding="utf-8") as fh:
            received.extend(fh)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _flatten_received(lines_: list[str]) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    for event in map(decode, lines_):
        if isinstance(event, Tokens):
            assert len(event.t_s) == len(event.itl_ms)
            out.extend(("t", t) for t in event.t_s)
        elif isinstance(event, Progress):
            out.append(("p", event.completed))
    return out


@pytest.mark.parametrize("background", [True, False])
def test_a_stalled_reader_does_not_hold_up_the_loop(background: bool) -> None:
    # The reader reads nothing until released. With the background writer the engine's side
    # emits ~3 MB (far more than a pipe holds) and returns while the reader is still stalled;
    # writing in the caller blocks until the reader reads (the control: the test can tell).
    # No clock: the stall lasts exactly until the emitter has returned (or is seen blocked).
    read_fd, write_fd = os.pipe()
    received: list[str] = []
    release = threading.Event()
    reader = _stalled_reader(read_fd, release, received)
    stream = os.fdopen(write_fd, "w", encoding="utf-8")
    writer = EventWriter(stream, background=background)
    sent: list[tuple[str, float]] = []
    emitted = threading.Event()

    def emit() -> None:
        sent.extend(_emit(writer, 300))
        emitted.set()

    emitter = threading.Thread(target=emit, daemon=True)
    try:
        emitter.start()
        if background:
            assert emitted.wait(120), "emitting blocked on a stalled reader"
            assert received == []  # it returned while nothing had been read
        else:
            # Blocked on the full pipe, and it stays blocked for as long as the reader stalls.
            assert not emitted.wait(1.0)
        release.set()
        emitter.join(120)
        assert emitted.is_set()
        writer.run_finished(RunFinished(False, (), None))
    finally:
        release.set()
        writer.close()
        stream.close()
    reader.join(30)
    assert len(sent) > 20_000  # ~3 MB of JSON: far more than a pipe holds
    assert kind(received[-1]) == "run_finished"  # written before close returned
    assert _flatten_received(received) == sent  # every event, in order


def test_background_writer_merges_only_adjacent_token_batches() -> None:
    out = io.StringIO()
    writer = EventWriter(out, background=True)
    with writer._write_lock:  # as if the pipe were full: events pile up in the queue
        for k in range(5):
            writer.tokens(Tokens(0, [float(k)], [1.0]))
        writer.progress(Progress(0, 1, 0, 2, 1, 0.0, 0.0))
        writer.tokens(Tokens(0, [9.0], [1.0]))
        time.sleep(0.05)
    writer.close()
    events = lines(out)
    assert _flatten_received(out.getvalue().splitlines(keepends=True)) == [
        *(("t", float(k)) for k in range(5)),
        ("p", 1),
        ("t", 9.0),
    ]
    assert len(events) <= 4  # the piled-up token batches went out as one line
    writer.tokens(Tokens(1, [0.5], [2.0]))  # after close: written directly, still in order
    assert lines(out)[-1] == {"type": "tokens", "point": 1, "t_s": [0.5], "itl_ms": [2.0]}
    from app.bench.sweep.events import _coalesce

    progress = Progress(1, 0, 0, 1, 0, 0.0, 0.0)
    first = Tokens(0, [1.0], [5.0])
    probe_batch = Tokens(1, [6.0], [1.0], first_token_s=0.5)
    merged = _coalesce(
        [
            first,
            Tokens(0, [2.0, 3.0], [6.0, 7.0]),
            Tokens(1, [4.0], [8.0]),
            progress,
            Tokens(1, [5.0], [9.0]),
            probe_batch,  # a batch with the first token's time (or text) is never merged
            Tokens(1, [7.0], [2.0], text="hi"),
        ]
    )
    assert merged == [
        Tokens(0, [1.0, 2.0, 3.0], [5.0, 6.0, 7.0]),
        Tokens(1, [4.0], [8.0]),
        progress,
        Tokens(1, [5.0], [9.0]),
        probe_batch,
        Tokens(1, [7.0], [2.0], text="hi"),
    ]
    assert first == Tokens(0, [1.0], [5.0])  # the caller's batch is not extended in place


def test_a_broken_pipe_calls_back_once_and_later_events_are_dropped() -> None:
    read_fd, write_fd = os.pipe()
    os.close(read_fd)  # the reader has gone
    stream = os.fdopen(write_fd, "w", encoding="utf-8")
    calls: list[str] = []
    writer = EventWriter(stream, background=True, on_broken=lambda: calls.append("gone"))
    try:
        for i in range(50):
            writer.progress(Progress(0, i, 0, 50, 1, 0.0, 0.0))
        writer.run_finished(RunFinished(True, (), None))
    finally:
        writer.close()
        with contextlib.suppress(BrokenPipeError):
            stream.close()
    assert writer.broken and calls == ["gone"]


def test_sweep_whose_reader_goes_away_stops_like_a_cancel(sim, tmp_path) -> None:
    import subprocess
    import sys

    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "app", "sweep", "--events", "jsonl"),
            *("--base-url", sim.base_url, "--model", "qwen2.5-7b"),
            # ~60 s of work at 20 ms per token if it were not stopped
            *("--num-prompts", "200", "--max-concurrency", "4", "--output-len", "64"),
            *("--dataset-name", "random", "--random-input-len", "16"),
            *("--result-dir", str(tmp_path), "--grace-period", "0.5"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if kind(line) == "progress":
                break
        proc.stdout.close()  # the GUI went away
        _, err = proc.communicate(timeout=60)  # a hang guard: the sweep would run far longer
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert "Cancelled: finished points are saved." in err


def test_a_value_json_cannot_hold_does_not_stop_the_writer_thread() -> None:
    out = io.StringIO()
    with EventWriter(out, background=True) as writer:
        # a server's page can hold NaN; JSON cannot
        writer.server_metrics(ServerMetrics(1.5, math.nan, 3, None, None))
        writer.error(RunError("still here"))
    assert lines(out) == [
        {
            "type": "server_metrics",
            "t_s": 1.5,
            "kv_cache_usage": None,
            "running": 3,
            "waiting": None,
            "preemptions": None,
        },
        {"type": "error", "message": "still here"},
    ]
