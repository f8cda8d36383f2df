"""Histogram and CDF charts as inline SVG, and the binning they draw from."""

from __future__ import annotations

import math
from collections.abc import Sequence

from app.report.svg import (
    BOTTOM,
    HEIGHT,
    LEFT,
    PALETTE,
    RIGHT,
    TOP,
    WIDTH,
    Axis,
    Rule,
    Scale,
    a,
    domain,
    fmt_tick,
    line_chart,
    nice_ticks,
)


def histogram_bins(values: Sequence[float], bins: int = 30, log: bool = False) -> list[float]:
    """Bin edges over the values' range (geometric on a log axis)."""
    vs = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    if not vs:
        return []
    lo, hi = min(vs), max(vs)
    if hi == lo:
        lo, hi = (lo / 1.1, hi * 1.1) if log else (lo - 0.5, hi + 0.5)
    if log:
        r = (hi / lo) ** (1 / bins)
        return [lo * r**k for k in range(bins + 1)]
    step = (hi - lo) / bins
    return [lo + step * k for k in range(bins + 1)]


def histogram_counts(values: Sequence[float], edges: Sequence[float]) -> list[int]:
    counts = [0] * (len(edges) - 1)
    if not counts:
        return counts
    for v in values:
        if not math.isfinite(v) or v < edges[0] or v > edges[-1]:
            continue
        lo, hi = 0, len(edges) - 1
        while hi - lo > 1:  # bisect: the last edge <= v
            mid = (lo + hi) // 2
            if edges[mid] <= v:
                lo = mid
            else:
                hi = mid
        counts[lo] += 1
    return counts


def histogram_chart(
    chart_id: str,
    title: str,
    values: Sequence[float],
    x: Axis,
    y_label: str,
    fill: str = PALETTE[0],
    rules: Sequence[Rule] = (),
    bins: int = 30,
    binned: tuple[Sequence[float], Sequence[float]] | None = None,
) -> str:
    """Bars of request counts per bin, each bar's tooltip giving its range and count.
    `binned` = (edges, counts) already counted (a file's histogram) instead of `values`."""
    counts: Sequence[float]
    if binned is not None:
        edges, counts = trim_bins(*binned)
    else:
        edges = histogram_bins(values, bins, x.log)
        counts = histogram_counts(values, edges)
    width, height = WIDTH, HEIGHT
    x_lo, x_hi = (edges[0], edges[-1]) if edges else domain([], x.log)
    sx = Scale(x_lo, x_hi, LEFT, width - RIGHT, x.log)
    top = max(counts, default=0) or 1
    sy = Scale(0, top * 1.08, height - BOTTOM, TOP)
    bars = []
    for k, count in enumerate(counts):
        if not count:
            continue
        x0, x1 = sx(edges[k]), sx(edges[k + 1])
        y0 = sy(count)
        bars.append(
            f'<rect class="bar" x="{x0:.1f}" y="{y0:.1f}" width="{max(x1 - x0 - 1, 1):.1f}" '
            f'height="{sy(0) - y0:.1f}" fill="{a(fill)}"><title>'
            f"{edges[k]:.4g}–{edges[k + 1]:.4g}: {count:g}</title></rect>"
        )
    counts_ticks = [t for t in nice_ticks(0, top * 1.08, False, 5) if t == int(t)]
    axis_y = Axis(y_label, lo=0, hi=top * 1.08, ticks=[(t, fmt_tick(t)) for t in counts_ticks])
    frame = line_chart(
        chart_id,
        title,
        [],
        Axis(x.label, x.log, include_zero=False, ticks=x.ticks, lo=x_lo, hi=x_hi),
        axis_y,
        rules,
        width,
        height,
    )
    # The bars go under the frame's rules and legend: insert them right after the plot background.
    marker = 'class="plot-bg"/>'
    at = frame.index(marker) + len(marker)
    return frame[:at] + '<g class="bars">' + "".join(bars) + "</g>" + frame[at:]


def trim_bins(edges: Sequence[float], counts: Sequence[float]) -> tuple[list[float], list[float]]:
    """A fixed histogram without its empty bins at either end (a log-binned ITL histogram
    spans 10 us to minutes; a point fills a few of its bins)."""
    used = [k for k, c in enumerate(counts) if c > 0]
    if not used or len(edges) != len(counts) + 1:
        return [], []
    first, last = used[0], used[-1]
    return list(edges[first : last + 2]), list(counts[first : last + 1])


def binned_cdf_points(edges: Sequence[float], counts: Sequence[float]) -> list[tuple[float, float]]:
    """(upper edge, share of values <= it) of a histogram: the CDF as far as the bins tell."""
    edges, counts = trim_bins(edges, counts)
    total = sum(counts)
    if not total:
        return []
    out, running = [(edges[0], 0.0)], 0.0
    for k, count in enumerate(counts):
        running += count
        out.append((edges[k + 1], running / total))
    return out


def cdf_points(values: Sequence[float], max_points: int = 400) -> list[tuple[float, float]]:
    """(value, fraction of requests <= value), thinned to about `max_points` steps so a point
    with 30 000 ITL gaps still draws a small path; the extremes are always kept."""
    vs = sorted(v for v in values if math.isfinite(v))
    n = len(vs)
    if not n:
        return []
    stride = max(1, n // max_points)
    idx = list(range(0, n, stride))
    if idx[-1] != n - 1:
        idx.append(n - 1)
    return [(vs[i], (i + 1) / n) for i in idx]
