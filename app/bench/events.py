"""The JSON-lines event stream of `tpotbench sweep|probe --events jsonl` (read by the GUI).

One JSON object per line on stdout, UTF-8, flushed per line; key "type" says which event.
Times are seconds since the point started (`t_s`) or milliseconds (`*_ms`); a request rate is
a number or the string "inf"; a missing concurrency limit is null.

    run_started     {schema, app_version, points: [{index, request_rate, max_concurrency}],
                     num_prompts, endpoint: {url, model, api}}
    point_started   {point, request_rate, max_concurrency}
    tokens          {point, t_s: [...], itl_ms: [...]}   arrival of each token chunk after a
                    request's first one and the gap before it; batched about 10 times a second
    progress        {point, completed, failed, total, in_flight, elapsed_s, output_tok_s}
                    about 10 times a second; output_tok_s = completed requests' tokens / elapsed
    request         {point, ok, ttft_ms, tpot_ms, e2el_ms, output_tokens, error_kind}
                    one per finished request (vLLM's definitions; null where not defined)
    point_finished  {point, path, summary}   summary = the point's result JSON without the
                    per-request arrays (vLLM's --save-result keys + the "tpotbench" block)
    server_metrics  {t_s, kv_cache_usage, running, waiting, preemptions}   (from /metrics)
    run_finished    {cancelled, paths: [...], csv}
    error           {message}                 a run-stopping problem, one sentence

Cancelling: the line "cancel" on the worker's stdin, or SIGINT / SIGTERM, stops new sends,
gives in-flight requests a grace period, saves what finished and ends with
run_finished {cancelled: true}. The API key reaches a worker only through the environment
variable named by --api-key-env and never appears in any event.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from app import __version__

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


def _rate(rate: float) -> float | str:
    return "inf" if math.isinf(rate) else rate


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 4)


class EventWriter:
    """Writes events to a text stream; safe to call from several threads."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def emit(self, type_: str, **fields: Any) -> None:
        if type_ not in EVENT_TYPES:
            raise ValueError(f"unknown event type {type_!r}")
        line = json.dumps({"type": type_, **fields}, separators=(",", ":"), allow_nan=False)
        with self._lock:
            self._stream.write(line + "\n")
            self._stream.flush()

    # The sweep observer interface (app.bench.sweep.SweepObserver).
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

    def tokens(self, point: int, t_s: Sequence[float], itl_ms: Sequence[float]) -> None:
        self.emit(
            "tokens",
            point=point,
            t_s=[round(t, 6) for t in t_s],
            itl_ms=[round(v, 4) for v in itl_ms],
        )

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
        )

    def point_finished(self, point: int, path: Path | None, result: dict[str, Any]) -> None:
        summary = {k: v for k, v in result.items() if k not in _BULKY_KEYS}
        block = summary.get("tpotbench")
        if isinstance(block, dict):
            summary["tpotbench"] = {
                k: v for k, v in block.items() if k not in ("chunk_counts", "error_kinds")
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


def _finite(value: Any) -> Any:
    """JSON has no inf/NaN; the event stream writes them as null (the files keep "inf")."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


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
