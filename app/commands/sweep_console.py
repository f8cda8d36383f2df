"""The sweep on the terminal: a progress line per point on stderr and vLLM's end-of-point
result block ("==== Serving Benchmark Result ====") with TPOT Bench's extras and the SLOs."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

from app.bench.capacity.why import render as render_why
from app.bench.metrics.options import METRIC_TITLES
from app.bench.metrics.workload import workload_rows
from app.bench.results.naming import rate_label
from app.bench.results.point_result import PointResult
from app.bench.results.read import point_from_doc
from app.bench.results.write import no_success_note
from app.bench.schema.point_blocks import EMPTY, PointBlocks, TraceBlock
from app.bench.schema.point_doc import PointDoc
from app.bench.sweep.contract import (
    PointFinished,
    PointStarted,
    Progress,
    RunError,
    RunFinished,
    RunStarted,
)
from app.bench.sweep.observer import SweepObserver
from app.commands.console import error, labelled, rule
from app.commands.trace_flags import duration_words


# Long on purpose: vLLM's result block line by line, in its order, then our extras.
def format_summary(point: PointResult) -> str:
    """vLLM's end-of-run block ("==== Serving Benchmark Result ====") for one point."""
    lines = [rule(" Serving Benchmark Result ", "=")]

    def row(label: str, value: Any, fmt: str = "{:<10}") -> None:
        lines.append(labelled(label, value, fmt))

    row("Successful requests:", point.completed)
    row("Failed requests:", point.failed if point.failed is not None else "n/a")
    if point.max_concurrency is not None:
        row("Maximum request concurrency:", point.max_concurrency)
    if not math.isinf(point.request_rate):
        row("Request rate configured (RPS):", point.request_rate, "{:<10.2f}")
    row("Benchmark duration (s):", point.duration_s, "{:<10.2f}")
    row("Total input tokens:", point.total_input_tokens)
    row("Total generated tokens:", point.total_output_tokens)
    row("Request throughput (req/s):", point.request_throughput or 0.0, "{:<10.2f}")
    if point.request_goodput is not None:
        row("Request goodput (req/s):", point.request_goodput, "{:<10.2f}")
    row("Output token throughput (tok/s):", point.output_throughput or 0.0, "{:<10.2f}")
    if point.max_output_tokens_per_s is not None:
        row("Peak output token throughput (tok/s):", point.max_output_tokens_per_s, "{:<10.2f}")
    if point.max_concurrent_requests is not None:
        row("Peak concurrent requests:", point.max_concurrent_requests, "{:<10.2f}")
    row("Total token throughput (tok/s):", point.total_token_throughput or 0.0, "{:<10.2f}")
    for name, (short, header) in METRIC_TITLES.items():
        stats = point.stats.get(name) or _null_stats(point.doc.stats, name)
        if not stats:
            continue
        lines.append(rule(header))
        row(f"Mean {short} (ms):", stats.get("mean"), "{:<10.2f}")
        row(f"Median {short} (ms):", stats.get("median"), "{:<10.2f}")
        for key in sorted((k for k in stats if k.startswith("p")), key=lambda k: float(k[1:])):
            row(f"P{key[1:]} {short} (ms):", stats[key], "{:<10.2f}")
    blocks = point.blocks
    # A file with a non-empty `tpotbench` block: ours (vLLM's and empty blocks have no extras).
    block = point.doc.blocks is not None and (blocks != EMPTY or bool(point.doc.block_rest))
    if not point.completed and block:
        lines.append(no_success_note(blocks.failures))
    if block:
        lines.append(rule("TPOT Bench extras"))
        row("Mean slot wait (ms):", (blocks.slot_wait_ms or {}).get("mean"), "{:<10.2f}")
        chunk = blocks.tokens_per_chunk
        row("Tokens per chunk (mean):", (chunk.mean if chunk else None) or 0.0, "{:<10.2f}")
        if blocks.retried_requests is not None:
            row("Retried on a new connection:", blocks.retried_requests)
        for stamp in blocks.stamping:
            row(f"Token stamps ({stamp.kind}):", stamp.requests)
            if stamp.kind != "kernel":
                lines.append(f"  why: {stamp.why[:200]}")
        for label, value, fmt in workload_rows(blocks):
            row(label, value, fmt)
        for failure in blocks.failures:
            row(f"Failed ({failure.kind}):", failure.count)
            lines.append(f"  e.g. {failure.example[:120]}")
            lines.append(f"  fix: {failure.fix}")
        completeness = point.completeness
        if not completeness.complete:
            lines.append(
                f"Not a full measurement: {completeness.text}; the numbers cover what finished."
            )
        for load_warning in point.load_warnings:
            lines.append(f"Load warning: {load_warning.text}")
        server = blocks.server_metrics
        for warning in server.warnings if server is not None else ():
            lines.append(f"server metrics: {warning}")
        if blocks.prefix_cache is not None and blocks.prefix_cache.warning:
            lines.append(f"Warning: {blocks.prefix_cache.warning}")
        lines.extend(slo_lines(blocks))
    lines.append(rule(char="="))
    return "\n".join(lines)


def _null_stats(figures: Mapping[str, float | None], name: str) -> dict[str, None]:
    """The statistics a file holds as null for `name` (a point where no request succeeded)."""
    stats: dict[str, None] = {}
    for key, value in figures.items():
        if value is None and key.endswith(f"_{name}_ms"):
            stat = key[: -len(f"_{name}_ms")]
            if stat in ("mean", "median", "std") or stat[1:].replace(".", "", 1).isdigit():
                stats[stat] = None
    return stats


def slo_lines(blocks: PointBlocks) -> list[str]:
    """Pass/fail per SLO of a point (empty without SLOs), for the end-of-point block."""
    slo = blocks.slo
    if slo is None:
        return []
    lines = [rule("SLOs")]
    for check in slo.checks:
        value, limit = check.measured, check.bound
        if check.kind == "stat":
            shown = "-" if value is None else f"{value:.2f} ms"
            bound = "-" if limit is None else f"<= {limit:g} ms"
        else:
            shown = "-" if value is None else f"{value:.1%}"
            sign = ">= " if check.kind == "good_share" else "<= "
            bound = "-" if limit is None else f"{sign}{limit:.0%}"
        verdict = "pass" if check.passed else "FAIL"
        lines.append(f"{check.slo:<28} {shown:>12} {bound:>14}  {verdict}")
    early = blocks.early_stop
    if early is not None:
        lines.append(f"Stopped early (already failed): {early.reason}")
        if early.server_drain is not None and early.server_drain.warning:
            lines.append(f"Warning: {early.server_drain.warning}")
    lines.append("Point: " + ("meets every SLO" if slo.passed else "FAILS"))
    if blocks.why is not None:
        lines.append(f"Why: {render_why(blocks.why)}")
    return lines


class ConsoleReporter(SweepObserver):
    """The terminal consumer of sweep events: a progress line per point on stderr and vLLM's
    result block after each point (stdout, or stderr when stdout carries events)."""

    wants_tokens = False

    def __init__(self, *, bar: bool, summary_stream: Any) -> None:
        self.bar = bar and sys.stderr.isatty()
        self.out = summary_stream
        self.burstiness = 1.0
        self.trace: TraceBlock | None = None
        self.warned: list[tuple[str, list[str]]] = []  # (point, its load warnings' sentences)

    def run_started(self, event: RunStarted) -> None:
        print(
            f"Sweep: {len(event.points)} point(s) x {event.num_prompts} prompts -> "
            f"{event.endpoint.url} (model {event.endpoint.model})",
            file=sys.stderr,
        )

    def point_started(self, event: PointStarted) -> None:
        process = "Poisson process" if self.burstiness == 1.0 else "Gamma distribution"
        arrivals = f"Burstiness factor: {self.burstiness} ({process})"
        if self.trace is not None:
            arrivals = (
                f"Arrivals: the trace's timestamps at {self.trace.speedup or 1.0:g}x (the replay "
                f"sends over {duration_words(self.trace.replay_span_s or 0.0)})"
            )
        # vLLM's own preamble lines, so a log reads the same as theirs
        print(
            f"\nPoint {event.point + 1}\nTraffic request rate: {event.request_rate}\n"
            f"{arrivals}\nMaximum request concurrency: {event.max_concurrency}",
            file=sys.stderr,
        )

    def progress(self, event: Progress) -> None:
        if not self.bar:
            return
        done = event.completed + event.failed
        width = 30
        filled = int(width * done / event.total) if event.total else width
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{event.total} "
            f"failed {event.failed} in flight {event.in_flight} {event.elapsed_s:6.1f}s "
            f"{event.output_tok_s:8.1f} tok/s "
        )
        sys.stderr.flush()

    def point_finished(self, event: PointFinished) -> None:
        if self.bar:
            sys.stderr.write("\n")
        assert isinstance(event.summary, PointDoc)  # the probe has its own console
        point = point_from_doc(event.summary)
        print(format_summary(point), file=self.out, flush=True)
        name = f"rate {rate_label(point.request_rate)}, concurrency {point.max_concurrency}"
        warnings = [w.text for w in point.load_warnings]
        for text in warnings:  # on stderr too: the summary may be going to a file
            print(f"Load warning ({name}): {text}", file=sys.stderr)
        if warnings:
            self.warned.append((name, warnings))
        print(f"saved {event.path}", file=sys.stderr)

    def _warnings_recap(self) -> None:
        """At the end: every point whose load did not happen as planned, once more."""
        if not self.warned:
            return
        print(
            f"Load warnings: {len(self.warned)} point(s) did not run the load they name:",
            file=sys.stderr,
        )
        for name, texts in self.warned:
            for text in texts:
                print(f"  {name}: {text}", file=sys.stderr)

    def run_finished(self, event: RunFinished) -> None:
        self._warnings_recap()
        if event.cancelled:
            print("Cancelled: finished points are saved.", file=sys.stderr)
        if event.csv:
            print(f"summary {event.csv}", file=sys.stderr)

    def error(self, event: RunError) -> None:
        error("sweep", event.message)
