"""The per-request block of a result file, written always (distributions need it).

vLLM keeps per-request arrays only with --save-detailed (then with every token's gap and the
generated text, megabytes for a large point). Our result files always carry a compact block,
`tpotbench.requests` (one entry per request, ~80 bytes each; a failed request keeps the time it
failed after and the tokens it got), and the ITL distribution as a fixed log-binned histogram,
`tpotbench.itl_histogram` (a few hundred bytes, whatever the number of tokens).
`app.bench.results.request_samples` reads them back, as it reads vLLM's detailed arrays.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.bench.metrics.point import PointMetrics
from app.bench.metrics.request import request_tpot
from app.bench.results.per_request import REQUEST_ENTRY_KEYS
from app.bench.schema.codec import wire
from app.bench.schema.point_doc import PointDoc
from app.jsonfile import number

# ITL histogram bins: 10 µs .. 100 s, 20 per decade (12 % wide): fine enough for a CDF read at
# p50/p99, fixed so histograms of different points and runs add and overlay bin for bin.
ITL_BINS_PER_DECADE = 20
ITL_LOG10_MIN = -2.0
ITL_LOG10_MAX = 5.0
ITL_EDGES_MS: tuple[float, ...] = tuple(
    10.0 ** (ITL_LOG10_MIN + k / ITL_BINS_PER_DECADE)
    for k in range(int((ITL_LOG10_MAX - ITL_LOG10_MIN) * ITL_BINS_PER_DECADE) + 1)
)


def itl_histogram(itls_ms: Iterable[float] | np.ndarray) -> list[int]:
    """Counts of ITLs (ms) in the fixed ITL_EDGES_MS bins; values outside go to the end bins."""
    values = np.asarray(list(itls_ms) if not isinstance(itls_ms, np.ndarray) else itls_ms, float)
    values = values[np.isfinite(values)]
    edges = np.asarray(ITL_EDGES_MS)
    clipped = np.clip(values, edges[0], np.nextafter(edges[-1], 0))
    counts, _ = np.histogram(clipped, bins=edges)
    return [int(c) for c in counts]


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000.0, 4)


def requests_block(metrics: PointMetrics) -> dict[str, list[Any]]:
    """`tpotbench.requests`: one entry per request in send order, failures included (their
    times null, so a plot can colour them without inventing a latency)."""
    block: dict[str, list[Any]] = {key: [] for key in REQUEST_ENTRY_KEYS}
    for i, kind in enumerate(metrics.error_kinds):
        ok = kind is None
        block["ok"].append(ok)
        block["prompt_tokens"].append(metrics.input_lens[i])
        got = metrics.received_tokens[i] if i < len(metrics.received_tokens) else 0
        block["output_tokens"].append(metrics.output_lens[i] if ok else got)
        block["start_s"].append(round(metrics.start_times[i], 6))
        block["error_kind"].append(kind)
        if ok:
            ttft, e2el = metrics.ttfts[i], metrics.latencies[i]
            tpot = request_tpot(ttft, e2el, metrics.output_lens[i])
            block["ttft_ms"].append(_ms(ttft))
            block["tpot_ms"].append(_ms(tpot))
            block["e2el_ms"].append(_ms(e2el))
        else:
            # No latency statistics for a failure, but when it failed is worth a dot.
            block["ttft_ms"].append(None)
            block["tpot_ms"].append(None)
            elapsed = metrics.elapsed_s[i] if i < len(metrics.elapsed_s) else None
            block["e2el_ms"].append(_ms(elapsed))
    return block


@dataclass(frozen=True)
class ItlHistogram:
    """`tpotbench.itl_histogram`: the fixed bins' edges (ms, 6 decimals in the file) and how
    many gaps fell in each."""

    edges_ms: tuple[float, ...] = field(metadata=wire(digits=6))
    counts: list[int]


def itl_block(metrics: PointMetrics) -> ItlHistogram:
    """Every gap of every request, binned."""
    gaps_ms = np.fromiter((g * 1000.0 for gaps in metrics.itls for g in gaps), dtype=float)
    return ItlHistogram(ITL_EDGES_MS, itl_histogram(gaps_ms))


@dataclass(frozen=True)
class RequestColumns:
    """`tpotbench.requests` read back: one entry per request in send order, every column as
    long as `ok` (None where the file holds no finite number, or no entry at all)."""

    ok: list[bool]  # true only for a request the file says succeeded (`true`, nothing else)
    prompt_tokens: list[float | None]
    output_tokens: list[float | None]
    start_s: list[float | None]
    ttft_ms: list[float | None]
    tpot_ms: list[float | None]
    e2el_ms: list[float | None]


def request_columns(doc: PointDoc) -> RequestColumns | None:
    """The document's `tpotbench.requests`, read tolerantly; None when it has none (vLLM's
    files, or a block whose `ok` is not a list)."""
    block = doc.block_rest.get("requests")
    if not isinstance(block, dict) or not isinstance(block.get("ok"), list):
        return None
    flags = block["ok"]
    n = len(flags)
    found = {key: _column(block.get(key), n) for key in _COLUMNS}
    return RequestColumns([v is True for v in flags], **found)


_COLUMNS = ("prompt_tokens", "output_tokens", "start_s", "ttft_ms", "tpot_ms", "e2el_ms")


def _column(data: Any, n: int) -> list[float | None]:
    values = [number(v) for v in data] if isinstance(data, list) else []
    return (values + [None] * n)[:n]
