"""The writer of the JSON-lines event stream (`tpotbench sweep|probe|search --events jsonl`).

What each line holds, and the one encode and decode of it, are in app.bench.sweep.contract.

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
import dataclasses
import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

from app.bench.sweep.contract import EVENT_CLASSES, Event, Tokens, encode
from app.bench.sweep.observer import SweepObserver

_STOP = object()  # the writer thread's last queue item
# Most token arrivals in one merged line: json.dumps holds the GIL for a whole line, so a huge
# line (after a long reader stall) would stall the measuring loop in turn; ~1 ms each at this size.
MERGE_LIMIT = 4096


def _coalesce(items: list[Event]) -> list[Event]:
    """Merge runs of adjacent plain `tokens` events of the same point (order kept, nothing
    lost; a batch with a probe's first token or text is never merged)."""
    out: list[Event] = []
    t_s: list[float] = []  # arrivals of the run being merged, when out[-1] is a merged copy
    itl_ms: list[float] = []
    merging = False
    for event in items:
        last = out[-1] if out else None
        if (
            isinstance(event, Tokens)
            and event.plain
            and isinstance(last, Tokens)
            and last.plain
            and last.point == event.point
            and len(last.t_s) + len(event.t_s) <= MERGE_LIMIT
        ):
            if not merging:
                t_s, itl_ms = list(last.t_s), list(last.itl_ms)
                out[-1] = dataclasses.replace(last, t_s=t_s, itl_ms=itl_ms)
                merging = True
            t_s.extend(event.t_s)
            itl_ms.extend(event.itl_ms)
            continue
        out.append(event)
        merging = False
    return out


class EventWriter(SweepObserver):
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

    def emit(self, event: Event) -> None:
        if not isinstance(event, EVENT_CLASSES):  # caught here, not on the writer's thread
            raise TypeError(f"not an event: {event!r:.80}")
        if self._queue is not None:
            with self._lock:  # never behind _STOP: after close() the write is direct
                if not self._closed:
                    self._queue.put(event)
                    return
            if self._thread is not None and self._thread is not threading.current_thread():
                self._thread.join()  # after whatever was queued before close()
        self._write(encode(event))

    def on_event(self, event: Event) -> None:
        """Every event of the observer interface goes on the stream."""
        self.emit(event)

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
                self._write("".join(map(encode, _coalesce(events))))
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
