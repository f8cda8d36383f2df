"""The report's sweep-level charts: knee curves over load, the roofline floor with each point's
measured TPOT and MBU, and the server's /metrics timeline across the points."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from app.bench.schema.point_blocks import NO_ROOFLINE
from app.jsonfile import number
from app.report.model import ReportPoint
from app.report.slo_view import knee_notes, knees, slo_rules
from app.report.svg import Axis, Line, Rule, color, exact_tick, line_chart
from app.report.text import text
from app.roofline.catalog import CatalogError
from app.roofline.scenario import BATCH_GRID, Scenario


@dataclass
class LoadAxis:
    """Where each point sits on the knee curves' x axis, and how the axis is labelled."""

    kind: str  # 'concurrency' | 'rate'
    x: list[float]  # per point, same order as the points
    ticks: list[tuple[float, str]]
    log: bool


def load_axis(points: Sequence[ReportPoint], lang: str) -> LoadAxis:
    """'rate' when every point holds concurrency fixed and varies the rate, else 'concurrency'
    (the window's rule). Unlimited (inf / none) sits one doubling past the largest finite value."""
    concs = {rp.point.max_concurrency for rp in points}
    rates = {rp.point.request_rate for rp in points}
    kind = "rate" if len(concs) <= 1 and len(rates) > 1 else "concurrency"
    raw: list[float] = []
    for rp in points:
        if kind == "rate":
            raw.append(rp.point.request_rate)
        else:
            c = rp.point.max_concurrency
            raw.append(math.inf if c is None else float(c))
    finite_x = [v for v in raw if math.isfinite(v)]
    top = max(finite_x, default=1.0)
    unlimited = top * 2 if finite_x else 1.0
    xs = [v if math.isfinite(v) else unlimited for v in raw]
    word = text(lang, "inf" if kind == "rate" else "none_conc")
    ticks = sorted(
        {(x, exact_tick(x) if math.isfinite(r) else word) for x, r in zip(xs, raw, strict=True)}
    )
    positive = all(x > 0 for x in xs)
    log = positive and len(set(xs)) > 1 and max(xs) / min(xs) >= 8
    if len(ticks) > 12:
        ticks = []  # too many to label one by one: automatic ticks
    return LoadAxis(kind, xs, ticks, log)


def _groups(points: Sequence[ReportPoint], kind: str, lang: str) -> list[tuple[str, list[int]]]:
    """Points that form one curve: same label and the same value of the other load knob."""
    groups: dict[tuple[object, object], list[int]] = {}
    for i, rp in enumerate(points):
        knob = rp.point.max_concurrency if kind == "rate" else rp.point.request_rate
        groups.setdefault((rp.point.label, knob), []).append(i)
    labels = {k[0] for k in groups}
    others = {k[1] for k in groups}
    out = []
    for (label, other), idx in groups.items():
        words = []
        if len(labels) > 1:
            words.append(str(label or "run"))
        if len(others) > 1:
            if kind == "rate":
                words.append(text(lang, "w_conc", value="none" if other is None else other))
            else:
                rate = float(other) if isinstance(other, int | float) else math.inf
                value = exact_tick(rate) if math.isfinite(rate) else "inf"
                words.append(text(lang, "w_rate", value=value))
        out.append((" ".join(words), idx))
    return out


def _latency_lines(
    points: Sequence[ReportPoint],
    axis: LoadAxis,
    groups: list[tuple[str, list[int]]],
    metric: str,
    lang: str,
) -> tuple[list[Line], list[float]]:
    """P50 (solid) and P99 (dashed) of `metric` per group over load, the roofline floor under
    TPOT; and every value drawn (for the log-scale choice)."""
    lines: list[Line] = []
    values: list[float] = []
    named = False
    for g, (name, idx) in enumerate(groups):
        idx = sorted(idx, key=lambda i: axis.x[i])
        cut = [i for i in idx if points[i].off_curve]
        idx = [i for i in idx if not points[i].off_curve]
        if cut:  # fragments: open markers off the curve, P50 and P99 alike
            pts, tips = [], []
            for i in cut:
                for stat, word in (("median", "P50"), ("p99", "P99")):
                    v = points[i].metric(metric, stat)
                    if v is not None:
                        pts.append((axis.x[i], v))
                        values.append(v)
                        tips.append(f"{points[i].short}: {metric.upper()} {word} {v:.2f} ms")
            label = "" if named else text(lang, "fragment_line")
            named = named or bool(pts)
            lines.append(Line(label, pts, color(g), connect=False, hollow=True, tips=tips))
        for stat, dash in (("median", None), ("p99", "6 4")):
            pts, tips = [], []
            for i in idx:
                v = points[i].metric(metric, stat)
                if v is None:
                    continue  # a point with no successful request has no latency to draw
                pts.append((axis.x[i], v))
                values.append(v)
                word = "P50" if stat == "median" else "P99"
                tips.append(f"{points[i].short}: {metric.upper()} {word} {v:.2f} ms")
            word = "P50" if stat == "median" else "P99"
            lines.append(Line(f"{name} {word}".strip(), pts, color(g), dash=dash, tips=tips))
    if metric == "tpot":
        floor = [
            (axis.x[i], f)
            for i in sorted(range(len(points)), key=lambda i: axis.x[i])
            if (roof := points[i].roofline()) is not None
            and (f := number(roof.floor_tpot_ms)) is not None
        ]
        if floor:
            lines.append(
                Line(text(lang, "floor_line"), floor, "#555555", dash="2 3", markers=False)
            )
    return lines, values


def _throughput_chart(
    points: Sequence[ReportPoint],
    axis: LoadAxis,
    groups: list[tuple[str, list[int]]],
    x_label: str,
    lang: str,
) -> str:
    lines = []
    named = False
    for g, (name, idx) in enumerate(groups):
        idx = sorted(idx, key=lambda i: axis.x[i])
        for cut in (False, True):  # the curve, then its fragments as open markers off it
            members = [i for i in idx if points[i].off_curve == cut]
            pts = [
                (axis.x[i], v)
                for i in members
                if (v := points[i].point.output_throughput) is not None
            ]
            tips = [
                f"{points[i].short}: {points[i].point.output_throughput:.1f} tok/s"
                for i in members
                if points[i].point.output_throughput is not None
            ]
            if not cut:
                lines.append(Line(name, pts, color(g), tips=tips))
            elif pts:
                label = "" if named else text(lang, "fragment_line")
                named = True
                lines.append(Line(label, pts, color(g), connect=False, hollow=True, tips=tips))
    return line_chart(
        "knee-throughput",
        text(lang, "chart_tput"),
        lines,
        Axis(x_label, axis.log, include_zero=False, ticks=axis.ticks or None),
        Axis(text(lang, "y_tput")),
    )


def knee_charts(points: Sequence[ReportPoint], lang: str) -> tuple[list[str], str]:
    """TPOT, TTFT (P50 solid, P99 dashed; SLO lines, knees) and output throughput over load,
    and the sentences naming the knees; ([], "") for fewer than two loads."""
    if len(points) < 2:
        return [], ""
    axis = load_axis(points, lang)
    if len(set(axis.x)) < 2:
        return [], ""
    x_label = text(lang, "x_conc" if axis.kind == "concurrency" else "x_rate")
    groups = _groups(points, axis.kind, lang)
    found = knees([(name, [points[i] for i in idx]) for name, idx in groups], axis.kind)
    charts = []
    for metric, title_key, y_key in (
        ("tpot", "chart_tpot", "y_tpot"),
        ("ttft", "chart_ttft", "y_ttft"),
    ):
        lines, values = _latency_lines(points, axis, groups, metric, lang)
        rules = slo_rules(points, metric, lang)
        for name, knee_metric, knee in found:
            if knee_metric == metric:
                label = text(lang, "knee_rule", load=exact_tick(knee.load))
                rules.append(Rule("x", knee.load, f"{name} {label}".strip(), "#6a3d9a", "4 3"))
        positive = [v for v in values if v > 0]
        log_y = bool(positive) and max(positive) / min(positive) > 50
        charts.append(
            line_chart(
                f"knee-{metric}",
                text(lang, title_key),
                lines,
                Axis(x_label, axis.log, include_zero=False, ticks=axis.ticks or None),
                Axis(text(lang, y_key), log_y, include_zero=not log_y),
                rules,
            )
        )
    charts.append(_throughput_chart(points, axis, groups, x_label, lang))
    notes = knee_notes(found, axis.kind, lang)
    if any(rp.off_curve for rp in points):
        notes += f'<p class="note fragment-note">{escape(text(lang, "fragment_note"))}</p>'
    return charts, notes


def _measured(
    members: Sequence[ReportPoint],
) -> tuple[list[tuple[float, float]], list[str], list[str]]:
    """Each point with a batch and a TPOT P50 at (batch, TPOT), by batch, with its label
    (name and MBU) and tooltip."""
    measured: list[tuple[float, float]] = []
    labels, tips = [], []
    for rp in sorted(members, key=lambda r: number((r.roofline() or NO_ROOFLINE).batch) or 0):
        if rp.off_curve:  # a fragment's batch and TPOT are not the point's load
            continue
        roof = rp.roofline() or NO_ROOFLINE
        batch, tpot = number(roof.batch), number(roof.tpot_p50_ms)
        if batch is None or tpot is None:
            continue
        mbu = number(roof.mbu)
        floor = number(roof.floor_tpot_ms)
        measured.append((max(batch, 1.0), tpot))
        mbu_text = f"{mbu:.0%}" if mbu is not None else "–"
        labels.append(f"{rp.short} · {mbu_text}")
        floor_text = f"{floor:.2f}" if floor is not None else "–"
        tips.append(
            f"{rp.short}: batch {batch:g}, TPOT P50 {tpot:.2f} ms, floor {floor_text} ms, "
            f"MBU {mbu_text}"
        )
    return measured, labels, tips


def roofline_charts(points: Sequence[ReportPoint], lang: str) -> list[tuple[str, str]]:
    """(chart, caption) per roofline context: the floor over batch and each measured point at
    its batch, labelled with its concurrency and MBU."""
    contexts: dict[tuple[str, str, str, str, int], list[ReportPoint]] = {}
    for rp in points:
        roof = rp.roofline()
        key = roof.ids if roof is not None else None
        if key is not None:
            contexts.setdefault(key, []).append(rp)
    out = []
    for n, (key, members) in enumerate(contexts.items()):
        gpu_id, model_id, fmt, kv, context = key
        measured, labels, tips = _measured(members)
        top = max([b for b, _ in measured] + [16.0])
        grid = tuple(b for b in BATCH_GRID if b <= max(64, top * 4))
        lines = []
        try:
            scenario = Scenario.from_ids(gpu_id, model_id, fmt, kv, context)
        except (CatalogError, KeyError, ValueError, OSError):
            scenario = None  # a custom GPU or model this machine does not know: points only
        if scenario is not None:
            floor = [(float(b), ms) for b, ms in scenario.floor_curve(grid)]
            lines.append(Line(text(lang, "floor_line"), floor, "#555555", markers=False))
            gpu_name, model_name = scenario.gpu.name, scenario.model.id
        else:
            gpu_name, model_name = gpu_id, model_id
        lines.append(
            Line(
                text(lang, "measured"),
                measured,
                color(0),
                connect=False,
                labels=labels,
                tips=tips,
                alternate_labels=True,
            )
        )
        chart = line_chart(
            f"roofline-{n}",
            text(lang, "roof_chart", gpu=gpu_name, model=model_name, fmt=fmt),
            lines,
            Axis(
                text(lang, "x_batch"),
                log=True,
                include_zero=False,
                ticks=[
                    (float(b), str(b))
                    for b in grid
                    if b in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
                ],
            ),
            Axis(text(lang, "y_tpot"), log=True, include_zero=False),
        )
        out.append((chart, text(lang, "roof_caption", context=context)))
    return out


SERVER_SERIES = (
    ("kv_cache_usage", "s_kv", 100.0),
    ("running", "s_running", 1.0),
    ("waiting", "s_waiting", 1.0),
)


def server_charts(points: Sequence[ReportPoint], lang: str) -> list[str]:
    """One chart per gauge; the points' series laid end to end, a dashed line where each point
    starts (the scrape clock restarts at every point)."""
    spans: list[tuple[ReportPoint, float, dict[str, list[float | None]]]] = []
    offset = 0.0
    for rp in points:
        server = rp.server()
        series = server.series if server is not None else None
        if series is None or "t_s" not in series:
            continue
        times = [number(t) for t in series["t_s"]]
        last = max([t for t in times if t is not None] + [0.0])
        spans.append((rp, offset, series))
        offset += max(last, rp.point.duration_s or 0.0)
    if not spans:
        return []
    charts = []
    samples = sum(len(series.get("t_s") or []) for _, _, series in spans)
    few = samples <= 40  # markers (hover targets) while they do not crowd the line
    for key, title_key, scale in SERVER_SERIES:
        lines: list[Line] = []
        rules: list[Rule] = []
        for rp, start, series in spans:
            times, values = series.get("t_s") or [], series.get(key) or []
            pts = [
                (start + t, v * scale)
                for t_raw, v_raw in zip(times, values, strict=False)
                if (t := number(t_raw)) is not None and (v := number(v_raw)) is not None
            ]
            tips = [f"{rp.short}: {y:.3g} @ {x - start:.1f} s" for x, y in pts]
            # A gauge holds its value until the next scrape: steps, not slopes between samples.
            lines.append(Line("", pts, color(0), markers=few, step=True, tips=tips, width=1.6))
            rules.append(Rule("x", start, rp.short, "#888888", "3 3", label_row=len(rules) % 3))
        charts.append(
            line_chart(
                f"server-{key}",
                text(lang, title_key),
                lines,
                Axis(text(lang, "x_time")),
                Axis(text(lang, title_key)),
                rules,
                height=220,
            )
        )
    return charts
