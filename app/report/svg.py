"""Inline SVG charts as strings: line/scatter charts with linear or log axes, and the scales,
ticks and legends every chart shares. No JavaScript library, no external asset: a report opens
offline exactly as written."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

# Okabe-Ito: distinguishable with the common colour-vision deficiencies, and in grey print.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7f7f7f", "#000000")

WIDTH, HEIGHT = 640, 300

LEFT, RIGHT, TOP, BOTTOM = 64, 16, 50, 46

_LEGEND_ROW = 16


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


_SCALES = ((1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"))


def fmt_tick(value: float) -> str:
    """Three significant figures at most, no trailing zeros: 0.05, 1.5, 250, 12k."""
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 10_000:
        # The first scale whose three figures need no exponent: 999,999 is "1M", not "1e+03k".
        for scale, suffix in _SCALES:
            text = f"{value / scale:.3g}"
            if "e" not in text:
                return text + suffix
        return f"{value:.3g}"
    if magnitude >= 1:
        return f"{value:.4g}" if magnitude >= 1000 else f"{value:.3g}"
    return f"{value:.2g}"


def exact_tick(value: float) -> str:
    """fmt_tick for a value the user chose (a rate, a concurrency): the short form when it is
    exact, else every digit it needs (0.0125, not 0.013)."""
    label = fmt_tick(value)
    scale = dict((suffix, size) for size, suffix in _SCALES).get(label[-1:], 1.0)
    shown = float(label[:-1]) * scale if scale != 1.0 else float(label)
    return label if shown == value and "e" not in label else f"{value:.12g}"


def tick_labels(values: Sequence[float]) -> list[str]:
    """Labels for a run of ticks with the fewest decimals that keep them apart (19.55, 19.6,
    19.65 rather than 19.6 three times)."""
    for decimals in range(0, 7):
        labels = [fmt_tick(v) if decimals == 0 else f"{v:.{decimals}f}" for v in values]
        if len(set(labels)) == len(labels):
            return labels
    return [f"{v:g}" for v in values]


def text_units(value: str) -> int:
    """Width of `value` in Latin-character units: a CJK character is about two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in value)


def a(value: object) -> str:
    """An attribute or text value, escaped (quotes included)."""
    return escape(str(value), quote=True)


@dataclass(frozen=True)
class Scale:
    """Data -> pixels along one axis; `log` uses log10 (values <= 0 are not drawable there)."""

    lo: float
    hi: float
    px0: float
    px1: float
    log: bool = False

    def _t(self, v: float) -> float:
        return math.log10(v) if self.log else v

    def __call__(self, v: float) -> float:
        lo, hi = self._t(self.lo), self._t(self.hi)
        span = hi - lo or 1.0
        return self.px0 + (self._t(v) - lo) / span * (self.px1 - self.px0)

    def drawable(self, v: float | None) -> bool:
        return v is not None and math.isfinite(v) and (v > 0 or not self.log)


def nice_ticks(lo: float, hi: float, log: bool, target: int = 5) -> list[float]:
    """Round tick values inside [lo, hi]: 1-2-5 steps, or decades (plus 2 and 5) on a log axis."""
    if log:
        lo, hi = max(lo, 1e-12), max(hi, 1e-12)
        first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        decades = [10.0**k for k in range(first, last + 1)]
        ticks = [t for t in decades if lo * 0.999 <= t <= hi * 1.001]
        if len(ticks) < 3:
            ticks = [t * m for t in decades for m in (1, 2, 5) if lo * 0.999 <= t * m <= hi * 1.001]
        return ticks
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / target
    step = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= step * m:
            step *= m
            break
    start = math.ceil(lo / step - 1e-9) * step
    out = []
    v = start
    while v <= hi + step * 1e-9:
        out.append(round(v, 12))
        v += step
    return out


def domain(values: Sequence[float], log: bool, include_zero: bool = False) -> tuple[float, float]:
    """A padded [lo, hi] covering `values` (finite ones; positive ones on a log axis)."""
    vs = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    if not vs:
        return (1.0, 10.0) if log else (0.0, 1.0)
    lo, hi = min(vs), max(vs)
    if log:
        if hi / lo < 1.5:
            lo, hi = lo / 1.25, hi * 1.25
        return lo / 1.08, hi * 1.08
    if include_zero:
        lo = min(lo, 0.0)
    if hi == lo:
        pad = abs(hi) * 0.1 or 1.0
        return lo - pad if not include_zero else lo, hi + pad
    pad = (hi - lo) * 0.06
    return (lo if include_zero and lo == 0 else lo - pad), hi + pad


# A marker's radius plus half its outline and a pixel: how far its centre keeps from the edges.
_MARKER_ROOM = 5.5


def _room_for_markers(
    lo: float, hi: float, values: Sequence[float], log: bool, pixels: float, free: tuple[bool, bool]
) -> tuple[float, float]:
    """[lo, hi] widened on its free sides so a marker drawn at any of `values` lies wholly
    inside the plot box (the padding of domain() is a share of the span: on a log axis over
    decades, less than a marker's radius)."""

    def t(v: float) -> float:
        return math.log10(v) if log else v

    vs = [t(v) for v in values if math.isfinite(v) and (v > 0 or not log)]
    if not vs or pixels <= 2 * _MARKER_ROOM or (log and (lo <= 0 or hi <= 0)):
        return lo, hi
    a, b = t(lo), t(hi)
    for _ in range(4):  # widening the span widens the room a pixel needs: a few rounds settle
        need = (b - a) * _MARKER_ROOM / pixels
        a = min(a, min(vs) - need) if free[0] else a
        b = max(b, max(vs) + need) if free[1] else b
    return (10.0**a, 10.0**b) if log else (a, b)


def _auto_ticks(lo: float, hi: float, log: bool, target: int) -> list[tuple[float, str]]:
    values = nice_ticks(lo, hi, log, target)
    if log and len(values) < 3:  # a log axis spanning less than a decade: plain steps read better
        values = [v for v in nice_ticks(lo, hi, False, target) if v > 0]
    return list(zip(values, tick_labels(values), strict=True))


# Tick labels are 11 px (the report's CSS): a Latin character is at most ~0.6 em wide, a CJK
# one 1 em (two units); a line of text is ~13 px tall. Estimates on the generous side, so a
# label kept by the thinning below never touches its neighbour in a real browser.
TICK_UNIT = 6.8
TICK_LINE = 14.0
TICK_GAP = 4.0


def tick_width(label: str) -> float:
    return text_units(label) * TICK_UNIT


def readable_ticks(ticks: Sequence[tuple[float, float]], gap: float = TICK_GAP) -> set[int]:
    """Which of the ticks (centre, extent along the axis) keep their label so that no two
    labels overlap: from the last one (the unlimited load, the largest value) back, a label is
    kept when it clears the one kept before it. Dropped ticks keep their grid line."""
    order = sorted(range(len(ticks)), key=lambda k: ticks[k][0], reverse=True)
    kept: set[int] = set()
    edge = math.inf
    for k in order:
        centre, extent = ticks[k]
        if centre + extent / 2 + gap <= edge:
            kept.add(k)
            edge = centre - extent / 2
    return kept


@dataclass
class Line:
    """One series. `labels` (per point, optional) are written beside the markers; `tips` become
    hover tooltips (SVG <title>, no script needed)."""

    name: str
    points: list[tuple[float, float]]
    color: str = PALETTE[0]
    dash: str | None = None
    markers: bool = True
    connect: bool = True
    step: bool = False  # a step function (CDF): horizontal, then vertical
    labels: list[str] = field(default_factory=list)
    tips: list[str] = field(default_factory=list)
    width: float = 2.0
    # Neighbouring labels alternate above and below their marker so they do not overlap.
    alternate_labels: bool = False
    hollow: bool = False  # open markers: points that are not full measurements


@dataclass
class Rule:
    """A horizontal (axis 'y') or vertical (axis 'x') reference line with a label."""

    axis: str
    value: float
    label: str
    color: str = "#555555"
    dash: str = "5 4"
    label_row: int = 0  # vertical rules close together stagger their labels over rows


@dataclass
class Axis:
    label: str
    log: bool = False
    include_zero: bool = True
    # Explicit (value, text) ticks replace the automatic ones (e.g. concurrencies, "inf").
    ticks: list[tuple[float, str]] | None = None
    lo: float | None = None
    hi: float | None = None


def _legend(lines: Sequence[Line], chart_id: str, width: int) -> tuple[str, int]:
    """Legend entries in rows under the title, wrapped at the chart's width; (svg, rows)."""
    items = []
    x, row = float(LEFT), 0
    for i, line in enumerate(lines):
        if not line.name:
            continue
        item_width = 40 + 7.0 * text_units(line.name)
        if x > LEFT and x + item_width > width - RIGHT:
            x, row = float(LEFT), row + 1
        dash = f' stroke-dasharray="{a(line.dash)}"' if line.dash else ""
        items.append(
            f'<g class="legend-item" data-chart="{a(chart_id)}" data-series="{i}" '
            f'transform="translate({x:.1f},{24 + row * _LEGEND_ROW})" tabindex="0" role="button">'
            f"<title>{a(line.name)}</title>"
            + (
                f'<circle cx="9" cy="5" r="3.5" fill="#ffffff" stroke="{a(line.color)}" '
                'stroke-width="1.5"/>'
                if line.hollow
                else f'<line x1="0" y1="5" x2="18" y2="5" stroke="{a(line.color)}" '
                f'stroke-width="3"{dash}/>'
            )
            + f'<text x="23" y="9" class="legend-text">{a(line.name)}</text></g>'
        )
        x += item_width
    return "".join(items), (row + 1 if items else 0)


def _path(points: list[tuple[float, float]], step: bool) -> str:
    parts = []
    for j, (px, py) in enumerate(points):
        if j == 0:
            parts.append(f"M{px:.1f},{py:.1f}")
        elif step:
            parts.append(f"H{px:.1f}V{py:.1f}")
        else:
            parts.append(f"L{px:.1f},{py:.1f}")
    return "".join(parts)


def _grid(
    x: Axis,
    y: Axis,
    sx: Scale,
    sy: Scale,
    box: tuple[float, float, float, float],
    top: int,
    width: int,
    height: int,
) -> list[str]:
    """Grid lines, tick labels and axis labels."""
    x_lo, x_hi, y_lo, y_hi = box
    out: list[str] = []
    x_ticks = [
        (sx(v), text)
        for v, text in x.ticks or _auto_ticks(x_lo, x_hi, x.log, 6)
        if sx.drawable(v) and x_lo <= v <= x_hi
    ]
    x_named = readable_ticks([(px, tick_width(text)) for px, text in x_ticks])
    for k, (px, text) in enumerate(x_ticks):
        out.append(
            f'<line class="grid" x1="{px:.1f}" y1="{top}" x2="{px:.1f}" y2="{height - BOTTOM}"/>'
        )
        if k in x_named:
            out.append(
                f'<text class="tick" x="{px:.1f}" y="{height - BOTTOM + 15}" '
                f'text-anchor="middle">{a(text)}</text>'
            )
    y_ticks = [
        (sy(v), text)
        for v, text in y.ticks or _auto_ticks(y_lo, y_hi, y.log, 5)
        if sy.drawable(v) and y_lo <= v <= y_hi
    ]
    y_named = readable_ticks([(py, TICK_LINE) for py, _ in y_ticks])
    for k, (py, text) in enumerate(y_ticks):
        out.append(
            f'<line class="grid" x1="{LEFT}" y1="{py:.1f}" x2="{width - RIGHT}" y2="{py:.1f}"/>'
        )
        if k in y_named:
            out.append(
                f'<text class="tick" x="{LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">'
                f"{a(text)}</text>"
            )
    out.append(
        f'<text class="axis-label" x="{(LEFT + width - RIGHT) / 2:.0f}" y="{height - 8}" '
        f'text-anchor="middle">{a(x.label)}</text>'
        f'<text class="axis-label" transform="translate(14,{(top + height - BOTTOM) / 2:.0f}) '
        f'rotate(-90)" text-anchor="middle">{a(y.label)}</text>'
    )
    return out


def _rules(
    rules: Sequence[Rule], sx: Scale, sy: Scale, top: int, width: int, height: int
) -> list[str]:
    """Labelled reference lines across the plot (an SLO, a knee, a boundary)."""
    out: list[str] = []
    for rule in rules:
        if rule.axis == "y" and sy.drawable(rule.value):
            py = sy(rule.value)
            out.append(
                f'<g class="rule"><line x1="{LEFT}" y1="{py:.1f}" x2="{width - RIGHT}" '
                f'y2="{py:.1f}" stroke="{a(rule.color)}" stroke-dasharray="{a(rule.dash)}"/>'
                f'<text class="rule-label" x="{width - RIGHT - 4}" y="{py - 4:.1f}" '
                f'text-anchor="end" fill="{a(rule.color)}">{a(rule.label)}</text></g>'
            )
        elif rule.axis == "x" and sx.drawable(rule.value):
            px = sx(rule.value)
            out.append(
                f'<g class="rule"><line x1="{px:.1f}" y1="{top}" x2="{px:.1f}" '
                f'y2="{height - BOTTOM}" stroke="{a(rule.color)}" '
                f'stroke-dasharray="{a(rule.dash)}"/>'
                f'<text class="rule-label" x="{px + 4:.1f}" y="{top + 12 + 12 * rule.label_row}" '
                f'fill="{a(rule.color)}">{a(rule.label)}</text></g>'
            )
    return out


def _series(lines: Sequence[Line], sx: Scale, sy: Scale) -> list[str]:
    """Each line's path, markers (with their tooltips) and point labels."""
    out: list[str] = []
    for i, line in enumerate(lines):
        pts = [
            (sx(px), sy(py), j)
            for j, (px, py) in enumerate(line.points)
            if sx.drawable(px) and sy.drawable(py)
        ]
        out.append(f'<g class="series" data-series="{i}">')
        if line.connect and len(pts) > 1:
            dash = f' stroke-dasharray="{a(line.dash)}"' if line.dash else ""
            out.append(
                f'<path d="{_path([(p[0], p[1]) for p in pts], line.step)}" fill="none" '
                f'stroke="{a(line.color)}" stroke-width="{line.width}"{dash}/>'
            )
        if line.markers:
            for px, py, j in pts:
                tip = line.tips[j] if j < len(line.tips) else ""
                paint = (
                    f'class="marker hollow" fill="#ffffff" stroke="{a(line.color)}" '
                    'stroke-width="1.5"'
                    if line.hollow
                    else f'class="marker" fill="{a(line.color)}"'
                )
                out.append(
                    f'<circle {paint} cx="{px:.1f}" cy="{py:.1f}" r="3.5">'
                    + (f"<title>{a(tip)}</title>" if tip else "")
                    + "</circle>"
                )
        for k, (px, py, j) in enumerate(pts):
            if j < len(line.labels) and line.labels[j]:
                dy = 16 if line.alternate_labels and k % 2 else -6
                out.append(
                    f'<text class="point-label" x="{px + 6:.1f}" y="{py + dy:.1f}" '
                    f'fill="{a(line.color)}">{a(line.labels[j])}</text>'
                )
        out.append("</g>")
    return out


def line_chart(
    chart_id: str,
    title: str,
    lines: Sequence[Line],
    x: Axis,
    y: Axis,
    rules: Sequence[Rule] = (),
    width: int = WIDTH,
    height: int = HEIGHT,
) -> str:
    """A complete <svg> element. Points not drawable on a log axis (<= 0) are left out."""
    legend, rows = _legend(lines, chart_id, width)
    extra = max(0, rows - 1) * _LEGEND_ROW  # more legend rows: the plot moves down, not shrinks
    height += extra
    top = TOP + extra
    xs = [p[0] for line in lines for p in line.points]
    ys = [p[1] for line in lines for p in line.points]
    xs += [r.value for r in rules if r.axis == "x"]
    ys += [r.value for r in rules if r.axis == "y"]
    if x.ticks:
        xs += [t[0] for t in x.ticks]
    x_lo, x_hi = domain(xs, x.log, include_zero=x.include_zero)
    y_lo, y_hi = domain(ys, y.log, include_zero=y.include_zero)
    x_lo, x_hi = x.lo if x.lo is not None else x_lo, x.hi if x.hi is not None else x_hi
    y_lo, y_hi = y.lo if y.lo is not None else y_lo, y.hi if y.hi is not None else y_hi
    dots = [p for line in lines if line.markers for p in line.points]
    x_lo, x_hi = _room_for_markers(
        x_lo, x_hi, [p[0] for p in dots], x.log, width - LEFT - RIGHT, (x.lo is None, x.hi is None)
    )
    y_lo, y_hi = _room_for_markers(
        y_lo, y_hi, [p[1] for p in dots], y.log, height - top - BOTTOM, (y.lo is None, y.hi is None)
    )
    sx = Scale(x_lo, x_hi, LEFT, width - RIGHT, x.log)
    sy = Scale(y_lo, y_hi, height - BOTTOM, top, y.log)
    out = [
        f'<svg class="chart" id="{a(chart_id)}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{a(title)}">',
        f"<title>{a(title)}</title>",
        f'<text class="chart-title" x="{LEFT}" y="16">{a(title)}</text>',
        f'<rect x="{LEFT}" y="{top}" width="{width - LEFT - RIGHT}" '
        f'height="{height - top - BOTTOM}" class="plot-bg"/>',
    ]
    out += _grid(x, y, sx, sy, (x_lo, x_hi, y_lo, y_hi), top, width, height)
    out += _rules(rules, sx, sy, top, width, height)
    out.append(f'<g clip-path="url(#{a(chart_id)}-clip)">')
    out.append(
        f'<clipPath id="{a(chart_id)}-clip"><rect x="{LEFT}" y="{top - 4}" '
        f'width="{width - LEFT - RIGHT + 4}" height="{height - top - BOTTOM + 8}"/></clipPath>'
    )
    out += _series(lines, sx, sy)
    out.append("</g>")
    out.append(legend)
    out.append("</svg>")
    return "".join(out)
