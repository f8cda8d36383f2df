"""One finished point as the window's charts and tables read it (and the report's Pareto
chart): typed, frozen, built the same way from a sweep's `point_finished` event and from a
result file (app.bench.results.point_result.PointResult), so the Sweep and Results tabs show
a point alike.

The statistics (`{stat}_{metric}_ms`) are looked up by the key a column or a chart names;
the document's other top-level values stay as the file wrote them (`file_keys`: vLLM's
`--metadata` keys too), because the CSV and JSON exports carry every key as read.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from app.bench.metrics.conversations import conversation_figures
from app.bench.metrics.workload import cache_figures, reasoning_figures
from app.bench.results.completeness import Completeness
from app.bench.results.load_warnings import LoadWarning, on_the_curve
from app.bench.schema.point_blocks import PointBlocks, RooflineBlock

if TYPE_CHECKING:
    from app.bench.results.point_result import PointResult

# A JSON value that is not an object or a list: what a document's top level holds beside its
# arrays and blocks.
Scalar = str | int | float | bool | None

# The roofline columns of a table row and their RooflineBlock field.
ROOFLINE_COLUMNS: Mapping[str, str] = MappingProxyType(
    {"roofline_batch": "batch", "floor_tpot_ms": "floor_tpot_ms", "mbu": "mbu"}
)
CONVERSATION_COLUMNS = ("ttft_first_turn_ms", "ttft_later_turns_ms")
REASONING_COLUMNS = ("ttfo_ms", "tpot_answer_ms", "reasoning_tokens")
WORKLOAD_COLUMNS = (
    *REASONING_COLUMNS,
    "client_hit_rate",
    "server_hit_rate",
    "acceptance_rate",
    "acceptance_length",
    "trace_lateness_p99_ms",
)


@dataclass(frozen=True)
class PointRow:
    """A finished point: its load (rate a float, inf when unlimited; concurrency None when
    unlimited), counts, throughputs, statistics, verdicts, roofline and workload figures."""

    path: str  # its result file ("" for a point with no file)
    point: int | None  # its index in the sweep that ran it (a live point; None from a file)
    request_rate: float
    max_concurrency: int | None
    completed: int
    failed: int | None
    duration: float
    request_throughput: float | None
    output_throughput: float | None
    stats: Mapping[str, float | None]  # `median_tpot_ms` -> ms; None: no request gave one
    completeness: Completeness
    load_warnings: tuple[LoadWarning, ...]
    roofline: RooflineBlock | None  # the whole context (GPU, model, format) for the Pareto chart
    roofline_columns: Mapping[str, float | None]  # ROOFLINE_COLUMNS' figures
    workload: Mapping[str, float | None]  # CONVERSATION_COLUMNS and WORKLOAD_COLUMNS
    blocks: PointBlocks  # the typed `tpotbench` block (SLO verdicts, failures, stamping)
    file_keys: Mapping[str, Scalar]  # the document's top-level values as the file wrote them

    @property
    def on_the_curve(self) -> bool:
        """A full measurement of the load it names (app.bench.results.load_warnings)."""
        return on_the_curve(self.completeness, self.load_warnings)

    def value(self, key: str) -> Scalar:
        """A column's value by its key: the typed figures first (load, counts, roofline,
        workload, statistics), then the file's own value (None when neither has it)."""
        if key in _HEAD:
            head: Scalar = getattr(self, key)
            return head
        if key in self.roofline_columns:
            return self.roofline_columns[key]
        if key in self.workload:
            return self.workload[key]
        if key in self.stats:
            return self.stats[key]
        return self.file_keys.get(key)

    def figure(self, key: str) -> float:
        """A column's value as a number for a chart: NaN when it has none."""
        value = self.value(key)
        if value is None:
            return math.nan
        try:
            return float(value)
        except ValueError:  # a file's text where a number belongs
            return math.nan


_HEAD = frozenset(
    {
        "path",
        "request_rate",
        "max_concurrency",
        "completed",
        "failed",
        "duration",
        "request_throughput",
        "output_throughput",
    }
)


def workload_figures(blocks: PointBlocks) -> dict[str, float | None]:
    """The optional columns of a point: conversations' turn TTFTs, reasoning, prefix cache,
    speculative decoding and trace lateness (None where the point measured none). TTFO and
    answer TPOT are measured for every reply (equal to TTFT and TPOT when nothing reasons):
    they mean something only for a reasoning model, as in the report."""
    figures: dict[str, float | None] = {
        **conversation_figures(blocks),
        **reasoning_figures(blocks),
        **cache_figures(blocks),
        "trace_lateness_p99_ms": _trace_lateness(blocks),
    }
    if not figures["reasoning_tokens"]:
        figures.update(dict.fromkeys(REASONING_COLUMNS, None))
    return {key: figures[key] for key in (*CONVERSATION_COLUMNS, *WORKLOAD_COLUMNS)}


def _trace_lateness(blocks: PointBlocks) -> float | None:
    """P99 send lateness of a trace replay (ms); None for other runs, as in the report (every
    point records lateness, but only a trace's schedule is the workload's own)."""
    late = blocks.schedule_lateness_ms
    if blocks.trace is None or late is None or late.p99_ms is None:
        return None
    return float(late.p99_ms)


def _as_stored(warning: LoadWarning) -> LoadWarning:
    """A warning as its file holds it and reads it back (its figures floats, as a check run
    on a vLLM file gives whole numbers)."""
    return dataclasses.replace(warning, value=float(warning.value), limit=float(warning.limit))


def _column(value: float | None) -> float | None:
    """A float column (a file's whole number, e.g. a batch of 8, read as 8.0); None for a
    figure that is not finite."""
    return None if value is None or not math.isfinite(value) else float(value)


def point_row(result: PointResult, point: int | None = None) -> PointRow:
    """The row of a point read back (from its file, or from its event's document)."""
    blocks = result.blocks
    roofline = blocks.roofline
    stats: dict[str, float | None] = {}
    for key, value in result.doc.stats.items():
        # A null figure (no request succeeded) stays None; a number is read as a float.
        stats[key] = None if value is None else float(value)
    return PointRow(
        path=str(result.path) if result.path else "",
        point=point,
        request_rate=result.request_rate,
        max_concurrency=result.max_concurrency,
        completed=result.completed,
        failed=result.failed,
        duration=result.duration_s,
        request_throughput=result.request_throughput,
        output_throughput=result.output_throughput,
        stats=MappingProxyType(stats),
        completeness=result.completeness,
        load_warnings=tuple(_as_stored(w) for w in result.load_warnings),
        roofline=roofline,
        roofline_columns=MappingProxyType(
            {
                key: None if roofline is None else _column(getattr(roofline, name))
                for key, name in ROOFLINE_COLUMNS.items()
            }
        ),
        workload=MappingProxyType(workload_figures(blocks)),
        blocks=blocks,
        file_keys=MappingProxyType(dict(result.file_keys)),
    )
