"""The `tpotbench` block of a point file as typed, frozen blocks, read and written through the
one codec (app.bench.schema.codec).

A field's name is its JSON key and the fields' order is the keys' order in the file (part of
the format: keep new fields at the end of their block). Every block is read with
`from_json_obj`. The roofline, client, prefix-cache, workers, early-stop, stamping, failure,
schedule-lateness, trace, load-warning, tokens-per-chunk, reasoning-tokens, client
prefix-cache, conversations, client-ceiling, server-metrics, SLO and why blocks are all
written from their dataclass with `to_json_obj`, so a field added to one of them reaches the
file and the event stream by itself.

Strictness, decided here once:

- **The event stream is strict.** Its lines are written and read by the same build within one
  run, so a line that does not decode is a bug, never data: `point_blocks(block, strict=True)`
  raises `SchemaError` naming the first bad path (`tpotbench.roofline.batch: ...`). Only the
  typed sub-blocks are judged; the block's per-request arrays
  (app.bench.schema.request_arrays) are the document's own.
- **Files are tolerant.** A point file may come from an older TPOT Bench, from a newer one, or
  be edited by hand, and one odd part must not hide the rest of a measurement. So a file is
  read sub-block by sub-block: keys this version does not know are ignored (they stay in
  the file), a missing key takes its default, and a sub-block that
  does not decode (a string where an object belongs, a count that is text) becomes None (an
  empty tuple for a list), exactly where today's `(x or {}).get(...)` chains found nothing.
  The checks that refuse a whole file (app.bench.results.read) are unchanged.

vLLM's own keys (the top level of the document) are not here: they are
app.bench.schema.point_doc.VllmKeys.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.bench.schema.codec import SchemaError, field_options, from_json_obj, wire

# Open key sets by design: a why's template parameters and evidence (which keys depends on the
# cause), a block of figures whose keys are the run's chosen percentiles. Named so that a reader
# sees which fields are open; their values are still typed (a figure, or a name like the server's).
Params = dict[str, float | str | None]
Figures = dict[str, float | None]
# A load warning's sentence parameters: numbers only (counts, ms, shares), which keys per
# template (app.bench.results.load_warnings.TEMPLATES).
WarningParams = Mapping[str, float]


@dataclass(frozen=True)
class Spread:
    """A gauge over the point: its mean and its highest sample."""

    mean: float | None = None
    max: float | None = None


@dataclass(frozen=True)
class HistogramFigures:
    """A server histogram's delta over the point, in ms (count, mean, p50, p90, p99)."""

    count: int | None = None
    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None


@dataclass(frozen=True)
class KvConcurrency:
    """How many sequences of the point's longest request the server's KV cache holds."""

    context_len: int | None = None
    sequences: int | None = None
    ratio: float | None = field(default=None, metadata=wire(digits=2))


@dataclass(frozen=True)
class ServerPrefixCache:
    """The server's prefix-cache counters over the point (vLLM's hit-rate definition)."""

    queries: float | None = None
    hits: float | None = None
    hit_rate: float | None = None


@dataclass(frozen=True)
class SpecDecode:
    """Speculative decoding over the point: drafts, proposed and accepted draft tokens."""

    drafts: float | None = None
    draft_tokens: float | None = None
    accepted_tokens: float | None = None
    acceptance_rate: float | None = field(default=None, metadata=wire(digits=4))
    mean_acceptance_length: float | None = field(default=None, metadata=wire(digits=3))


@dataclass(frozen=True)
class ClientServerGap:
    """A latency's client mean beside the server's, and the gap between them (ms)."""

    client_mean: float | None = field(default=None, metadata=wire(digits=3))
    server_mean: float | None = None
    gap: float | None = field(default=None, metadata=wire(digits=3))


_OPTIONAL = wire(omit="none")  # written only when there is a value
_WITH_SAMPLES = wire(present_with="samples")  # written (null or not) once anything was scraped
_WITH_CAPACITY = wire(present_with="kv_capacity_tokens")  # written with the KV pool's size
_SECONDS = wire(digits=3, omit="none")


@dataclass(frozen=True)
class ServerMetricsBlock:
    """tpotbench.server_metrics: the server's /metrics over the point (schema 1); `error` alone
    (with the URL) when no scrape succeeded or the summary failed.

    Built by app.bench.serverstats (summary.summarize, scrape.result_block) and written with
    `to_json_obj`: a key the server's page gave no figure for is left out, except the gauges'
    spreads (null when the server has no such gauge) and the KV pool's block figures (null for
    a server that states its pool in tokens)."""

    schema: int | None = field(default=None, metadata=_OPTIONAL)
    metrics_url: str | None = field(default=None, metadata=_OPTIONAL)
    error: str | None = field(default=None, metadata=_OPTIONAL)
    samples: int | None = field(default=None, metadata=_OPTIONAL)
    kv_cache_usage: Spread | None = field(default=None, metadata=_WITH_SAMPLES)
    running: Spread | None = field(default=None, metadata=_WITH_SAMPLES)
    waiting: Spread | None = field(default=None, metadata=_WITH_SAMPLES)
    server: str | None = field(default=None, metadata=_OPTIONAL)
    window_s: float | None = field(default=None, metadata=_SECONDS)
    bracket_s: tuple[float, ...] | None = field(default=None, metadata=_SECONDS)
    preemptions: float | None = field(default=None, metadata=_OPTIONAL)
    kv_capacity_tokens: int | None = field(default=None, metadata=_OPTIONAL)
    num_gpu_blocks: int | None = field(default=None, metadata=_WITH_CAPACITY)
    block_size: int | None = field(default=None, metadata=_WITH_CAPACITY)
    max_concurrency: KvConcurrency | None = field(default=None, metadata=_OPTIONAL)
    server_ttft_ms: HistogramFigures | None = field(default=None, metadata=_OPTIONAL)
    server_itl_ms: HistogramFigures | None = field(default=None, metadata=_OPTIONAL)
    server_e2el_ms: HistogramFigures | None = field(default=None, metadata=_OPTIONAL)
    server_queue_ms: HistogramFigures | None = field(default=None, metadata=_OPTIONAL)
    server_prefill_ms: HistogramFigures | None = field(default=None, metadata=_OPTIONAL)
    server_decode_ms: HistogramFigures | None = field(default=None, metadata=_OPTIONAL)
    server_inference_ms: HistogramFigures | None = field(default=None, metadata=_OPTIONAL)
    prefix_cache: ServerPrefixCache | None = field(default=None, metadata=_OPTIONAL)
    spec_decode: SpecDecode | None = field(default=None, metadata=_OPTIONAL)
    server_prefill_ms_per_token: float | None = field(
        default=None, metadata=wire(digits=4, omit="none")
    )
    warnings: tuple[str, ...] = field(default=(), metadata=wire(omit="empty"))
    # Columns of gauge samples (app.bench.serverstats.snapshot.SERIES_KEYS: t_s,
    # kv_cache_usage, running, ...; null where a scrape had no such gauge), hundreds of
    # numbers a point, read by the report's charts.
    series: dict[str, list[float | None]] | None = field(default=None, metadata=_OPTIONAL)
    vs_client: dict[str, ClientServerGap] | None = field(default=None, metadata=_OPTIONAL)

    @property
    def usable(self) -> bool:
        """Scraped, and summed up without an error."""
        return self.error is None

    def phase(self, name: str) -> HistogramFigures | None:
        """A server phase's histogram ('ttft', 'itl', 'e2el', 'queue', 'prefill', 'decode',
        'inference'), None when the server does not export it."""
        found = getattr(self, f"server_{name}_ms", None)
        return found if isinstance(found, HistogramFigures) else None


@dataclass(frozen=True)
class RooflineBlock:
    """tpotbench.roofline: the run's roofline context and, when the point's batch was known,
    the decode floor at that batch and the MBU of the point's TPOT p50. A run whose batch was
    not found records the context alone (the floor fields stay None)."""

    gpu_id: str | None = None
    model_id: str | None = None
    fmt: str | None = None
    kv_dtype: str | None = None
    context: int | None = None
    tensor_parallel: int | None = None
    batch: float | None = None
    batch_source: str | None = None  # 'server_running' | 'concurrency' | 'mean_in_flight'
    tpot_p50_ms: float | None = None
    floor_tpot_ms: float | None = None
    bytes_per_step: float | None = None
    mbu: float | None = None

    @property
    def ids(self) -> tuple[str, str, str, str, int] | None:
        """(gpu, model, weight format, KV dtype, context) as the catalogue names them; None
        when the block does not name all four (context 512 when it records none)."""
        if not (self.gpu_id and self.model_id and self.fmt and self.kv_dtype):
            return None
        return (self.gpu_id, self.model_id, self.fmt, self.kv_dtype, self.context or 512)

    @property
    def gpus(self) -> int:
        """The tensor-parallel size (1 when the block records none)."""
        return max(1, self.tensor_parallel or 1)


@dataclass(frozen=True)
class SloLimit:
    """One statistic limit: `stat` of `metric` at most `limit_ms`; stat is 'mean', 'median'
    or 'pNN' (app.bench.capacity.slo.parse_slo)."""

    metric: str
    stat: str
    limit_ms: float

    @property
    def label(self) -> str:
        return f"{self.metric}:{self.stat}:{self.limit_ms:g}"

    @property
    def quantile(self) -> float | None:
        """The percentile (0..100) the statistic is, None for the mean."""
        if self.stat == "mean":
            return None
        if self.stat == "median":
            return 50.0
        return float(self.stat[1:])


@dataclass(frozen=True)
class StatCheck:
    """A check of one statistic (e.g. 'tpot:p99:50'): its value (None when no request gave
    one) against its limit, in ms."""

    slo: str
    kind: Literal["stat"]
    value_ms: float | None = None
    limit_ms: float | None = None
    passed: bool = False

    @property
    def measured(self) -> float | None:
        return self.value_ms

    @property
    def bound(self) -> float | None:
        return self.limit_ms


@dataclass(frozen=True)
class ShareCheck:
    """A check of a share of the requests: good ones (at least `limit`) or failed ones (at
    most `limit`)."""

    slo: str
    kind: Literal["good_share", "failed_share"]
    value: float | None = None
    limit: float | None = None
    passed: bool = False

    @property
    def measured(self) -> float | None:
        return self.value

    @property
    def bound(self) -> float | None:
        return self.limit


SloCheck = StatCheck | ShareCheck


@dataclass(frozen=True)
class SloTargets:
    """What a run is held to (app.bench.capacity.slo.SLOSet.targets): statistic limits,
    per-request limits, and the share of requests that must meet those (None without them).
    A search's `slos`; the head of every point's SLO block."""

    limits: tuple[SloLimit, ...] = ()
    per_request_ms: dict[str, float] | None = None
    good_share: float | None = None


@dataclass(frozen=True)
class SloBlock(SloTargets):
    """tpotbench.slo: what the point was held to, its verdict per check, and goodput
    (app.bench.capacity.slo.slo_block)."""

    passed: bool | None = None
    checks: tuple[SloCheck, ...] = ()
    failed: tuple[str, ...] = ()
    goodput_limits_ms: dict[str, float] | None = None
    request_goodput: float | None = None
    good_requests: int | None = None


@dataclass(frozen=True)
class FailureGroup:
    """One kind of failed request: how many, its title, the fix, an example (≤ 500 chars)."""

    kind: str
    count: int
    title: str = ""
    fix: str = ""
    example: str = ""


@dataclass(frozen=True)
class StampingEntry:
    """How many requests had their chunk times stamped one way, and why that way."""

    kind: str  # 'kernel' | 'loop' | 'tls-record'
    requests: int
    why: str = ""


@dataclass(frozen=True)
class LoopLag:
    """How late the client's event loop woke for its ticks over the point (ms)."""

    median: float | None = None
    p99: float | None = None
    max: float | None = None


@dataclass(frozen=True)
class ClientBlock:
    """tpotbench.client: the client's own health over the point."""

    cpu_share: float | None = None  # this process's CPU, in cores
    loop_lag_ms: LoopLag | None = None


@dataclass(frozen=True)
class WorkersBlock:
    """tpotbench.workers: what the load workers (processes or Ray actors) were given and
    cost, one list entry per worker."""

    where: str | None = None  # 'processes' | 'ray HOST:PORT'
    requested: int | None = None
    used: int | None = None
    max_concurrency: tuple[int | None, ...] = ()
    requests: tuple[int, ...] = ()
    cpu_s: tuple[float, ...] = ()
    peak_rss_mib: tuple[float, ...] = ()
    lost: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class ServerDrain:
    """After an early stop: whether the server's running gauge reached 0, or the wait ran out
    with requests still running there."""

    idle: bool | None = None
    waited_s: float | None = None
    running: float | None = None
    warning: str | None = None


@dataclass(frozen=True)
class EarlyStopBlock:
    """tpotbench.early_stop: why the point was stopped once it had provably failed an SLO."""

    reason: str | None = None
    server_drain: ServerDrain | None = None


@dataclass(frozen=True)
class LoadWarningBlock:
    """One entry of tpotbench.load_warnings (app.bench.results.load_warnings.LoadWarning)."""

    kind: str
    template: str
    value: float
    limit: float
    unit: str
    params: WarningParams = dataclasses.field(default_factory=dict)
    text: str = ""


@dataclass(frozen=True)
class WhyItem:
    """A cause the evidence rules out, or a piece of evidence the why lacks."""

    key: str
    params: Params = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class WhyEstimate:
    """The roofline's what-if beside a bandwidth-bound why: the decode floor at the point's
    batch with other weights (`fmt`, as the sentence names them), and the gain."""

    fmt: str
    batch: float  # a whole number, written as the int it is
    floor: float
    new_floor: float
    gain: float


@dataclass(frozen=True)
class WhyBlock:
    """tpotbench.why (and a search's boundary/knee why): the cause named with its figures,
    confidence and runner-up; 'unknown' (evidence read, nothing fits); or 'abstain' with what is
    missing (app.bench.capacity.why builds it and renders its sentence; `missing` on a named
    cause is what would make it surer). The cause, the runner-up and the confidence are open
    strings, not Literals: a file from a newer version naming a cause this one does not know
    still reads, and shows its stored `text`. `params` fill the sentence's template; `evidence`
    is the flat list of figures the rules read."""

    cause: str
    confidence: str = "none"
    runner_up: str | None = None
    params: Params = dataclasses.field(default_factory=dict)
    evidence: Params = dataclasses.field(default_factory=dict)
    estimate: WhyEstimate | None = None
    missing: tuple[WhyItem, ...] = ()
    ruled_out: tuple[WhyItem, ...] = ()
    text: str | None = None
    text_zh: str | None = None


@dataclass(frozen=True)
class EndpointBlock:
    url: str | None = None
    api: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class PointPlace:
    """tpotbench.point: where the point sits in its sweep."""

    index: int | None = None
    request_rate: float | str | None = None  # a number, or "inf" (as vLLM's key)
    max_concurrency: int | None = None


@dataclass(frozen=True)
class ItlHistogram:
    """tpotbench.itl_histogram: every gap of every request in fixed log bins (the edges in ms,
    6 decimals in the file; app.bench.results.request_block makes them) and how many gaps fell
    in each."""

    edges_ms: tuple[float, ...] = field(metadata=wire(digits=6))
    counts: list[int]


@dataclass(frozen=True)
class DatasetBlock:
    name: str | None = None
    path: str | None = None
    seed: int | None = None


@dataclass(frozen=True)
class PrefixCacheBlock:
    """tpotbench.prefix_cache: how the server's prefix cache was reset before the point, the
    hit rate over it, and a warning when the hits exceed what the workload explains."""

    reset: str | None = None
    hit_rate: float | None = None
    warning: str | None = None


@dataclass(frozen=True)
class TokensPerChunk:
    mean: float | None = None
    max: int | None = None
    multi_token_share: float | None = None


@dataclass(frozen=True)
class ReasoningTokens:
    """tpotbench.reasoning_tokens: reasoning tokens over the point, per request, and how
    they were known (requests per source: 'usage', or counted from deltas)."""

    total: int | None = None
    mean: float | None = None
    source: dict[str, int] | None = None


@dataclass(frozen=True)
class ClientPrefixCache:
    """tpotbench.prefix_cache_client: cached prompt tokens as the replies' usage reports."""

    cached_tokens: int | None = None
    prompt_tokens: int | None = None
    hit_rate: float | None = None


@dataclass(frozen=True)
class Lateness:
    """How late sends were against their schedule (ms)."""

    mean_ms: float | None = None
    median_ms: float | None = None
    p90_ms: float | None = None
    p99_ms: float | None = None
    max_ms: float | None = None


@dataclass(frozen=True)
class ScheduleLateness:
    """tpotbench.schedule_lateness_ms: send lateness over the point (bytes out less due
    time), how many sends were over `late_over_ms`, and the same for the hand-over to the
    HTTP client (`submit`); app.bench.metrics.lateness."""

    count: int | None = None
    mean_ms: float | None = None
    median_ms: float | None = None
    p90_ms: float | None = None
    p99_ms: float | None = None
    max_ms: float | None = None
    late_over_ms: float | None = None
    late: int | None = None
    submit: Lateness | None = None


@dataclass(frozen=True)
class TraceBlock:
    """tpotbench.trace of a replayed trace: which, how fast, and the prefix-cache hit rate its
    hash ids predict (app.bench.datasets.mooncake.trace_summary)."""

    format: str | None = None
    path: str | None = None
    requests: int | None = None
    span_s: float | None = None
    speedup: float | None = None
    replay_span_s: float | None = None
    block_size: int | None = None
    predicted_hit_rate: float | None = None


@dataclass(frozen=True)
class ThinkTime:
    """The pause between a session's turns (s): its mean and standard deviation."""

    mean: float | None = None
    stddev: float | None = None


@dataclass(frozen=True)
class ConversationsBlock:
    """tpotbench.conversations of a multi-turn point: sessions and turns, TTFT of first turns
    against later ones, the prompt share served from the cache in each group, and the share
    of prompt tokens that was resent history (app.bench.metrics.conversations)."""

    sessions: int | None = None
    turns_planned: int | None = None
    turns_completed: int | None = None
    sessions_with_failure: int | None = None
    mean_turns_completed: float | None = None
    think_time_s: ThinkTime | None = None
    request_rate_means: str | None = None
    first_turns: int | None = None
    later_turns: int | None = None
    ttft_first_turn_ms: Figures | None = None
    ttft_later_turns_ms: Figures | None = None
    prefix_cache_hit_rate_first_turn: float | None = None
    prefix_cache_hit_rate_later_turns: float | None = None
    history_share: float | None = None


@dataclass(frozen=True)
class ClientCeilingBlock:
    """tpotbench.client_ceiling: the point's streams against this machine's client ceiling
    as `tpotbench selftest` measured it (app.bench.selftest.store)."""

    streams: int | None = None
    ceiling: int | None = None
    ceiling_at_least: bool = False
    ratio: float | None = None
    workers: int | None = None
    measured: str | None = None


@dataclass(frozen=True)
class PointBlocks:
    """The typed view of a point's `tpotbench` block (see the module docstring for how it is
    read). Only the parts the product reads are here; the per-request arrays stay in the
    document."""

    schema_version: int | None = None
    app_version: str | None = None
    run_id: str | None = None
    started_at: str | None = None
    profile: str | None = None
    endpoint: EndpointBlock | None = None
    point: PointPlace | None = field(default=None, metadata=_OPTIONAL)
    dataset: DatasetBlock | None = None
    num_warmups: int | None = None
    percentiles: tuple[float, ...] = ()
    goodput_slos_ms: dict[str, float] | None = None
    duration_definition: str | None = field(default=None, metadata=_OPTIONAL)
    cancelled: bool = False
    aborted: int | None = None
    not_sent: int | None = None
    slot_wait_ms: Figures | None = None
    ttft_first_content_ms: Figures | None = None
    tokens_per_chunk: TokensPerChunk | None = None
    ttfo_ms: Figures | None = None
    tpot_answer_ms: Figures | None = None
    reasoning_tokens: ReasoningTokens | None = None
    prefix_cache_client: ClientPrefixCache | None = None
    peak_output_tokens_per_s_weighted: float | None = field(default=None, metadata=_OPTIONAL)
    output_tokens_source: dict[str, int] | None = None  # how output tokens were counted
    retried_requests: int | None = None
    stamping: tuple[StampingEntry, ...] = ()
    failures: tuple[FailureGroup, ...] = ()
    roofline: RooflineBlock | None = None
    server_metrics: ServerMetricsBlock | None = None
    # (the per-request arrays, `requests` first, go here: app.bench.schema.point_doc)
    itl_histogram: ItlHistogram | None = field(default=None, metadata=_OPTIONAL)
    workers: WorkersBlock | None = field(default=None, metadata=_OPTIONAL)
    client: ClientBlock | None = None
    client_ceiling: ClientCeilingBlock | None = field(default=None, metadata=_OPTIONAL)
    conversations: ConversationsBlock | None = field(default=None, metadata=_OPTIONAL)
    prefix_cache: PrefixCacheBlock | None = None
    schedule_lateness_ms: ScheduleLateness | None = None
    trace: TraceBlock | None = field(default=None, metadata=_OPTIONAL)
    early_stop: EarlyStopBlock | None = field(default=None, metadata=_OPTIONAL)
    slo: SloBlock | None = field(default=None, metadata=_OPTIONAL)
    why: WhyBlock | None = field(default=None, metadata=_OPTIONAL)
    load_warnings: tuple[LoadWarningBlock, ...] | None = None


EMPTY = PointBlocks()
NO_ROOFLINE = RooflineBlock()
_NAMES = tuple(f.name for f in dataclasses.fields(PointBlocks))


@functools.cache
def _hints(cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def known_keys(cls: type[Any], value: Any) -> Any:
    """`value` with the keys `cls` does not know dropped, at every level of dataclasses (a
    newer writer's extra key is not an error in a file)."""
    if not isinstance(value, Mapping) or not dataclasses.is_dataclass(cls):
        return value
    hints = _hints(cls)
    return {
        key: _known_in(hints[f.name], value[key])
        for f in dataclasses.fields(cls)
        if (key := field_options(f).name or f.name) in value
    }


def _known_in(tp: Any, value: Any) -> Any:
    """`known_keys` through Optional, tuples, lists and dicts of dataclasses."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return known_keys(tp, value)
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if origin in (tuple, list) and isinstance(value, list) and args:
        return [_known_in(args[0], v) for v in value]
    if origin is dict and isinstance(value, Mapping) and len(args) == 2:
        return {k: _known_in(args[1], v) for k, v in value.items()}
    members = [a for a in args if a is not type(None)]
    if origin not in (tuple, list, dict) and len(members) == 1:  # X | None
        return _known_in(members[0], value)
    return value


def point_blocks(block: Any, *, strict: bool = False, where: str = "tpotbench") -> PointBlocks:
    """The typed view of a `tpotbench` block (EMPTY for a document without one). Tolerant by
    default (a file), strict for the event stream: see the module docstring. Either way the
    block's per-request arrays are not read here (app.bench.results.request_block does)."""
    if not isinstance(block, Mapping):
        if strict and block is not None:
            raise SchemaError(f"{where}: must be an object, got {type(block).__name__}")
        return EMPTY
    typed = {k: block[k] for k in _NAMES if block.get(k) is not None}
    try:  # one pass through the codec's compiled plan: the common case, a block as written
        return from_json_obj(PointBlocks, typed, where=where)
    except SchemaError:
        if strict:
            raise
    # A file with an odd part: read it sub-block by sub-block, dropping keys this version does
    # not know; an unreadable sub-block is absent, as in a file written without it.
    hints = _hints(PointBlocks)
    values: dict[str, Any] = {}
    for name, value in typed.items():
        with contextlib.suppress(SchemaError):
            values[name] = from_json_obj(hints[name], _known_in(hints[name], value))
    return PointBlocks(**values)


# The last block read and its view: tables ask for several figures of one point in a row.
_last: tuple[Mapping[str, Any], tuple[int, ...], PointBlocks] | None = None


def blocks_of(document: Mapping[str, Any]) -> PointBlocks:
    """The typed blocks of a point document (a file's, or a point_finished event's summary,
    which carries the same document), read tolerantly. Asked again for the same block with
    the same sub-blocks (the same objects), the view read last is reused: a finished point's
    block is not edited in place."""
    global _last
    block = document.get("tpotbench")
    if not isinstance(block, Mapping):
        return EMPTY
    parts = tuple(id(block.get(name)) for name in _NAMES)
    last = _last
    if last is not None and last[0] is block and last[1] == parts:
        return last[2]
    blocks = point_blocks(block)
    _last = (block, parts, blocks)
    return blocks
