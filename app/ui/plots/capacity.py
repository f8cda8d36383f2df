"""Capacity on the knee curves: SLO lines, the search's boundary, the knee, and the why.

The engine (app.bench.capacity.why) keeps the why's sentences in English and Chinese (the
console and the HTML report say the same); the window renders them in its own language from
the stored cause and figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt

from app.bench.capacity.knee import find_knee
from app.bench.capacity.why import render as render_why
from app.bench.results.naming import rate_from_file
from app.bench.results.point_row import PointRow
from app.bench.schema.point_blocks import PointBlocks, WhyBlock
from app.bench.schema.search_doc import SearchDoc
from app.ui import point_status
from app.ui.exports.report import ui_language
from app.ui.plots.sweep_curves import Series, SweepCurves, concurrency_value, sweep_axis
from app.ui.translate_noop import QT_TRANSLATE_NOOP

_STRINGS = (
    QT_TRANSLATE_NOOP("Why", "Capacity: {0} within every SLO; at {1} it fails {2}."),
    QT_TRANSLATE_NOOP("Why", "Capacity: {0} or more (every load tried met every SLO)."),
    QT_TRANSLATE_NOOP(
        "Why",
        "{0} prompts cannot hold more streams in flight, so no higher load was measured: "
        "raise Prompts per point to search higher.",
    ),
    QT_TRANSLATE_NOOP("Why", "Capacity: no load tried meets every SLO."),
    QT_TRANSLATE_NOOP("Why", "Why: {0}"),
    QT_TRANSLATE_NOOP("Why", "Why (from a full run at {0}, {1} requests): {2}"),
    QT_TRANSLATE_NOOP("Why", "Knee of {0}: {1}. {2}"),
    QT_TRANSLATE_NOOP("Why", "Not monotonic: {0} passed above a failing load; run again."),
    QT_TRANSLATE_NOOP("Why", "{0} streams"),
    QT_TRANSLATE_NOOP("Why", "{0} req/s"),
    QT_TRANSLATE_NOOP("Why", "SLO {0} ms"),
    QT_TRANSLATE_NOOP("Why", "capacity {0}"),
    QT_TRANSLATE_NOOP("Why", "knee"),
    QT_TRANSLATE_NOOP("Why", "pass"),
    QT_TRANSLATE_NOOP("Why", "FAIL"),
    QT_TRANSLATE_NOOP("Why", "meets every SLO"),
    QT_TRANSLATE_NOOP("Why", "fails an SLO"),
)

PASS_BG = "#c8ecd9"
FAIL_BG = "#f6cccc"
BOUNDARY_COLOUR = "#009E73"
KNEE_COLOUR = "#CC79A7"
SLO_COLOUR = "#D55E00"


def _tr(text: str) -> str:
    return QCoreApplication.translate("Why", text)


def why_text(why: WhyBlock | None) -> str:
    """The why sentence of a search document, in the window's language."""
    return render_why(why, ui_language())


def load_text(over: str, value: float) -> str:
    key = "{0} streams" if over == "concurrency" else "{0} req/s"
    return _tr(key).format(f"{value:g}")


def capacity_text(doc: SearchDoc, knees: bool = True) -> str:
    """Boundary, failing SLOs, the why and (with `knees`) the knees of a search document, one
    per line."""
    over = doc.over
    high, low = doc.boundary.highest_pass, doc.boundary.lowest_fail
    lines = []
    if high is not None and low is not None:
        failed = ", ".join(doc.boundary.failed_slos)
        lines.append(
            _tr("Capacity: {0} within every SLO; at {1} it fails {2}.").format(
                load_text(over, high), load_text(over, low), failed
            )
        )
    elif high is not None:
        lines.append(
            _tr("Capacity: {0} or more (every load tried met every SLO).").format(
                load_text(over, high)
            )
        )
        prompts = doc.settings.num_prompts
        if doc.fill_limit and prompts:
            lines.append(
                _tr(
                    "{0} prompts cannot hold more streams in flight, so no higher load was "
                    "measured: raise Prompts per point to search higher."
                ).format(prompts)
            )
    else:
        lines.append(_tr("Capacity: no load tried meets every SLO."))
    for passed in sorted({v.passed_at for v in doc.violations}):
        lines.append(
            _tr("Not monotonic: {0} passed above a failing load; run again.").format(
                load_text(over, passed)
            )
        )
    why = why_text(doc.boundary_why)
    full = doc.boundary_evidence
    if why and full is not None:
        # The boundary's search point was a fragment: the why comes from its full re-run.
        lines.append(
            _tr("Why (from a full run at {0}, {1} requests): {2}").format(
                load_text(over, full.value), full.num_requests, why
            )
        )
    elif why:
        lines.append(_tr("Why: {0}").format(why))
    for metric, knee in doc.knee.items() if knees else ():
        if knee is not None:
            lines.append(
                _tr("Knee of {0}: {1}. {2}").format(
                    f"{metric.upper()} P99", load_text(over, knee.load), why_text(knee.why)
                )
            )
    return "\n".join(lines)


@dataclass
class Marks:
    """What to draw on the knee curves beside the data."""

    slos: list[str] = field(default_factory=list)  # "metric:stat:ms"
    highest_pass: float | None = None
    lowest_fail: float | None = None
    knees: dict[str, float] = field(default_factory=dict)  # 'tpot' / 'ttft' -> load


def sweep_knees(points: Sequence[PointRow], axis: str) -> dict[str, float]:
    """Knees of TPOT p99 and TTFT p99 over a run's finished points (Kneedle,
    app.bench.capacity.knee)."""
    key = "request_rate" if axis == "rate" else "max_concurrency"
    to_value = rate_from_file if axis == "rate" else concurrency_value
    full = [p for p in points if not point_status.off_the_curve(p)]  # fragments: off the knees
    out = {}
    for metric in ("tpot", "ttft"):
        pairs = [
            (to_value(p.value(key)), y)
            for p in full
            if isinstance(y := p.value(f"p99_{metric}_ms"), int | float)
        ]
        pairs = [(x, float(y)) for x, y in pairs if math.isfinite(x)]
        knee = find_knee([x for x, _ in pairs], [y for _, y in pairs])
        if knee is not None:
            out[metric] = knee.load
    return out


def draw_marks(curves: SweepCurves, series: Sequence[Series], marks: Marks) -> None:
    """SLO lines, the capacity boundary and the knees on curves just drawn from `series`."""
    shown = [s for s in series if s.points]
    if not shown:
        return
    axis = sweep_axis(shown)
    key = "request_rate" if axis == "rate" else "max_concurrency"
    to_value = rate_from_file if axis == "rate" else concurrency_value
    values = sorted({to_value(p.value(key)) for s in shown for p in s.points})
    slot = {v: i for i, v in enumerate(values)}
    plots = {"tpot": curves.tpot, "ttft": curves.ttft}
    # Each chart's mark labels, most important first: the SLO's stays where it is, the
    # capacity's and then the knee's move up or down the line to a free place.
    labels: dict[pg.PlotWidget, list[pg.TextItem]] = {p: [] for p in curves.plots().values()}
    for item in marks.slos:
        metric, stat, limit = item.split(":")
        plot = plots.get(metric)
        if plot is None:
            continue
        line = pg.InfiniteLine(
            pos=float(limit),
            angle=0,
            pen=pg.mkPen(SLO_COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
            label=_tr("SLO {0} ms").format(f"{float(limit):g}") + f" ({stat})",
            labelOpts={"position": 0.05, "color": SLO_COLOUR, "anchors": [(0, 1), (0, 1)]},
        )
        plot.addItem(line, ignoreBounds=True)
        curves.mark_items.setdefault(plot, []).append(line)
        labels[plot].append(line.label)
    x = _boundary_x(slot, marks.highest_pass, marks.lowest_fail)
    if x is not None and marks.highest_pass is not None:
        for plot in (curves.throughput, curves.tpot, curves.ttft):
            boundary = pg.InfiniteLine(
                pos=x,
                angle=90,
                pen=pg.mkPen(BOUNDARY_COLOUR, width=2),
                label=_tr("capacity {0}").format(f"{marks.highest_pass:g}"),
                # Low on the line: the legend sits top left, the curves climb on the right.
                labelOpts={"position": 0.08, "color": BOUNDARY_COLOUR},
            )
            plot.addItem(boundary, ignoreBounds=True)
            curves.mark_items.setdefault(plot, []).append(boundary)
            labels[plot].append(boundary.label)
    for metric, load in marks.knees.items():
        plot = plots.get(metric)
        if plot is None or load not in slot:
            continue
        knee = pg.InfiniteLine(
            pos=float(slot[load]),
            angle=90,
            pen=pg.mkPen(KNEE_COLOUR, width=1.5, style=Qt.PenStyle.DotLine),
            label=_tr("knee"),
            labelOpts={"position": 0.75, "color": KNEE_COLOUR},
        )
        plot.addItem(knee, ignoreBounds=True)
        curves.mark_items.setdefault(plot, []).append(knee)
        labels[plot].append(knee.label)
    for plot, texts in labels.items():
        curves.declutter[plot].set_labels(texts, plot.getPlotItem().listDataItems())


def _boundary_x(slot: dict[float, int], high: float | None, low: float | None) -> float | None:
    """Between the highest pass and the lowest fail on the categorical axis."""
    if high is not None and high in slot and low is not None and low in slot:
        return (slot[high] + slot[low]) / 2
    if high is not None and high in slot:
        return slot[high] + 0.5
    if low is not None and low in slot:
        return slot[low] - 0.5
    return None


def slo_cell_colours(blocks: PointBlocks) -> dict[str, tuple[bool, str]]:
    """Table column key -> (passed, tooltip) for the statistics a point's SLOs judge, plus the
    concurrency cell for the point's overall verdict; empty without SLOs."""
    block = blocks.slo
    if block is None:
        return {}
    out: dict[str, tuple[bool, str]] = {}
    for check in block.checks:
        parts = check.slo.split(":")
        if check.kind != "stat" or len(parts) != 3:
            continue
        metric, stat, _limit = parts
        key = f"{'median' if stat in ('median', 'p50') else stat}_{metric}_ms"
        verdict = _tr("pass") if check.passed else _tr("FAIL")
        out[key] = (check.passed, f"SLO {check.slo}: {verdict}")
    overall = bool(block.passed)
    out["max_concurrency"] = (overall, _tr("meets every SLO") if overall else _tr("fails an SLO"))
    return out
