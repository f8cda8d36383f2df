"""One benchmark point read back, whichever tool wrote it, and its one-row summary."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from app.bench.metrics.conversations import conversation_figures
from app.bench.metrics.workload import cache_figures, reasoning_figures
from app.bench.results.completeness import Completeness, completeness_from
from app.bench.results.load_warnings import LoadWarning, on_the_curve, warnings_of
from app.bench.results.naming import rate_to_file
from app.bench.results.point_row import PointRow, Scalar, point_row
from app.bench.schema.point_blocks import ItlHistogram, PointBlocks
from app.bench.schema.point_doc import PointDoc


@dataclass
class PointResult:
    """One benchmark point, whichever tool wrote it. Times in ms, throughputs per second."""

    path: Path | None
    source: str  # 'tpotbench' | 'vllm' | 'benchmark_serving'
    label: str | None
    model_id: str | None
    backend: str | None
    date: str | None
    request_rate: float
    max_concurrency: int | None
    burstiness: float | None
    num_prompts: int | None
    completed: int
    failed: int | None
    duration_s: float
    total_input_tokens: int | None
    total_output_tokens: int | None
    request_throughput: float | None
    request_goodput: float | None
    output_throughput: float | None
    total_token_throughput: float | None
    max_output_tokens_per_s: float | None
    max_concurrent_requests: int | None
    stats: dict[str, dict[str, float]] = field(default_factory=dict)
    doc: PointDoc = field(default_factory=PointDoc)  # the document typed (per-request arrays too)
    # The document's top-level values that are not arrays or objects, as the file wrote them
    # (vLLM's --metadata keys too): what the window's exports carry for every key read.
    file_keys: Mapping[str, Scalar] = field(default_factory=dict)
    # A large file read lean (app.bench.results.lean_read): its `itls` gaps, binned.
    itl_set_aside: ItlHistogram | None = None

    @property
    def blocks(self) -> PointBlocks:
        """The `tpotbench` block typed (app.bench.schema.point_blocks), read tolerantly: a
        part this version cannot read is None, as in a file without it; EMPTY for a file
        without the block (vLLM's)."""
        return self.doc.typed_blocks

    @cached_property
    def row(self) -> PointRow:
        """The point as the window's charts and tables read it, built once per point object
        (the Results tab draws the shown run again at every point that joins it)."""
        return point_row(self)

    @property
    def completeness(self) -> Completeness:
        """Whether the point ran all its requests (early-stopped, cancelled, partial)."""
        path = self.path.name if self.path else ""
        return completeness_from(self.num_prompts, self.completed, self.failed, path, self.blocks)

    @property
    def partial(self) -> bool:
        """A fragment: cut short (early-stopped, cancelled) or fewer requests ran than planned."""
        return not self.completeness.complete

    @property
    def on_the_curve(self) -> bool:
        """A full measurement of the load it names: complete, and not run at another load
        (app.bench.results.load_warnings.OFF_CURVE_KINDS). Knees and curves use only these."""
        return on_the_curve(self.completeness, self.load_warnings)

    @cached_property
    def load_warnings(self) -> list[LoadWarning]:
        """Where the load did not happen as planned (app.bench.results.load_warnings): the
        warnings the file stores, else (a file written before the checks, or by vLLM) the
        checks run on it now."""
        return warnings_of(self.doc)

    def metric(self, name: str, stat: str) -> float | None:
        """E.g. metric('tpot', 'p99') -> the P99 TPOT in ms, or None if the file has none."""
        return self.stats.get(name, {}).get(stat)

    def summary_row(self) -> dict[str, Scalar]:
        """One flat row for `tpotbench report`, sweep.csv and the GUI's results table."""
        blocks = self.blocks
        wait = blocks.slot_wait_ms or {}
        roofline = blocks.roofline
        row: dict[str, Scalar] = {
            "file": self.path.name if self.path else "",
            "source": self.source,
            "label": self.label,
            "model": self.model_id,
            "request_rate": rate_to_file(self.request_rate),
            "max_concurrency": self.max_concurrency,
            "completed": self.completed,
            "failed": self.failed,
            "duration_s": self.duration_s,
            "request_throughput": self.request_throughput,
            "output_throughput": self.output_throughput,
            "total_token_throughput": self.total_token_throughput,
            "request_goodput": self.request_goodput,
        }
        for name in ("ttft", "tpot", "itl", "e2el"):
            for stat in ("mean", "median", "p99"):
                row[f"{stat}_{name}_ms"] = self.metric(name, stat)
        row["max_output_tokens_per_s"] = self.max_output_tokens_per_s
        row["max_concurrent_requests"] = self.max_concurrent_requests
        row["mean_slot_wait_ms"] = wait.get("mean")
        row["failure_kinds"] = " ".join(f"{f.kind}:{f.count}" for f in blocks.failures)
        # Older files (and vLLM's) have no floor: the columns stay empty rather than guessed.
        row["roofline_batch"] = None if roofline is None else _float(roofline.batch)
        row["floor_tpot_ms"] = None if roofline is None else _float(roofline.floor_tpot_ms)
        row["mbu"] = None if roofline is None else _float(roofline.mbu)
        # Last, so columns read by position keep their place: which sweep wrote the point,
        # and whether it was cut short.
        row["run"] = blocks.run_id
        completeness = self.completeness
        row["partial"] = not completeness.complete  # any fragment: early-stopped too
        # Reasoning, prefix caching, speculative decoding: empty for points that had none.
        row.update(reasoning_figures(blocks))
        row.update(cache_figures(blocks))
        row.update(conversation_figures(blocks))
        # Appended last (older columns keep their place): how much of its plan the point ran
        # ("early-stopped after 3 of 48") and where its load did not happen as planned.
        row["completeness"] = completeness.text
        row["load_warnings"] = "; ".join(w.text for w in self.load_warnings)
        return row


def _float(value: float | None) -> float | None:
    """A float column (a file's whole number, e.g. a batch of 8, read as 8.0); None for a
    figure that is not finite."""
    return None if value is None or not math.isfinite(value) else float(value)


SUMMARY_COLUMNS: tuple[str, ...] = tuple(
    PointResult(
        None,
        "",
        None,
        None,
        None,
        None,
        0.0,
        None,
        None,
        None,
        0,
        None,
        0.0,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    ).summary_row()
)
