"""The report's SLO verdicts (per point and per SLO, as the files recorded them), the boundary
between passing and failing loads, a capacity search's summary, and the knee of each curve."""

from __future__ import annotations

import math
from collections.abc import Sequence

from app.bench.capacity.knee import Knee, sweep_knees
from app.bench.capacity.slo import MAX_FAILED_SHARE, Verdict, point_verdict, recorded_slos
from app.bench.capacity.why import render as render_why
from app.bench.schema.point_blocks import SloCheck
from app.bench.schema.search_doc import SearchDoc
from app.jsonfile import number
from app.report.model import ReportPoint
from app.report.svg import Rule, a, exact_tick
from app.report.text import text

DASH = "–"


def _ms(value: float) -> str:
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def check_title(check: SloCheck, lang: str) -> str:
    """'tpot:p99:40' -> 'TPOT p99 ≤ 40 ms'; the goodput and failed-request checks in words."""
    label = check.slo
    if check.kind == "failed_share":
        return f"{text(lang, 'chk_failed')} ≤ {number(check.bound) or 0:.0%}"
    if check.kind == "good_share":
        return f"{text(lang, 'chk_good')} ≥ {number(check.bound) or 0:.0%}"
    parts = label.split(":")
    if len(parts) == 3:
        return f"{parts[0].upper()} {parts[1]} ≤ {parts[2]} ms"
    return label


def check_cell(check: SloCheck) -> tuple[str, bool]:
    passed = check.passed
    value = number(check.measured)
    if check.kind == "stat":
        shown = _ms(value) if value is not None else DASH
    else:
        shown = f"{value:.1%}" if value is not None else DASH
    return f"{shown} {'✓' if passed else '✗'}", passed


def _where(rp: ReportPoint) -> str:
    return rp.short


def boundary_text(points: Sequence[ReportPoint], verdicts: list[Verdict | None], lang: str) -> str:
    """Along the sweep's order by load: the highest passing and lowest failing point."""
    judged = [(rp, v) for rp, v in zip(points, verdicts, strict=True) if v is not None]
    if len(judged) < 2:
        return ""
    judged.sort(key=lambda item: _load(item[0]))
    passes = [rp for rp, v in judged if v.passed]
    fails = [(rp, v) for rp, v in judged if not v.passed]
    lines = []
    if not passes:
        lines.append(text(lang, "boundary_none"))
    elif not fails:
        lines.append(text(lang, "boundary_high_only", high=_where(passes[-1])))
    else:
        low_rp, low_v = fails[0]
        failed = ", ".join(check_title(c, lang) for c in low_v.checks if not c.passed)
        lines.append(
            text(lang, "boundary_line", high=_where(passes[-1]), low=_where(low_rp), failed=failed)
        )
        later = [
            f"{_where(f)} ✗ < {_where(p)} ✓"
            for f, _ in fails
            for p in passes
            if _load(p) > _load(f)
        ]
        if later:
            lines.append(text(lang, "boundary_not_monotonic", pairs="; ".join(later[:3])))
    return "".join(f'<p class="note verdict-line">{a(line)}</p>' for line in lines)


def _load(rp: ReportPoint) -> tuple[float, float]:
    conc = rp.point.max_concurrency
    return (math.inf if conc is None else float(conc), rp.point.request_rate)


def search_summary(doc: SearchDoc, name: str, lang: str) -> str:
    """A capacity search's boundary and its why, as `tpotbench search` wrote them."""
    boundary = doc.boundary
    word = "w_conc" if doc.over == "concurrency" else "w_rate"
    high, low = number(boundary.highest_pass), number(boundary.lowest_fail)
    failed = ", ".join(boundary.failed_slos)
    if high is not None:
        line = text(
            lang,
            "search_line",
            # Loads the search chose: every digit they need (0.0125, not the ticks' 0.013).
            high=text(lang, word, value=exact_tick(high)),
            low=text(lang, word, value=exact_tick(low)) if low is not None else DASH,
            failed=failed or DASH,
        )
    else:
        line = text(lang, "search_none", reason=doc.stop_reason or DASH)
    parts = [f"<h3>{a(text(lang, 'search_title', file=name))}</h3>", f"<p>{a(line)}</p>"]
    prompts = doc.settings.num_prompts
    if doc.fill_limit and low is None and prompts:
        parts.append(f'<p class="note">{a(text(lang, "search_fill", prompts=prompts))}</p>')
    sentence = render_why(doc.boundary_why, lang)
    if sentence:
        parts.append(f'<p class="note why">{a(text(lang, "why", text=sentence))}</p>')
    full = doc.boundary_evidence
    if full is not None and number(full.value) is not None:
        value = exact_tick(float(full.value))
        parts.append(
            '<p class="note">'
            + a(
                text(
                    lang,
                    "why_evidence",
                    value=text(lang, word, value=value),
                    requests=full.num_requests,
                    seconds=float(full.measuring_s),
                )
            )
            + "</p>"
        )
    return "".join(parts)


def slo_section(
    points: Sequence[ReportPoint], lang: str, searches: Sequence[tuple[str, SearchDoc]] = ()
) -> str:
    """Verdicts per point when the files recorded SLOs; else vLLM-style goodput shares."""
    verdicts = [point_verdict(rp.point) for rp in points]
    parts = [search_summary(doc, name, lang) for name, doc in searches]
    if any(v is not None for v in verdicts):
        parts.append(_verdict_table(points, verdicts, lang))
        parts.append(boundary_text(points, verdicts, lang))
    else:
        parts.append(_goodput_table(points, lang))
    return "".join(parts)


def _verdict_table(points: Sequence[ReportPoint], verdicts: list[Verdict | None], lang: str) -> str:
    titles: list[str] = []
    for v in verdicts:
        for check in v.checks if v else ():
            title = check_title(check, lang)
            if title not in titles:
                titles.append(title)
    slos = next((recorded_slos(rp.point) for rp in points if recorded_slos(rp.point)), None)
    described = []
    if slos is not None:
        described = [f"{s.metric.upper()} {s.stat} ≤ {s.limit_ms:g} ms" for s in slos.limits]
        if slos.per_request:
            pairs = ", ".join(f"{k.upper()} ≤ {v:g} ms" for k, v in slos.per_request.items())
            described.append(f"goodput: {pairs}")
    head = "".join(
        f"<th>{a(h)}</th>"
        for h in [
            text(lang, "col_point"),
            text(lang, "col_verdict"),
            *titles,
            text(lang, "col_goodput"),
        ]
    )
    rows = []
    for rp, verdict in zip(points, verdicts, strict=True):
        if verdict is None:
            cells = [f'<td class="num">{DASH}</td>'] * (len(titles) + 1)
        else:
            word = text(lang, "pass" if verdict.passed else "fail")
            css = "status-ok" if verdict.passed else "status-bad"
            cells = [f'<td class="{css}">{a(word)}</td>']
            by_title = {check_title(c, lang): c for c in verdict.checks}
            for title in titles:
                titled = by_title.get(title)
                if titled is None:
                    cells.append(f'<td class="num">{DASH}</td>')
                    continue
                shown, ok = check_cell(titled)
                cells.append(
                    f'<td class="num {"status-ok" if ok else "status-bad"}">{a(shown)}</td>'
                )
        slo = rp.point.blocks.slo
        goodput = number(slo.request_goodput) if slo is not None else None
        if goodput is None:
            goodput = rp.point.request_goodput
        cells.append(
            f'<td class="num">{a(f"{goodput:,.2f}" if goodput is not None else DASH)}</td>'
        )
        rows.append(f"<tr><td>{a(rp.name)}</td>{''.join(cells)}</tr>")
    caption = text(
        lang, "slo_caption", limits="; ".join(described) or DASH, failed=f"{MAX_FAILED_SHARE:.0%}"
    )
    return (
        f'<p class="note">{a(caption)}</p><table class="slo"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _goodput_table(points: Sequence[ReportPoint], lang: str) -> str:
    rows = []
    for rp in points:
        slos = rp.point.blocks.goodput_slos_ms
        if not slos:
            continue
        limits = ", ".join(f"{k.upper()} ≤ {v:g} ms" for k, v in slos.items() if number(v))
        good, tput = rp.point.request_goodput, rp.point.request_throughput
        share = good / tput if good is not None and tput else None
        cells = [
            f"<td>{a(rp.name)}</td>",
            f"<td>{a(limits)}</td>",
            f'<td class="num">{a(f"{good:,.2f}" if good is not None else DASH)}</td>',
            f'<td class="num">{a(f"{share:.1%}" if share is not None else DASH)}</td>',
        ]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    if not rows:
        return f'<p class="note">{a(text(lang, "slo_none"))}</p>'
    head = "".join(
        f"<th>{a(text(lang, k))}</th>"
        for k in ("col_point", "col_slos", "col_goodput", "col_good_share")
    )
    return (
        f'<p class="note">{a(text(lang, "slo_goodput_caption"))}</p>'
        f'<table class="slo"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def slo_rules(points: Sequence[ReportPoint], metric: str, lang: str) -> list[Rule]:
    """Horizontal SLO lines for a latency chart: the recorded statistic limits on `metric`,
    else a vLLM-style per-request (goodput) limit."""
    rules: list[Rule] = []
    seen: set[tuple[str, float]] = set()
    for rp in points:
        for slo in recorded_slos(rp.point).limits:
            if slo.metric == metric and (slo.stat, slo.limit_ms) not in seen:
                seen.add((slo.stat, slo.limit_ms))
                label = f"SLO {metric.upper()} {slo.stat} ≤ {slo.limit_ms:g} ms"
                rules.append(Rule("y", slo.limit_ms, label, "#b00020"))
    if rules:
        return rules
    for rp in points:
        slos = rp.point.blocks.goodput_slos_ms
        limit = number(slos.get(metric)) if slos else None
        if limit is not None:
            label = text(lang, "slo_line", metric=metric.upper(), value=exact_tick(limit))
            return [Rule("y", limit, label, "#b00020")]
    return []


def knees(
    groups: Sequence[tuple[str, list[ReportPoint]]], over: str
) -> list[tuple[str, str, Knee]]:
    """(group name, metric, knee) for every curve of three or more full points."""
    out = []
    for name, members in groups:
        full = [rp.point for rp in members if not rp.off_curve]  # fragments are off the curve
        loads = {p.max_concurrency if over == "concurrency" else p.request_rate for p in full}
        if len(loads) < 3:
            continue
        for metric, knee in sweep_knees(full, over).items():
            if knee is not None:
                out.append((name, metric, knee))
    return out


def knee_notes(found: Sequence[tuple[str, str, Knee]], over: str, lang: str) -> str:
    lines = []
    for name, metric, knee in found:
        where = text(
            lang, "w_conc" if over == "concurrency" else "w_rate", value=exact_tick(knee.load)
        )
        line = text(
            lang, "knee_line", metric=metric.upper(), where=where, value=f"{knee.value:,.1f}"
        )
        lines.append(f"{name}: {line}" if name else line)
    return "".join(f'<p class="note knee-line">{a(line)}</p>' for line in lines)
