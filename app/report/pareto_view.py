"""The report's Pareto section: per-user output tokens/s against output tokens/s per GPU, one
point per load, the measured frontier, the roofline's frontier and each point's gap to it."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from app.report.model import ReportPoint
from app.report.svg import Axis, Line, color, line_chart
from app.report.text import text
from app.roofline.pareto import (
    ParetoPoint,
    hardware_frontier,
    names_together,
    pareto_front,
    point_from_row,
    same_place,
)
from app.roofline.scenario import Scenario

HARDWARE_COLOUR = "#555555"


def pareto_points(points: Sequence[ReportPoint]) -> list[tuple[ReportPoint, ParetoPoint]]:
    """Each whole point that has a TPOT P50 and a throughput: a fragment (early-stopped,
    cancelled) covers only its first requests, and a point run at fewer streams than it names
    would pass for a load it never sustained."""
    out = []
    for rp in points:
        if rp.off_curve:
            continue
        found = point_from_row(rp.short, rp.point.row)
        if found is not None:
            out.append((rp, found))
    return out


def _hardware_lines(points: Sequence[ReportPoint], lang: str) -> list[Line]:
    """The roofline's frontier for each distinct context the points recorded."""
    lines = []
    seen: set[tuple[object, ...]] = set()
    for rp in points:
        roof = rp.roofline()
        ids = roof.ids if roof is not None else None
        if roof is None or ids is None:
            continue
        try:
            scenario = Scenario.from_ids(*ids)
        except (KeyError, TypeError, ValueError, OSError):
            continue  # ids this machine's catalogue does not know: a custom GPU or model
        gpus = roof.gpus
        key = (scenario.gpu.id, scenario.model.id, scenario.fmt.id, scenario.kv.id,
               scenario.context, gpus)  # fmt: skip
        if key in seen:
            continue
        seen.add(key)
        frontier = hardware_frontier(scenario, gpus)
        name = text(lang, "pareto_hw", gpu=scenario.gpu.name, n=gpus, fmt=scenario.fmt.id)
        tips = [
            text(lang, "pareto_hw_tip", b=p.batch, user=p.user_tok_s, gpu=p.gpu_tok_s)
            for p in frontier
        ]
        lines.append(
            Line(
                name,
                [(p.user_tok_s, p.gpu_tok_s) for p in frontier],
                HARDWARE_COLOUR,
                dash="6 3",
                tips=tips,
                # A few batches named: all thirteen crowd the steep memory-bound stretch.
                labels=[
                    f"b={p.batch}" if p.batch in (1, 8, 64) or k == len(frontier) - 1 else ""
                    for k, p in enumerate(frontier)
                ],
                width=1.6,
            )
        )
    return lines


def pareto_chart(found: Sequence[tuple[ReportPoint, ParetoPoint]], lang: str) -> str:
    """The chart: the hardware's frontier, a dotted gap from each point to the hardware at its
    batch, the measured points and their frontier."""
    lines = _hardware_lines([rp for rp, _ in found], lang)
    for _rp, p in found:
        if p.hardware is not None:
            hw = p.hardware
            lines.append(
                Line(
                    "",
                    [(p.user_tok_s, p.gpu_tok_s), (hw.user_tok_s, hw.gpu_tok_s)],
                    "#999999",
                    dash="1 3",
                    markers=False,
                    width=1.0,
                )
            )
    xy = [(p.user_tok_s, p.gpu_tok_s) for _, p in found]
    front = pareto_front(xy)
    # Points at the same place share one label naming them all (two were written over each
    # other); each marker keeps its own tooltip.
    labels = [""] * len(found)
    for group in same_place(xy):
        names = [found[i][0].short for i in group]
        labels[group[0]] = names_together(
            names, text(lang, "pareto_times"), text(lang, "pareto_names_sep")
        )
    lines.append(
        Line(
            text(lang, "pareto_front"),
            [xy[i] for i in front],
            color(1),
            markers=False,
            width=2.0,
        )
    )
    lines.append(
        Line(
            text(lang, "pareto_measured"),
            xy,
            color(0),
            connect=False,
            labels=labels,
            tips=[_tip(rp, p, lang) for rp, p in found],
            alternate_labels=True,
        )
    )
    gpu_tok = [y for line in lines for _, y in line.points if y > 0]
    user_tok = [x for line in lines for x, _ in line.points if x > 0]
    log_y = bool(gpu_tok) and max(gpu_tok) / min(gpu_tok) > 20
    # Headroom above and to the right, so the labels of the outermost points stay inside.
    top = max(gpu_tok, default=1.0) * (1.6 if log_y else 1.1)
    return line_chart(
        "pareto",
        text(lang, "pareto_chart"),
        lines,
        Axis(text(lang, "x_user"), hi=max(user_tok, default=1.0) * 1.1),
        Axis(text(lang, "y_gpu"), log_y, include_zero=not log_y, hi=top),
        height=360,
    )


def _tip(rp: ReportPoint, p: ParetoPoint, lang: str) -> str:
    tip = text(lang, "pareto_tip", point=rp.short, user=p.user_tok_s, gpu=p.gpu_tok_s)
    if p.hardware is not None and p.user_share is not None and p.gpu_share is not None:
        tip += " · " + text(
            lang,
            "pareto_gap_tip",
            b=p.hardware.batch,
            user=p.user_share,
            gpu=p.gpu_share,
        )
    return tip


def _cell(value: str, numeric: bool = True) -> str:
    cls = ' class="num"' if numeric else ""
    return f"<td{cls}>{escape(value)}</td>"


def pareto_table(found: Sequence[tuple[ReportPoint, ParetoPoint]], lang: str) -> str:
    """One row per point: its two rates, the hardware's at its batch, the shares, on the front."""
    front = set(pareto_front([(p.user_tok_s, p.gpu_tok_s) for _, p in found]))
    rows = []
    for i, (rp, p) in enumerate(found):
        hw = p.hardware
        dash = "–"
        rows.append(
            "<tr>"
            + _cell(rp.name, numeric=False)
            + _cell(f"{p.user_tok_s:.1f}")
            + _cell(f"{p.gpu_tok_s:.1f}")
            + _cell(f"{p.batch:g}" if p.batch is not None else dash)
            + _cell(f"{hw.user_tok_s:.1f}" if hw else dash)
            + _cell(f"{hw.gpu_tok_s:.1f}" if hw else dash)
            + _cell(f"{p.user_share:.0%}" if p.user_share is not None else dash)
            + _cell(f"{p.gpu_share:.0%}" if p.gpu_share is not None else dash)
            + _cell("✓" if i in front else "", numeric=False)
            + "</tr>"
        )
    head = "".join(
        f"<th>{escape(text(lang, k))}</th>"
        for k in (
            "col_point",
            "col_user",
            "col_gpu",
            "col_batch",
            "col_hw_user",
            "col_hw_gpu",
            "col_user_share",
            "col_gpu_share",
            "col_front",
        )
    )
    return (
        f'<table class="pareto"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def pareto_section(points: Sequence[ReportPoint], lang: str) -> str:
    """The chart, the definitions under it and the table; a note when no point can be placed."""
    found = pareto_points(points)
    if not found:
        return f'<p class="note">{escape(text(lang, "pareto_none"))}</p>'
    note = text(lang, "pareto_note")
    if not any(p.hardware for _, p in found):
        note += " " + text(lang, "pareto_no_hw")
    return (
        f'<div class="charts"><figure>{pareto_chart(found, lang)}'
        f'<figcaption class="note">{escape(note)}</figcaption></figure></div>'
        + pareto_table(found, lang)
    )
