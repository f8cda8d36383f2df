"""The successful requests of one result file as aligned columns (ms), for the figures that
need to know which value belongs to which request: the A/B bootstrap (it resamples requests)
and other tools' definitions (token-weighted means, per-token ITLs).

Reads our `tpotbench.requests` block (always written), vLLM's `--save-detailed` arrays, and the
gaps and their token counts (`itls`, `tpotbench.itl_tokens`) when the file has them. Unlike
request_samples (flat lists for distributions), a request keeps its row here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.bench.results.request_block import request_columns
from app.bench.schema.point_doc import PointDoc


@dataclass(frozen=True)
class RequestRows:
    """One row per successful request, in send order. `tpot_ms` is NaN for a one-token reply.
    `itls_ms[i]` are request i's gaps (None: the file did not keep gaps, i.e. no
    --save-detailed); `itl_tokens[i]` the tokens each gap delivered (None: unknown)."""

    ttft_ms: np.ndarray
    e2el_ms: np.ndarray
    tpot_ms: np.ndarray
    output_tokens: np.ndarray
    itls_ms: list[np.ndarray] | None
    itl_tokens: list[np.ndarray | None] | None
    start_s: np.ndarray | None = None  # send time from the point's start (None: not saved)

    @property
    def n(self) -> int:
        return int(self.ttft_ms.size)

    @property
    def has_gaps(self) -> bool:
        return self.itls_ms is not None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _column(data: Any, n: int) -> list[float | None]:
    values = [_number(v) for v in data] if isinstance(data, list) else []
    return (values + [None] * n)[:n]


def _gap_lists(itls: Any, keep: list[int], scale: float) -> list[np.ndarray] | None:
    if not isinstance(itls, list) or len(itls) <= max(keep, default=-1):
        return None
    out = []
    for i in keep:
        gaps = [g for g in (_number(v) for v in itls[i] or []) if g is not None and g >= 0]
        out.append(np.asarray(gaps, dtype=float) * scale)
    return out


def _token_lists(column: Any, keep: list[int], gaps: list[np.ndarray]) -> list[np.ndarray | None]:
    out: list[np.ndarray | None] = []
    for row, i in enumerate(keep):
        entry = column[i] if isinstance(column, list) and i < len(column) else None
        counts = [_number(v) for v in entry] if isinstance(entry, list) else None
        ok = counts is not None and len(counts) == gaps[row].size
        ok = ok and all(c is not None and c >= 1 for c in counts or [])
        out.append(np.asarray(counts, dtype=float) if ok else None)
    return out


def request_rows(doc: PointDoc) -> RequestRows | None:
    """The rows of one result document, or None when it keeps no per-request figures (a
    `vllm bench serve` file written without --save-detailed)."""
    head, extras = doc.vllm, doc.block_rest
    columns = request_columns(doc)
    flags: list[bool]
    if columns is not None:
        flags = columns.ok
        n = len(flags)
        ttft, e2el = columns.ttft_ms, columns.e2el_ms
        tokens, starts = columns.output_tokens, columns.start_s
        scale = 1000.0  # the gaps (vLLM's `itls`) are in seconds, the block in ms
    elif isinstance(head.ttfts, list) and isinstance(head.latencies, list):
        n = len(head.ttfts)
        errors = head.errors
        ttft = [None if v is None else v * 1000 for v in _column(head.ttfts, n)]
        e2el = [None if v is None else v * 1000 for v in _column(head.latencies, n)]
        tokens = _column(head.output_lens, n)
        starts = _column(head.start_times, n)
        if isinstance(errors, list) and len(errors) == n:
            flags = [not e for e in errors]
        else:  # vLLM writes a failed request with 0.0 latency
            flags = [bool(v and v > 0) for v in e2el]
        scale = 1000.0
    else:
        return None
    keep = [
        i
        for i in range(n)
        if flags[i] is True and ttft[i] is not None and e2el[i] is not None and tokens[i]
    ]
    t = np.asarray([ttft[i] for i in keep], dtype=float)
    e = np.asarray([e2el[i] for i in keep], dtype=float)
    k = np.asarray([tokens[i] for i in keep], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        tpot = np.where(k > 1, (e - t) / (k - 1), np.nan)
    gaps = _gap_lists(head.itls, keep, scale)
    counts = _token_lists(extras.get("itl_tokens"), keep, gaps) if gaps is not None else None
    begun = [starts[i] for i in keep]
    start = None if any(v is None for v in begun) else np.asarray(begun, dtype=float)
    return RequestRows(t, e, tpot, k, gaps, counts, start)
