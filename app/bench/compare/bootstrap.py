"""Bootstrap replicates of each figure of one point, for the interval of a change.

Requests that run together are not independent: they share the batch, so they share every
step time, and on the simulator a batch's replies end within a millisecond of each other. So
the unit of resampling is a stretch of time, not a request: the run is cut into equal time
windows (blocks(): 5 to 20, about 4 requests each), each request belongs to the window it was
sent in and takes its TTFT, TPOT, E2EL and all its gaps along; windows are resampled with
replacement and the statistic is taken over the pooled values. Throughput and goodput count
tokens where they arrived (spread evenly from a request's first token to its last) and good
requests where they completed, window by window. The interval of a change is the percentile
interval of the (candidate − base) replicates. Seeded: a compare prints the same table every time.

Bounded cost: a side with more than MAX_REQUESTS successful requests is first cut to a seeded
random MAX_REQUESTS of them (without replacement) for the latency figures; the interval then
comes out a little wider than the full data's would, never narrower. Likewise ITL uses a seeded
random subset of those requests holding at most MAX_GAPS gaps. Resamples are drawn in
one go as block multiplicities (resamples x blocks), and a quantile is found by a binary
search over the sorted values, so the cost grows with log(values), not values x resamples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.bench.results.request_rows import RequestRows

MAX_REQUESTS = 100_000
MAX_GAPS = 400_000
MIN_RESAMPLES = 2000
MAX_RESAMPLES = 10_000
MIN_BLOCKS = 5
MAX_BLOCKS = 20
_Q = {"median": 50.0, "p99": 99.0}


def resamples_for(alpha: float) -> int:
    """Enough resamples that each tail of the interval holds ~10 of them (2000 at least)."""
    return int(min(MAX_RESAMPLES, max(MIN_RESAMPLES, math.ceil(20.0 / alpha))))


def _stats(values: np.ndarray, axis: int | None = None) -> dict[str, np.ndarray]:
    q = np.percentile(values, [50.0, 99.0], axis=axis)
    return {"mean": np.asarray(np.mean(values, axis=axis)), "median": q[0], "p99": q[1]}


def _subset(rows: RequestRows, keep: np.ndarray) -> RequestRows:
    return RequestRows(
        rows.ttft_ms[keep],
        rows.e2el_ms[keep],
        rows.tpot_ms[keep],
        rows.output_tokens[keep],
        None if rows.itls_ms is None else [rows.itls_ms[i] for i in keep],
        None if rows.itl_tokens is None else [rows.itl_tokens[i] for i in keep],
        None if rows.start_s is None else rows.start_s[keep],
    )


@dataclass(frozen=True)
class Side:
    """What one point offers the bootstrap: request rows, duration, goodput limits."""

    rows: RequestRows
    duration_s: float
    goodput_limits_ms: dict[str, float] | None
    subsampled_from: int | None = None
    cut: RequestRows | None = None  # the MAX_REQUESTS cut used for the latency figures

    gap_rows: RequestRows | None = None  # the MAX_GAPS cut used for ITL
    gap_requests_from: int | None = None  # requests before that cut

    @classmethod
    def of(
        cls,
        rows: RequestRows,
        duration_s: float,
        goodput_limits_ms: dict[str, float] | None,
        rng: np.random.Generator,
    ) -> Side:
        cut = None
        if rows.n > MAX_REQUESTS:
            cut = _subset(rows, np.sort(rng.choice(rows.n, MAX_REQUESTS, replace=False)))
        latency = cut or rows
        gaps = sum(g.size for g in latency.itls_ms or [])
        gap_rows, gap_from = None, None
        if gaps > MAX_GAPS:
            keep = max(2, int(latency.n * MAX_GAPS / gaps))
            gap_rows = _subset(latency, np.sort(rng.choice(latency.n, keep, replace=False)))
            gap_from = latency.n
        return cls(
            rows, duration_s, goodput_limits_ms, rows.n if cut else None, cut, gap_rows, gap_from
        )

    @property
    def latency_rows(self) -> RequestRows:
        return self.cut or self.rows

    def rows_for(self, metric: str) -> RequestRows:
        if metric == "itl" and self.gap_rows is not None:
            return self.gap_rows
        return self.latency_rows

    def good(self) -> np.ndarray | None:
        """Per request: within every goodput limit (vLLM's counting), or None without limits."""
        limits = self.goodput_limits_ms
        if not limits:
            return None
        rows = self.rows
        columns = {"ttft": rows.ttft_ms, "tpot": rows.tpot_ms, "e2el": rows.e2el_ms}
        ok = np.ones(rows.n, dtype=bool)
        for name, limit in limits.items():
            if name not in columns:
                return None
            ok &= np.nan_to_num(columns[name], nan=0.0) <= limit  # vLLM: a 1-token TPOT is 0
        return ok


def blocks(rows: RequestRows) -> tuple[np.ndarray, int]:
    """Each request's time window (by send time) and the number of windows; without send
    times every request is its own block."""
    if rows.start_s is None or rows.n < 2:
        return np.arange(rows.n), rows.n
    count = int(min(MAX_BLOCKS, max(MIN_BLOCKS, rows.n // 4)))
    t0, t1 = float(rows.start_s.min()), float(rows.start_s.max())
    width = (t1 - t0) / count or 1.0
    return np.clip(((rows.start_s - t0) / width).astype(int), 0, count - 1), count


def _rank_index(cum: np.ndarray, mult: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """For each resample (row of `mult`), the index into the sorted values of its pooled
    value of 0-based `rank`: the first j whose pooled count sum_w mult[w] * cum[w, j] exceeds
    the rank. A binary search over j, all resamples at once: O(resamples x blocks x log n)."""
    lo = np.zeros(mult.shape[0], dtype=np.int64)
    hi = np.full(mult.shape[0], cum.shape[1] - 1, dtype=np.int64)
    active = lo < hi
    while np.any(active):
        mid = (lo + hi) // 2
        below = np.einsum("rw,wr->r", mult, cum[:, mid]) > rank
        hi = np.where(active & below, mid, hi)
        lo = np.where(active & ~below, mid + 1, lo)
        active = lo < hi
    return lo


def _pooled_quantiles(
    sorted_values: np.ndarray, cum: np.ndarray, mult: np.ndarray, total: np.ndarray, q: float
) -> np.ndarray:
    """numpy's linear-interpolated quantile of each resample's pooled values, without building
    them: resample r repeats block w's values mult[r, w] times; cum[w, j] counts block w's
    values among the first j + 1 sorted values."""
    h = np.maximum(total - 1, 0) * q
    low = np.floor(h)
    x_low = sorted_values[_rank_index(cum, mult, low)]
    x_high = sorted_values[_rank_index(cum, mult, np.minimum(low + 1, np.maximum(total - 1, 0)))]
    out = x_low + (h - low) * (x_high - x_low)
    return np.where(total > 0, out, np.nan)


def _block_stats(
    values: np.ndarray, owner: np.ndarray, n_blocks: int, n_boot: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Replicates of mean, median and p99 of `values` when the blocks (owner = block of each
    value) are resampled with replacement."""
    order = np.argsort(values, kind="stable")
    sorted_values, sorted_owner = values[order], owner[order]
    cum = np.zeros((n_blocks, values.size), dtype=np.int32)
    cum[sorted_owner, np.arange(values.size)] = 1
    np.cumsum(cum, axis=1, out=cum)
    sums = np.bincount(owner, weights=values, minlength=n_blocks)
    counts = np.bincount(owner, minlength=n_blocks).astype(float)
    idx = rng.integers(0, n_blocks, size=(n_boot, n_blocks))
    mult = np.zeros((n_boot, n_blocks))
    np.add.at(mult, (np.arange(n_boot)[:, None], idx), 1.0)
    total = mult @ counts
    out = {"mean": np.where(total > 0, (mult @ sums) / np.maximum(total, 1), np.nan)}
    for stat in ("median", "p99"):
        out[stat] = _pooled_quantiles(sorted_values, cum, mult, total, _Q[stat] / 100)
    return out


def window_counts(rows: RequestRows, weights: np.ndarray, tokens: bool) -> tuple[np.ndarray, float]:
    """Per time window: output tokens delivered (tokens=True, spread evenly from a request's
    first token to its last) or `weights` counted at each request's completion; and the
    window's length in s."""
    assert rows.start_s is not None
    first = rows.start_s + rows.ttft_ms / 1000
    end = rows.start_s + rows.e2el_ms / 1000
    t0, t1 = float(rows.start_s.min()), float(end.max())
    windows = blocks(rows)[1]
    width = max((t1 - t0) / windows, 1e-9)
    edges = t0 + width * np.arange(windows + 1)
    counts = np.zeros(windows)
    if not tokens:
        where = np.clip(((end - t0) / width).astype(int), 0, windows - 1)
        np.add.at(counts, where, weights)
        return counts, width
    lo, hi = first[:, None], end[:, None]
    overlap = np.clip(np.minimum(edges[1:], hi) - np.maximum(edges[:-1], lo), 0, None)
    spread = np.divide(overlap, hi - lo, out=np.zeros_like(overlap), where=hi > lo)
    instant = np.zeros_like(overlap)  # a one-chunk reply: all its tokens at once
    where = np.clip(((first - t0) / width).astype(int), 0, windows - 1)
    instant[np.arange(first.size), where] = 1.0
    share = np.where(hi > lo, spread, instant)
    counts = (share * weights[:, None]).sum(axis=0)
    return counts, width


def _windows(counts: np.ndarray, width: float, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    idx = rng.integers(0, counts.size, size=(n_boot, counts.size))
    return np.asarray(counts[idx].mean(axis=1) / width)


def metric_replicates(
    side: Side, metric: str, n_boot: int, rng: np.random.Generator
) -> dict[str | None, np.ndarray]:
    """Bootstrap replicates of the metric's statistics (keys mean/median/p99, or None for a
    throughput)."""
    rows = side.rows_for(metric)
    if metric in ("ttft", "tpot", "e2el", "itl"):
        owner, n_blocks = blocks(rows)
        values, owners = _pooled_values(rows, metric, owner)
        stats = _block_stats(values, owners, n_blocks, n_boot, rng)
        return {k: v for k, v in stats.items()}
    counts, width = _throughput_windows(side, metric)
    return {None: _windows(counts, width, n_boot, rng)}


def _pooled_values(
    rows: RequestRows, metric: str, owner: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The metric's values and the block each belongs to."""
    if metric == "itl":
        assert rows.itls_ms is not None
        sizes = np.asarray([g.size for g in rows.itls_ms])
        return np.concatenate(rows.itls_ms), np.repeat(owner, sizes)
    column = {"ttft": rows.ttft_ms, "tpot": rows.tpot_ms, "e2el": rows.e2el_ms}[metric]
    keep = np.isfinite(column)
    return column[keep], owner[keep]


def _throughput_windows(side: Side, metric: str) -> tuple[np.ndarray, float]:
    if metric == "output_throughput":
        return window_counts(side.rows, side.rows.output_tokens, tokens=True)
    good = side.good()
    assert good is not None
    return window_counts(side.rows, good.astype(float), tokens=False)


def metric_values(side: Side, metric: str) -> dict[str | None, float] | str:
    """The metric's statistics on the side's own data, or why it cannot be resampled."""
    rows = side.rows_for(metric)
    if metric in ("ttft", "tpot", "e2el"):
        column = {"ttft": rows.ttft_ms, "tpot": rows.tpot_ms, "e2el": rows.e2el_ms}[metric]
        values = column[np.isfinite(column)]
        if values.size < 2:
            return "fewer than 2 requests with this figure"
        return {k: float(v) for k, v in _stats(values).items()}
    if metric == "itl":
        if rows.itls_ms is None:
            return "no per-request gaps (needs --save-detailed)"
        gaps = [g for g in rows.itls_ms if g.size]
        if len(gaps) < 2:
            return "fewer than 2 requests with gaps"
        return {k: float(v) for k, v in _stats(np.concatenate(gaps)).items()}
    if side.rows.start_s is None or side.rows.n < 2:
        return "no request start times in the file"
    if metric == "goodput" and side.good() is None:
        return "no goodput limits recorded (sweep --goodput)"
    counts, width = _throughput_windows(side, metric)
    return {None: float(counts.sum() / (width * counts.size))}


# A resampled statistic is only as good as the values beyond it: the bootstrap of a p99 from
# 48 requests keeps returning the same top two values, and its interval collapses to a point.
# So an interval needs MIN_TAIL values past the quantile (1000 for a p99, 20 for a median)
# and MIN_TAIL values for a mean.
MIN_TAIL = 10


def needed(stat: str | None) -> int:
    if stat == "p99":
        return MIN_TAIL * 100
    return MIN_TAIL * 2 if stat == "median" else MIN_TAIL


def sample_size(side: Side, metric: str) -> int:
    """How many values the metric's statistics are taken over on this side."""
    rows = side.rows_for(metric)
    if metric == "itl":
        return sum(g.size for g in rows.itls_ms or [])
    if metric in ("ttft", "tpot", "e2el"):
        column = {"ttft": rows.ttft_ms, "tpot": rows.tpot_ms, "e2el": rows.e2el_ms}[metric]
        return int(np.isfinite(column).sum())
    return side.rows.n
