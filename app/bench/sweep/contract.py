"""The typed events of a sweep, probe or search, and their one JSON-lines form.

`tpotbench sweep|probe|search --events jsonl` writes one JSON object per line on stdout (UTF-8,
flushed per line); key "type" says which event. The window reads the same lines back with
`decode`. Both ends use the classes below, so a field added on one side is there on the other.
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
    search_value    {value, highest_pass, lowest_fail}   a capacity search's load value done
    search_finished {path, search}            search = search.json without its points

Inside the engine the objects carry full precision (and a finished point's whole result, a
search's whole document); `encode` rounds and trims exactly as the stream has always been
written, so `encode(decode(line)) == line` for every line `encode` writes. `decode` (in
app.bench.sweep.event_decode) is strict: an unknown type, a missing or unknown field or a value of
the wrong kind is an EventError naming it, never anything else.

Each field is declared once, on its class below: its key, its place in the line (the field
order), its rounding and whether it may be left out come from the declaration through the
schema codec (app.bench.schema.codec), and so do the decode, the observer's method (named after
`kind`) and the window's signal (app.ui.run_process). The union `Event` is the one list of
event classes.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from app import __version__
from app.bench.results.per_request import PER_REQUEST_BLOCK_KEYS, VLLM_PER_REQUEST_KEYS
from app.bench.schema.codec import SchemaError, from_json_obj, to_json_obj, wire
from app.bench.schema.point_doc import PointDoc, point_json, read_point_doc
from app.bench.schema.probe_summary import ProbeSummary
from app.bench.schema.search_doc import SearchDoc, SearchPoint
from app.bench.sweep.plan import PointSpec
from app.jsonfile import finite as _finite  # JSON has no inf/NaN: null in events

SCHEMA = 1


class EventError(SchemaError):
    """A line that is not a valid event; the message says what is wrong with it."""


def _without(doc: Mapping[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in keys}


_SUMMARY_DROPS = frozenset(VLLM_PER_REQUEST_KEYS)
_BLOCK_DROPS = frozenset(PER_REQUEST_BLOCK_KEYS)
_POINTS = frozenset({"points"})


def summary_of(result: PointDoc) -> PointDoc:
    """A point's result without the per-request arrays that would make a line megabytes long
    (vLLM's and the tpotbench block's: the file has them)."""
    return result.without(_SUMMARY_DROPS, _BLOCK_DROPS)


def _summary_on_the_wire(summary: PointDoc | ProbeSummary) -> Any:
    if isinstance(summary, ProbeSummary):
        return _finite(to_json_obj(summary))
    return _finite(point_json(summary_of(summary)))


def _summary_from_the_wire(obj: Any) -> PointDoc | ProbeSummary:
    """The stream's summary, strictly: a point's document, or the probe's summary (the probe
    writes no file; its summary says `ok` and has no `completed`)."""
    if isinstance(obj, dict) and "ok" in obj and "completed" not in obj:
        return from_json_obj(ProbeSummary, obj)
    return read_point_doc(obj, strict=True)


def _search_on_the_wire(search: SearchDoc) -> Any:
    return _finite(_without(to_json_obj(search), _POINTS))


def _point_on_the_wire(value: SearchPoint) -> Any:
    return _finite(to_json_obj(value))


# Roundings of the stream (the writer's thread does them, not the measuring loop).
_S = wire(digits=6)  # a time in seconds: microseconds
_MS = wire(digits=4)  # a time in milliseconds: 0.1 microsecond


@dataclass(frozen=True, slots=True)
class EndpointInfo:
    url: str
    model: str
    api: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RunStarted:
    kind: ClassVar[str] = "run_started"
    schema: int = SCHEMA
    app_version: str = __version__
    points: tuple[PointSpec, ...]
    num_prompts: int
    endpoint: EndpointInfo


@dataclass(frozen=True, slots=True)
class PointStarted:
    kind: ClassVar[str] = "point_started"
    point: int
    request_rate: float = field(metadata=wire(inf_as_text=True))
    max_concurrency: int | None

    @classmethod
    def of(cls, spec: PointSpec) -> PointStarted:
        return cls(
            point=spec.index,
            request_rate=spec.request_rate,
            max_concurrency=spec.max_concurrency,
        )


@dataclass(frozen=True, slots=True)
class Tokens:
    """Token chunk arrivals (s since the point's start) and the gap before each (ms)."""

    kind: ClassVar[str] = "tokens"
    point: int
    t_s: Sequence[float] = field(metadata=_S)
    itl_ms: Sequence[float] = field(metadata=_MS)
    # probe only: the first chunk's time (its TTFT)
    first_token_s: float | None = field(default=None, metadata=wire(digits=6, omit="none"))
    # probe only: the reply's text since the last batch
    text: str | None = field(default=None, metadata=wire(omit="empty"))

    @property
    def plain(self) -> bool:
        """Only arrivals: adjacent plain batches of a point may be merged into one."""
        return self.first_token_s is None and not self.text


@dataclass(frozen=True, slots=True)
class Progress:
    kind: ClassVar[str] = "progress"
    point: int
    completed: int
    failed: int
    total: int
    in_flight: int
    elapsed_s: float = field(metadata=wire(digits=3))
    output_tok_s: float = field(metadata=wire(digits=2))


@dataclass(frozen=True, slots=True)
class RequestDone:
    """One finished request, vLLM's definitions; None where a figure is not defined."""

    kind: ClassVar[str] = "request"
    point: int
    ok: bool
    ttft_ms: float | None = field(metadata=_MS)
    tpot_ms: float | None = field(metadata=_MS)
    e2el_ms: float | None = field(metadata=_MS)
    output_tokens: int
    error_kind: str | None
    prompt_tokens: int | None


@dataclass(frozen=True, slots=True)
class PointFinished:
    """`summary` is the point's result document (the probe's: its one request's summary); the
    stream carries it without the per-request arrays (what `decode` gives back), read strictly
    (`point_finished.summary.tpotbench.roofline.batch: ...`)."""

    kind: ClassVar[str] = "point_finished"
    point: int
    path: str | None
    summary: PointDoc | ProbeSummary = field(
        metadata=wire(transform=_summary_on_the_wire, read=_summary_from_the_wire)
    )


@dataclass(frozen=True, slots=True)
class ServerMetrics:
    """One /metrics sample; t_s on the point's clock, the rest None where the server lacks it."""

    kind: ClassVar[str] = "server_metrics"
    t_s: float
    kv_cache_usage: float | None
    running: float | None
    waiting: float | None
    preemptions: float | None


@dataclass(frozen=True, slots=True)
class RunFinished:
    kind: ClassVar[str] = "run_finished"
    cancelled: bool
    paths: tuple[str, ...]
    csv: str | None


@dataclass(frozen=True, slots=True)
class RunError:
    """A run-stopping problem (or a lost point's file), one sentence."""

    kind: ClassVar[str] = "error"
    message: str


@dataclass(frozen=True, slots=True)
class SearchValue:
    """A capacity search's load value done (`value` is its entry of search.json)."""

    kind: ClassVar[str] = "search_value"
    value: SearchPoint = field(metadata=wire(transform=_point_on_the_wire))
    highest_pass: float | None
    lowest_fail: float | None


@dataclass(frozen=True, slots=True)
class SearchFinished:
    """`search` is the search document; the stream carries it without its points (read back
    with none)."""

    kind: ClassVar[str] = "search_finished"
    path: str
    search: SearchDoc = field(metadata=wire(transform=_search_on_the_wire))


# The one list of event kinds: the classes, the names and the decode table come from it.
Event = (
    RunStarted
    | PointStarted
    | Tokens
    | Progress
    | RequestDone
    | PointFinished
    | ServerMetrics
    | RunFinished
    | RunError
    | SearchValue
    | SearchFinished
)
EVENT_CLASSES: tuple[type[Event], ...] = typing.get_args(Event)
EVENT_TYPES = tuple(cls.kind for cls in EVENT_CLASSES)


def encode(event: Event) -> str:
    """The event's line of the stream, newline included."""
    try:
        obj = {"type": event.kind, **to_json_obj(event)}
    except SchemaError as exc:  # a value its field cannot hold: say so, keep the writer alive
        obj = {"type": RunError.kind, "message": f"a {event.kind} event was lost: {exc}"[:300]}
    try:
        return json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n"
    except (ValueError, TypeError):  # a stray NaN or odd type must not kill the writer thread
        return json.dumps(_finite(obj), separators=(",", ":"), default=str) + "\n"
