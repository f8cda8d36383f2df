"""The JSON-lines event stream of `tpotbench sweep|probe --events jsonl` (read by the GUI).

One JSON object per line on stdout, UTF-8, flushed per line; key "type" says which event.
Times are seconds since the point started (`t_s`) or milliseconds (`*_ms`); a request rate is
a number or the string "inf"; a missing concurrency limit is null.

    run_started     {schema, app_version, points: [{index, request_rate, max_concurrency}],
                     num_prompts, endpoint: {url, model, api}}
    point_started   {point, request_rate, max_concurrency}
    tokens          {point, t_s: [...], itl_ms: [...]}   arrival of each token chunk after a
                    request's first one and the gap before it; batched about 10 times a second.
                    `probe` adds first_token_s (once, at the first chunk: its TTFT in s) and
                    text (the reply's visible text since the last event) when there are any
    progress        {point, completed, failed, total, in_flight, elapsed_s, output_tok_s}
                    about 10 times a second; output_tok_s = completed requests' tokens / elapsed
    request         {point, ok, ttft_ms, tpot_ms, e2el_ms, output_tokens, error_kind,
                    prompt_tokens}   one per finished request (vLLM's definitions; null where
                    not defined; a failed one's e2el_ms is when it failed, output_tokens what
                    it got)
    point_finished  {point, path, summary}   summary = the point's result JSON without the
                    per-request arrays (vLLM's --save-result keys + the "tpotbench" block)
    server_metrics  {t_s, kv_cache_usage, running, waiting, preemptions}   (from /metrics)
    run_finished    {cancelled, paths: [...], csv}
    error           {message}                 a run-stopping problem, one sentence

Cancelling: the line "cancel" on the worker's stdin, or SIGINT / SIGTERM, stops new sends,
gives in-flight requests a grace period, saves what finished and ends with
run_finished {cancelled: true}. The API key reaches a worker only through the environment
variable named by --api-key-env and never appears in any event.

A sweep writes from a background thread (EventWriter(..., background=True)): a reader that
falls behind fills the pipe and blocks that thread, never the measuring event loop. Adjacent
`tokens` events of one point may then arrive merged into one line; nothing is dropped or
reordered. A reader that goes away (broken pipe) ends the run like a cancel.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import math
import os
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from app import __version__
from app.jsonfile import finite as _finite  # JSON has no inf/NaN: null in events

SCHEMA = 1
EVENT_TYPES = (
    "run_started",
    "point_started",
    "tokens",
    "progress",
    "request",
    "point_finished",
    "server_metrics",
    "run_finished",
    "error",
    "search_value",
    "search_finished",
)
# Per-request arrays that would make a point_finished line megabytes long.
_BULKY_KEYS = frozenset(
    {
        "input_lens",
        "output_lens",
        "start_times",
        "ttfts",
        "itls",
        "generated_texts",
        "errors",
        "latencies",
        "queue_times",
    }
)


# ...and in the tpotbench block (`requests` is one entry per request: the file has it).
_BULKY_BLOCK_KEYS = frozenset({"chunk_counts", "error_kinds", "requests"})


def _rate(rate: float) -> float | str:
    return "inf" if math.isinf(rate) else rate


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 4)


_STOP = object()  # the writer thread's last queue item
# Most token arrivals in one merged line: json.dumps holds the GIL for a whole line, so a huge
# line (after a long reader stall) would stall the measuring loop in turn; ~1 ms each at this size.
MERGE_LIMIT = 4096


def _encode(type_: str, fields: dict[str, Any]) -> str:
    if type_ == "tokens":  # rounded here, on the writer's thread, not the measuring loop
        fields = {
            **fields,
            "t_s": [round(t, 6) for t in fields["t_s"]],
            "itl_ms": [round(v, 4) for v in fields["itl_ms"]],
        }
    event = {"type": type_, **fields}
    try:
        return json.dumps(event, separators=(",", ":"), allow_nan=False) + "\n"
    except (ValueError, TypeError):  # a stray NaN or odd type must not kill the writer thread
        return json.dumps(_finite(event), separators=(",", ":"), default=str) + "\n"


def _coalesce(items: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Merge runs of adjacent `tokens` events of the same point (order kept, nothing lost)."""
    out: list[tuple[str, dict[str, Any]]] = []
    owned = False  # out[-1] is a copy made here, safe to extend
    for type_, fields in items:
        if (
            type_ == "tokens"
            and out
            and out[-1][0] == "tokens"
            and out[-1][1]["point"] == fields["point"]
            and len(fields) == len(out[-1][1]) == 3  # only plain batches: never lose text
            and len(out[-1][1]["t_s"]) + len(fields["t_s"]) <= MERGE_LIMIT
        ):
            if not owned:
                first = out[-1][1]
                out[-1] = (
                    "tokens",
                    {**first, "t_s": list(first["t_s"]), "itl_ms": list(first["itl_ms"])},
                )
                owned = True
            out[-1][1]["t_s"].extend(fields["t_s"])
            out[-1][1]["itl_ms"].extend(fields["itl_ms"])
            continue
        out.append((type_, fields))
        owned = False
    return out


class EventWriter:
    """Writes events to a text stream; safe to call from several threads.

    With `background=True` the callers only enqueue; a daemon thread encodes and writes, so a
    slow reader blocks that thread instead of the caller. close() (also run at exit) writes
    everything queued before returning. `on_broken` is called once, from the writer's thread,
    if the reader has gone (broken pipe); later events are then discarded.
    """

    def __init__(
        self,
        stream: IO[str],
        *,
        background: bool = False,
        on_broken: Callable[[], None] | None = None,
    ) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self.on_broken = on_broken
        self.broken = False
        self._closed = False
        self._queue: queue.SimpleQueue[Any] | None = None
        self._thread: threading.Thread | None = None
        if background:
            self._queue = queue.SimpleQueue()
            self._thread = threading.Thread(target=self._run, name="events", daemon=True)
            self._thread.start()
            atexit.register(self.close)

    def emit(self, type_: str, **fields: Any) -> None:
        if type_ not in EVENT_TYPES:
            raise ValueError(f"unknown event type {type_!r}")
        if self._queue is not None:
            with self._lock:  # never behind _STOP: after close() the write is direct
                if not self._closed:
                    self._queue.put((type_, fields))
                    return
            thread = self._thread
            if thread is not None and thread is not threading.current_thread():
                thread.join()  # after whatever was queued before close()
        self._write(_encode(type_, fields))

    def close(self) -> None:
        """Write what is queued and stop the writer thread (idempotent)."""
        if self._queue is None or self._thread is None:
            return
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(_STOP)
        self._thread.join()
        atexit.unregister(self.close)

    def __enter__(self) -> EventWriter:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _run(self) -> None:
        assert self._queue is not None
        while True:
            items = [self._queue.get()]
            with contextlib.suppress(queue.Empty):
                while True:  # whatever piled up while the last write was blocked
                    items.append(self._queue.get_nowait())
            stop = items[-1] is _STOP
            events = [i for i in items if i is not _STOP]
            if events:
                self._write("".join(_encode(t, f) for t, f in _coalesce(events)))
            if stop:
                return

    def _write(self, text: str) -> None:
        with self._write_lock:
            if self.broken:
                return
            try:
                self._stream.write(text)
                self._stream.flush()
            except (BrokenPipeError, ConnectionResetError, ValueError):  # ValueError: closed
                self.broken = True
                self._silence()
            else:
                return
        if self.on_broken is not None:
            self.on_broken()

    def _silence(self) -> None:
        """Point stdout at /dev/null so the interpreter's exit flush does not complain."""
        if self._stream not in (sys.stdout, sys.__stdout__):
            return
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)

    # The sweep observer interface (app.bench.sweep.runner.SweepObserver).
    def run_started(
        self, points: Sequence[Any], num_prompts: int, endpoint: dict[str, Any]
    ) -> None:
        self.emit(
            "run_started",
            schema=SCHEMA,
            app_version=__version__,
            points=[
                {
                    "index": p.index,
                    "request_rate": _rate(p.request_rate),
                    "max_concurrency": p.max_concurrency,
                }
                for p in points
            ],
            num_prompts=num_prompts,
            endpoint=endpoint,
        )

    def point_started(self, point: Any) -> None:
        self.emit(
            "point_started",
            point=point.index,
            request_rate=_rate(point.request_rate),
            max_concurrency=point.max_concurrency,
        )

    def tokens(
        self,
        point: int,
        t_s: Sequence[float],
        itl_ms: Sequence[float],
        *,
        first_token_s: float | None = None,
        text: str | None = None,
    ) -> None:
        extra: dict[str, Any] = {}
        if first_token_s is not None:
            extra["first_token_s"] = round(first_token_s, 6)
        if text:
            extra["text"] = text
        self.emit("tokens", point=point, t_s=list(t_s), itl_ms=list(itl_ms), **extra)

    def progress(
        self,
        point: int,
        completed: int,
        failed: int,
        total: int,
        in_flight: int,
        elapsed_s: float,
        output_tok_s: float,
    ) -> None:
        self.emit(
            "progress",
            point=point,
            completed=completed,
            failed=failed,
            total=total,
            in_flight=in_flight,
            elapsed_s=round(elapsed_s, 3),
            output_tok_s=round(output_tok_s, 2),
        )

    def request(
        self,
        point: int,
        ok: bool,
        ttft_s: float | None,
        tpot_s: float | None,
        e2el_s: float | None,
        output_tokens: int,
        error_kind: str | None,
        prompt_tokens: int | None = None,
    ) -> None:
        self.emit(
            "request",
            point=point,
            ok=ok,
            ttft_ms=_ms(ttft_s),
            tpot_ms=_ms(tpot_s),
            e2el_ms=_ms(e2el_s),
            output_tokens=output_tokens,
            error_kind=error_kind,
            prompt_tokens=prompt_tokens,
        )

    def point_finished(self, point: int, path: Path | None, result: dict[str, Any]) -> None:
        summary = {k: v for k, v in result.items() if k not in _BULKY_KEYS}
        block = summary.get("tpotbench")
        if isinstance(block, dict):
            summary["tpotbench"] = {
                k: v
                for k, v in block.items()
                if k not in ("chunk_counts", "error_kinds", "requests")
            }
        self.emit(
            "point_finished",
            point=point,
            path=str(path) if path else None,
            summary=_finite(summary),
        )

    def server_metrics(self, sample: dict[str, Any]) -> None:
        self.emit("server_metrics", **sample)

    def run_finished(self, cancelled: bool, paths: Sequence[Path], csv: Path | None) -> None:
        self.emit(
            "run_finished",
            cancelled=cancelled,
            paths=[str(p) for p in paths],
            csv=str(csv) if csv else None,
        )

    def error(self, message: str) -> None:
        self.emit("error", message=message)

    # A capacity search's own events (app.bench.capacity.search_run): one per load value, and
    # the end.
    def search_value(
        self, value: dict[str, Any], highest_pass: float | None, lowest_fail: float | None
    ) -> None:
        self.emit(
            "search_value",
            value=_finite(value),
            highest_pass=highest_pass,
            lowest_fail=lowest_fail,
        )

    def search_finished(self, doc: dict[str, Any], path: Path) -> None:
        summary = {k: v for k, v in doc.items() if k != "points"}
        self.emit("search_finished", path=str(path), search=_finite(summary))


class EventError(ValueError):
    """A line that is not a valid event."""


def parse_event(line: str) -> dict[str, Any]:
    """One line of the stream -> its dict; EventError says what is wrong with it."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise EventError(f"not JSON: {exc.msg}: {line[:80]!r}") from None
    if not isinstance(obj, dict) or obj.get("type") not in EVENT_TYPES:
        raise EventError(f"not an event (no known 'type'): {line[:80]!r}")
    return obj
