"""Capacity on the knee curves: SLO lines, the search's boundary, the knee, and the why.

The engine (app.bench.capacity.why) says why in English from a template key and parameters;
the window translates the same templates here, so the sentence reads in the user's language with the
measured figures filled in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt

from app.bench.capacity.knee import find_knee
from app.bench.results.naming import rate_from_file
from app.ui import point_status
from app.ui.plots.sweep_curves import Series, SweepCurves, concurrency_value, sweep_axis

WHY_TEMPLATES: dict[str, str] = {
    "client": QT_TRANSLATE_NOOP(
        "Why",
        "The client is the limit, not the server: TPOT Bench used {cpu:.0%} of a CPU core and "
        "its event loop ran {lag:.0f} ms late (median), so its timestamps are at risk; use "
        "a faster machine or fewer concurrent streams per process.",
    ),
    "kv": QT_TRANSLATE_NOOP(
        "Why",
        "The KV cache is full: usage peaked at {kv:.0%} with {preemptions:g} preemptions, so "
        "the server evicts and recomputes requests; more KV memory (FP8 KV cache, higher "
        "--gpu-memory-utilization) or shorter contexts move the limit.",
    ),
    "queue": QT_TRANSLATE_NOOP(
        "Why",
        "Requests queue inside the server: on average {waiting:.1f} waited (peak {peak:g}) "
        "while {running:.0f} ran, so TTFT grows with the queue; the scheduler's limit "
        "(--max-num-seqs) or the KV cache caps the batch.",
    ),
    "bandwidth": QT_TRANSLATE_NOOP(
        "Why",
        "Decode is bandwidth-bound: TPOT p50 {tpot:.1f} ms at batch {batch:.0f} is "
        "×{ratio:.2f} the roofline floor of {floor:.1f} ms (MBU {mbu:.0%}); only faster memory "
        "or fewer bytes per step (smaller weights, FP8 KV) move it.",
    ),
    "compute": QT_TRANSLATE_NOOP(
        "Why",
        "Decode is compute-bound: TPOT p50 {tpot:.1f} ms at batch {batch:.0f} is ×{ratio:.2f} "
        "the roofline floor of {floor:.1f} ms, which the GPU's FLOP/s set at this batch; a "
        "smaller batch or a faster GPU moves it.",
    ),
    "chunked_prefill": QT_TRANSLATE_NOOP(
        "Why",
        "Decode steps are stretched by prefill: ITL p99 {itl_p99:.0f} ms is ×{ratio:.1f} the "
        "median {itl_p50:.1f} ms, as new prompts' chunks share steps with running decodes; a "
        "smaller --max-num-batched-tokens evens it out.",
    ),
    "prefill": QT_TRANSLATE_NOOP(
        "Why",
        "TTFT is spent in prefill: p99 {ttft_p99:.0f} ms for {prompt:.0f}-token prompts "
        "(median {ttft_p50:.0f} ms) with no queue in the server; shorter prompts or "
        "prefix caching lower it.",
    ),
    "unknown": QT_TRANSLATE_NOOP(
        "Why",
        "No single cause stands out: {failed} is over its limit, yet the KV cache, the "
        "server's queue, the roofline floor and the spread of ITL all look ordinary; measure "
        "again (--runs 3) to tell a real limit from noise.",
    ),
    "unknown_blind": QT_TRANSLATE_NOOP(
        "Why",
        "No single cause stands out in the measurements: {failed} is over its limit; scrape "
        "/metrics (--scrape-metrics) and set the roofline (--gpu) for more evidence.",
    ),
}
ESTIMATE = QT_TRANSLATE_NOOP(
    "Why",
    "Estimate from the roofline, not a measurement: {fmt} weights lower the floor at batch "
    "{batch:.0f} from {floor:.1f} to {new_floor:.1f} ms; the bandwidth-bound part of the limit "
    "would move by about ×{gain:.1f}.",
)
_STRINGS = (
    QT_TRANSLATE_NOOP("Why", "Capacity: {0} within every SLO; at {1} it fails {2}."),
    QT_TRANSLATE_NOOP("Why", "Capacity: {0} or more (every load tried met every SLO)."),
    QT_TRANSLATE_NOOP("Why", "Capacity: no load tried meets every SLO."),
    QT_TRANSLATE_NOOP("Why", "Why: {0}"),
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


def why_text(why: Mapping[str, Any] | None) -> str:
    """The why sentence of a search document, in the window's language."""
    if not why or why.get("cause") not in WHY_TEMPLATES:
        return ""
    try:
        text = _tr(WHY_TEMPLATES[why["cause"]]).format(**(why.get("params") or {}))
        if why.get("estimate"):
            text += " " + _tr(ESTIMATE).format(**why["estimate"])
    except (KeyError, ValueError, TypeError):  # a file from another version: its own English
        return str(why.get("text") or "")
    return text


def load_text(over: str, value: float) -> str:
    key = "{0} streams" if over == "concurrency" else "{0} req/s"
    return _tr(key).format(f"{value:g}")


def capacity_text(doc: Mapping[str, Any], knees: bool = True) -> str:
    """Boundary, failing SLOs, the why and (with `knees`) the knees of a search document, one
    per line."""
    over = str(doc.get("over") or "concurrency")
    boundary = doc.get("boundary") or {}
    high, low = boundary.get("highest_pass"), boundary.get("lowest_fail")
    lines = []
    if high is not None and low is not None:
        failed = ", ".join(boundary.get("failed_slos") or [])
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
    else:
        lines.append(_tr("Capacity: no load tried meets every SLO."))
    for passed in sorted({v["pass"] for v in doc.get("violations") or []}):
        lines.append(
            _tr("Not monotonic: {0} passed above a failing load; run again.").format(
                load_text(over, passed)
            )
        )
    why = why_text(doc.get("boundary_why"))
    if why:
        lines.append(_tr("Why: {0}").format(why))
    for metric, knee in (doc.get("knee") or {}).items() if knees else ():
        if knee:
            lines.append(
                _tr("Knee of {0}: {1}. {2}").format(
                    f"{metric.upper()} P99", load_text(over, knee["load"]), why_text(knee["why"])
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


def sweep_knees(points: Sequence[Mapping[str, Any]], axis: str) -> dict[str, float]:
    """Knees of TPOT p99 and TTFT p99 over a run's finished points (Kneedle,
    app.bench.capacity.knee)."""
    key = "request_rate" if axis == "rate" else "max_concurrency"
    to_value = rate_from_file if axis == "rate" else concurrency_value
    full = [p for p in points if not point_status.off_the_curve(p)]  # fragments: off the knees
    out = {}
    for metric in ("tpot", "ttft"):
        pairs = [
            (to_value(p.get(key)), p.get(f"p99_{metric}_ms"))
            for p in full
            if isinstance(p.get(f"p99_{metric}_ms"), int | float)
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
    values = sorted({to_value(p.get(key)) for s in shown for p in s.points})
    slot = {v: i for i, v in enumerate(values)}
    plots = {"tpot": curves.tpot, "ttft": curves.ttft}
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
    x = _boundary_x(slot, marks.highest_pass, marks.lowest_fail)
    if x is not None and marks.highest_pass is not None:
        for plot in (curves.throughput, curves.tpot, curves.ttft):
            plot.addItem(
                pg.InfiniteLine(
                    pos=x,
                    angle=90,
                    pen=pg.mkPen(BOUNDARY_COLOUR, width=2),
                    label=_tr("capacity {0}").format(f"{marks.highest_pass:g}"),
                    # Low on the line: the legend sits top left, the curves climb on the right.
                    labelOpts={"position": 0.08, "color": BOUNDARY_COLOUR},
                ),
                ignoreBounds=True,
            )
    for metric, load in marks.knees.items():
        plot = plots.get(metric)
        if plot is None or load not in slot:
            continue
        plot.addItem(
            pg.InfiniteLine(
                pos=float(slot[load]),
                angle=90,
                pen=pg.mkPen(KNEE_COLOUR, width=1.5, style=Qt.PenStyle.DotLine),
                label=_tr("knee"),
                labelOpts={"position": 0.75, "color": KNEE_COLOUR},
            ),
            ignoreBounds=True,
        )


def _boundary_x(slot: dict[float, int], high: float | None, low: float | None) -> float | None:
    """Between the highest pass and the lowest fail on the categorical axis."""
    if high is not None and high in slot and low is not None and low in slot:
        return (slot[high] + slot[low]) / 2
    if high is not None and high in slot:
        return slot[high] + 0.5
    if low is not None and low in slot:
        return slot[low] - 0.5
    return None


def slo_cell_colours(summary: Mapping[str, Any]) -> dict[str, tuple[bool, str]]:
    """Table column key -> (passed, tooltip) for the statistics a point's SLOs judge, plus the
    concurrency cell for the point's overall verdict; empty without SLOs."""
    block = (summary.get("tpotbench") or {}).get("slo")
    if not isinstance(block, dict):
        return {}
    out: dict[str, tuple[bool, str]] = {}
    for check in block.get("checks") or []:
        label = str(check.get("slo") or "")
        parts = label.split(":")
        if check.get("kind") != "stat" or len(parts) != 3:
            continue
        metric, stat, _limit = parts
        key = f"{'median' if stat in ('median', 'p50') else stat}_{metric}_ms"
        verdict = _tr("pass") if check.get("passed") else _tr("FAIL")
        out[key] = (bool(check.get("passed")), f"SLO {label}: {verdict}")
    overall = bool(block.get("passed"))
    out["max_concurrency"] = (overall, _tr("meets every SLO") if overall else _tr("fails an SLO"))
    return out
