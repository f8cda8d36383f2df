"""Per-request samples of one point (TTFT, TPOT, ITL, E2EL in ms, success flags) read back from the
arrays a result file carries, as `vllm bench serve --save-detailed` writes them, or from the
compact `tpotbench.requests` block and ITL histogram our files always carry (request_block)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from app.bench.metrics.request import request_tpot
from app.bench.results.request_block import RequestColumns, request_columns
from app.bench.schema.point_blocks import ItlHistogram
from app.bench.schema.point_doc import PointDoc, VllmKeys

SAMPLE_METRICS = ("ttft", "tpot", "itl", "e2el")


@dataclass
class RequestSamples:
    """What the file holds, request by request. `ok` has one flag per request in the file (failed
    ones included, as vLLM lists them); the metric lists hold successful requests only, so a
    failed request's 0.0 placeholders never enter a distribution. Empty lists = not recorded."""

    ok: list[bool] = field(default_factory=list)
    ttft_ms: list[float] = field(default_factory=list)
    tpot_ms: list[float] = field(default_factory=list)
    itl_ms: list[float] = field(default_factory=list)
    e2el_ms: list[float] = field(default_factory=list)
    # (prompt tokens, TTFT ms) and (output tokens, E2EL ms) of each successful request
    ttft_by_prompt: list[tuple[int, float]] = field(default_factory=list)
    e2el_by_output: list[tuple[int, float]] = field(default_factory=list)
    # Failed requests that recorded when they failed: (prompt tokens, ms) and (tokens got, ms)
    failed_by_prompt: list[tuple[int, float]] = field(default_factory=list)
    failed_by_output: list[tuple[int, float]] = field(default_factory=list)
    # Every ITL binned (edges ms, counts), when the file has the histogram but not the gaps
    itl_edges_ms: list[float] = field(default_factory=list)
    itl_counts: list[float] = field(default_factory=list)

    def values(self, metric: str) -> list[float]:
        return list(getattr(self, f"{metric}_ms"))

    @property
    def has_any(self) -> bool:
        return any(self.values(m) for m in SAMPLE_METRICS) or any(self.itl_counts)

    @property
    def failed(self) -> int:
        return sum(1 for ok in self.ok if not ok)


def _floats(value: Any) -> list[float | None] | None:
    """A list of numbers (None for anything else in it), or None when `value` is not a list."""
    if not isinstance(value, list):
        return None
    out: list[float | None] = []
    for item in value:
        ok = isinstance(item, int | float) and not isinstance(item, bool) and math.isfinite(item)
        out.append(float(item) if ok else None)
    return out


def _flags(head: VllmKeys, n: int) -> list[bool]:
    """Success per request: an empty error string (vLLM), else a positive latency or TTFT."""
    errors = head.errors
    if isinstance(errors, list) and len(errors) == n:
        return [not e for e in errors]
    latencies = _floats(head.latencies) or []
    ttfts = _floats(head.ttfts) or []
    for column in (latencies, ttfts):
        if len(column) == n:
            # A failed request is written with 0.0 by vLLM and by us.
            return [bool(v and v > 0) for v in column]
    return [True] * n


def _block_samples(columns: RequestColumns, hist: ItlHistogram | None) -> RequestSamples:
    """Samples from `tpotbench.requests` (ms already; null where not defined)."""
    samples = RequestSamples(ok=list(columns.ok))
    ttft, tpot, e2el = columns.ttft_ms, columns.tpot_ms, columns.e2el_ms
    prompt, output = columns.prompt_tokens, columns.output_tokens
    for i, ok in enumerate(samples.ok):
        if not ok:
            if e2el[i] is not None:
                if prompt[i] is not None:
                    samples.failed_by_prompt.append((int(prompt[i] or 0), float(e2el[i] or 0)))
                samples.failed_by_output.append((int(output[i] or 0), float(e2el[i] or 0)))
            continue
        if ttft[i] is not None:
            samples.ttft_ms.append(float(ttft[i] or 0))
            if prompt[i] is not None:
                samples.ttft_by_prompt.append((int(prompt[i] or 0), float(ttft[i] or 0)))
        if tpot[i] is not None:
            samples.tpot_ms.append(float(tpot[i] or 0))
        if e2el[i] is not None:
            samples.e2el_ms.append(float(e2el[i] or 0))
            if output[i] is not None:
                samples.e2el_by_output.append((int(output[i] or 0), float(e2el[i] or 0)))
    _read_histogram(samples, hist)
    return samples


def _read_histogram(samples: RequestSamples, hist: ItlHistogram | None) -> None:
    if hist is None:
        return
    edges = [float(e) for e in hist.edges_ms if math.isfinite(e)]
    counts = [float(max(c, 0)) for c in hist.counts]
    if counts and len(edges) == len(counts) + 1:
        samples.itl_edges_ms, samples.itl_counts = edges, counts


def request_samples(doc: PointDoc, set_aside: ItlHistogram | None = None) -> RequestSamples:
    """Samples from one result document (ours, vLLM's, benchmark_serving.py's); seconds -> ms.
    `set_aside`: the binned gaps of a large file read lean (app.bench.results.lean_read)."""
    head, hist = doc.vllm, doc.typed_blocks.itl_histogram
    columns = request_columns(doc)
    if columns is not None and not isinstance(head.ttfts, list):
        return _block_samples(columns, hist)
    ttfts = _floats(head.ttfts)
    latencies = _floats(head.latencies)
    out_lens = _floats(head.output_lens)
    in_lens = _floats(head.input_lens)
    itls = head.itls if isinstance(head.itls, list) else None
    n = max(len(c) for c in (ttfts or [], latencies or [], out_lens or [], itls or []))
    samples = RequestSamples(ok=_flags(head, n) if n else [])

    def at(column: list[float | None] | None, i: int) -> float | None:
        return column[i] if column is not None and i < len(column) else None

    for i, ok in enumerate(samples.ok):
        if not ok:
            continue
        ttft, e2el, n_out, n_in = at(ttfts, i), at(latencies, i), at(out_lens, i), at(in_lens, i)
        if ttft is not None and ttft > 0:
            samples.ttft_ms.append(ttft * 1e3)
            if n_in is not None:
                samples.ttft_by_prompt.append((int(n_in), ttft * 1e3))
        if e2el is not None and e2el > 0:
            samples.e2el_ms.append(e2el * 1e3)
            if n_out is not None:
                samples.e2el_by_output.append((int(n_out), e2el * 1e3))
        if ttft is not None and e2el is not None and n_out is not None:
            tpot = request_tpot(ttft, e2el, int(n_out))
            if tpot is not None and tpot >= 0:
                samples.tpot_ms.append(tpot * 1e3)
        gaps = _floats(itls[i]) if itls is not None and i < len(itls) else None
        samples.itl_ms.extend(g * 1e3 for g in gaps or [] if g is not None and g >= 0)
    # A large file read lean (lean_read) holds its gaps binned, beside or instead of ours.
    _read_histogram(samples, hist or set_aside)
    return samples
