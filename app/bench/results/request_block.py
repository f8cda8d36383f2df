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
from dataclasses import dataclass

import numpy as np

from app.bench.metrics.point import PointMetrics
from app.bench.metrics.request import request_tpot
from app.bench.schema.point_blocks import ItlHistogram
from app.bench.schema.point_doc import PointDoc
from app.bench.schema.request_arrays import RequestEntries
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


def requests_block(metrics: PointMetrics) -> RequestEntries:
    """`tpotbench.requests`: one entry per request in send order, failures included (their
    times null, so a plot can colour them without inventing a latency)."""
    ok: list[bool] = []
    prompt_tokens: list[int] = []
    output_tokens: list[int] = []
    start_s: list[float] = []
    ttft_ms: list[float | None] = []
    tpot_ms: list[float | None] = []
    e2el_ms: list[float | None] = []
    for i, kind in enumerate(metrics.error_kinds):
        succeeded = kind is None
        ok.append(succeeded)
        prompt_tokens.append(metrics.input_lens[i])
        got = metrics.received_tokens[i] if i < len(metrics.received_tokens) else 0
        output_tokens.append(metrics.output_lens[i] if succeeded else got)
        start_s.append(round(metrics.start_times[i], 6))
        if succeeded:
            ttft, e2el = metrics.ttfts[i], metrics.latencies[i]
            tpot = request_tpot(ttft, e2el, metrics.output_lens[i])
            ttft_ms.append(_ms(ttft))
            tpot_ms.append(_ms(tpot))
            e2el_ms.append(_ms(e2el))
        else:
            # No latency statistics for a failure, but when it failed is worth a dot.
            ttft_ms.append(None)
            tpot_ms.append(None)
            elapsed = metrics.elapsed_s[i] if i < len(metrics.elapsed_s) else None
            e2el_ms.append(_ms(elapsed))
    return RequestEntries(
        ok,
        prompt_tokens,
        output_tokens,
        start_s,
        ttft_ms,
        tpot_ms,
        e2el_ms,
        list(metrics.error_kinds),
    )


# The edges as a file holds them (6 decimals): a point's document then equals its file read back.
ITL_EDGES_WRITTEN_MS = tuple(round(e, 6) for e in ITL_EDGES_MS)


def itl_block(metrics: PointMetrics) -> ItlHistogram:
    """Every gap of every request, binned."""
    gaps_ms = np.fromiter((g * 1000.0 for gaps in metrics.itls for g in gaps), dtype=float)
    return ItlHistogram(ITL_EDGES_WRITTEN_MS, itl_histogram(gaps_ms))


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
    found = {key: ((block_column(doc, key) or []) + [None] * n)[:n] for key in _COLUMNS}
    return RequestColumns([v is True for v in flags], **found)


def block_column(doc: PointDoc, key: str) -> list[float | None] | None:
    """One figure column of the document's `tpotbench.requests` as it is (no `ok` needed),
    value by value: None where the file holds no finite number; None when it has no such
    list."""
    block = doc.block_rest.get("requests")
    data = block.get(key) if isinstance(block, dict) else None
    return [number(v) for v in data] if isinstance(data, list) else None


_COLUMNS = ("prompt_tokens", "output_tokens", "start_s", "ttft_ms", "tpot_ms", "e2el_ms")
