"""The report as one HTML document: inline CSS, inline SVG, a few lines of inline script for legend
toggles and the point picker, and a Content-Security-Policy that forbids loading anything."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from app import __version__
from app.bench.results.load_warnings import LoadWarning
from app.bench.results.naming import rate_label
from app.bench.schema.point_blocks import NO_ROOFLINE
from app.bench.schema.search_doc import SearchDoc
from app.jsonfile import number
from app.report.curves import knee_charts, roofline_charts, server_charts
from app.report.definitions_view import definitions_section
from app.report.distributions import cdf_charts, point_panels
from app.report.model import ReportPoint, RunMeta, run_meta
from app.report.pareto_view import pareto_section
from app.report.slo_view import slo_section
from app.report.svg import a
from app.report.text import text

DASH = "–"  # a figure the file does not hold

# Nothing may be fetched: a report must look the same on a laptop on a plane.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; font-src data:"
)

# Latin faces first, then CJK faces present on each platform (WenQuanYi on Linux desktops).
FONTS = (
    'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, '
    '"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", '
    '"Microsoft YaHei", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", sans-serif'
)

CSS = """
body { font-family: %(fonts)s; margin: 0 auto; max-width: 1320px; padding: 16px 24px 40px;
  color: #1d1d1f; background: #fff; line-height: 1.45; }
h1 { font-size: 24px; margin: 8px 0 2px; } h2 { font-size: 19px; margin: 28px 0 8px;
  border-bottom: 1px solid #ddd; padding-bottom: 4px; } h3 { font-size: 15px; margin: 16px 0 6px; }
.sub { color: #555; margin: 0 0 12px; }
table { border-collapse: collapse; font-size: 13px; margin-top: 10px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; }
th { background: #f3f4f6; text-align: left; font-weight: 600; }
table.points td { white-space: nowrap; } th { min-width: 3.2em; }
figure { margin: 0; }
svg .chart-title { font-size: 13px; font-weight: 600; fill: #1d1d1f; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.meta th { width: 190px; } table.meta td { min-width: 420px; }
.points-wrap { overflow-x: auto; }
tr.failures td { background: #fff7e6; } tr.partial td { background: #fdecec; }
tr.partial td { font-style: italic; } tr.load-warned td { background: #fff3f3; }
.status-ok { color: #1a7f37; } .status-warn { color: #9a6700; } .status-bad { color: #b00020;
  font-weight: 600; }
.note { color: #555; font-size: 13px; margin: 6px 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 12px; }
svg.chart { width: 100%%; height: auto; background: #fff; border: 1px solid #e5e5e5;
  font-family: %(fonts)s; }
svg .plot-bg { fill: #fcfcfd; stroke: #ccc; } svg .grid { stroke: #ececec; }
svg .tick { font-size: 11px; fill: #444; } svg .axis-label { font-size: 12px; fill: #222; }
svg .legend-text { font-size: 12px; fill: #222; } svg .legend-item { cursor: pointer; }
svg .legend-item.off { opacity: 0.3; } svg g.series.off { display: none; }
svg .point-label { font-size: 11px; } svg .rule-label { font-size: 11px; }
svg .marker:hover { r: 6; } svg .bar:hover { opacity: 0.7; }
.picker { margin: 10px 0; } .picker select { font: inherit; padding: 2px 6px; }
footer { margin-top: 32px; color: #666; font-size: 12px; }
"""

SCRIPT = """
(function () {
  document.querySelectorAll('.legend-item').forEach(function (item) {
    function toggle() {
      var svg = document.getElementById(item.getAttribute('data-chart'));
      var off = item.classList.toggle('off');
      var g = svg && svg.querySelector('g.series[data-series="' +
        item.getAttribute('data-series') + '"]');
      if (g) { g.classList.toggle('off', off); }
    }
    item.addEventListener('click', toggle);
    item.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); toggle(); }
    });
  });
  var pick = document.getElementById('point-pick');
  if (pick) {
    var show = function () {
      document.querySelectorAll('.point-panel').forEach(function (panel) {
        panel.hidden = panel.getAttribute('data-point') !== pick.value;
      });
    };
    pick.addEventListener('change', show);
    show();
  }
})();
"""


def fmt(value: float | int | None, decimals: int) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    return f"{value:,.{decimals}f}"


def _td(value: str, numeric: bool = True, cls: str = "", title: str = "") -> str:
    classes = " ".join(c for c in ("num" if numeric else "", cls) if c)
    attrs = (f' class="{classes}"' if classes else "") + (f' title="{a(title)}"' if title else "")
    return f"<td{attrs}>{a(value)}</td>"


def load_sentence(warning: LoadWarning, lang: str) -> str:
    """A load warning's sentence in the report's language."""
    return text(lang, "lw_" + warning.template, **warning.params)


def load_warnings_list(points: Sequence[ReportPoint], lang: str) -> str:
    """Every point whose load did not happen as planned, with why (empty when none)."""
    items = [
        f'<li class="load-warning" data-kind="{a(w.kind)}"><b>{a(rp.name)}</b>: '
        f"{a(load_sentence(w, lang))}</li>"
        for rp in points
        for w in rp.point.load_warnings
    ]
    if not items:
        return ""
    return f'<h3>{a(text(lang, "load_title"))}</h3><ul class="load-warnings">{"".join(items)}</ul>'


def meta_table(meta: RunMeta, lang: str) -> str:
    def joined(values: Sequence[object]) -> str:
        return ", ".join(str(v) for v in values) if values else text(lang, "unknown")

    dates = " → ".join(meta.dates) if meta.dates else text(lang, "unknown")
    rows = [
        ("endpoint", joined(meta.endpoints)),
        ("api", joined(meta.apis)),
        ("model", joined(meta.models)),
        ("gpu", joined(meta.gpus)),
        ("weights", joined(meta.formats)),
        ("server", joined(meta.servers)),
        ("app_version", joined(meta.writers)),
        ("run_date", dates),
        ("run_id", joined(meta.run_ids)),
        ("labels", joined(meta.labels)),
        ("dataset", joined(meta.datasets)),
        ("prompts", joined(meta.prompts)),
        ("n_points", str(len(meta.files) or DASH)),
    ]
    body = "".join(f"<tr><th>{a(text(lang, k))}</th><td>{a(v)}</td></tr>" for k, v in rows)
    files = ", ".join(meta.files)
    body += f"<tr><th>{a(text(lang, 'files'))}</th><td>{a(files or DASH)}</td></tr>"
    return f'<table class="meta">{body}</table>'


_COLUMNS: tuple[tuple[str, Callable[[ReportPoint], float | None], int], ...] = (
    ("col_reqs", lambda rp: rp.point.request_throughput, 2),
    ("col_out", lambda rp: rp.point.output_throughput, 1),
    ("col_ttft50", lambda rp: rp.metric("ttft", "median"), 1),
    ("col_ttft99", lambda rp: rp.metric("ttft", "p99"), 1),
    ("col_tpot50", lambda rp: rp.metric("tpot", "median"), 2),
    ("col_tpot99", lambda rp: rp.metric("tpot", "p99"), 2),
    ("col_itl99", lambda rp: rp.metric("itl", "p99"), 2),
    ("col_e2el50", lambda rp: rp.metric("e2el", "median"), 0),
)


def points_table(points: Sequence[ReportPoint], lang: str) -> str:
    heads = ["col_point", "col_rate", "col_conc", "col_ok", "col_failed", "col_status"]
    heads += [key for key, _, _ in _COLUMNS] + ["col_floor", "col_mbu"]
    head = "".join(f"<th>{a(text(lang, h))}</th>" for h in heads)
    rows = []
    for rp in points:
        p = rp.point
        status, n = rp.status()
        css = {"st_ok": "status-ok", "st_failures": "status-warn"}.get(status, "status-bad")
        row_class = "failures" if status == "st_failures" else ""
        row_class = "partial" if rp.cancelled else row_class
        done = rp.point.completeness
        planned = "?" if done.planned is None else done.planned
        status_words = text(lang, status, n=n, ran=done.ran, planned=planned)
        warnings = rp.point.load_warnings
        if warnings:  # the load did not happen as planned: said in the row, explained below
            status_words += " · ⚠ " + text(lang, "st_load")
            css = "status-bad" if css == "status-ok" else css
            row_class = row_class or "load-warned"
        status_tip = "\n".join(load_sentence(w, lang) for w in warnings)
        rate = text(lang, "inf") if math.isinf(p.request_rate) else rate_label(p.request_rate)
        conc = text(lang, "none_conc") if p.max_concurrency is None else str(p.max_concurrency)
        failed = str(p.failed) if p.failed is not None else DASH
        file_name = p.path.name if p.path else ""
        cells = [
            f'<td title="{a(file_name)}">{a(rp.name)}</td>',
            _td(rate),
            _td(conc),
            _td(str(p.completed)),
            _td(failed),
            _td(status_words, numeric=False, cls=css, title=status_tip),
        ]
        cells += [_td(fmt(get(rp), d)) for _, get, d in _COLUMNS]
        roof = rp.roofline() or NO_ROOFLINE
        mbu = number(roof.mbu)
        cells += [
            _td(fmt(number(roof.floor_tpot_ms), 2)),
            _td(f"{mbu:.1%}" if mbu is not None else DASH),
        ]
        attr = f' class="{row_class}"' if row_class else ""
        rows.append(f'<tr{attr} data-point="{a(rp.name)}">{"".join(cells)}</tr>')
    return (
        f'<div class="points-wrap"><table class="points"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def failures_list(points: Sequence[ReportPoint], lang: str) -> str:
    items = []
    for rp in points:
        for group in rp.point.blocks.failures:
            title = group.title or group.kind or "?"
            fix = group.fix
            items.append(
                f"<li><b>{a(rp.name)}</b>: {a(group.count)} × {a(title)}"
                + (f" — {a(fix)}" if fix else "")
                + "</li>"
            )
    if not items:
        return ""
    return f'<h3>{a(text(lang, "failures_title"))}</h3><ul class="failures">{"".join(items)}</ul>'


def stamping_list(points: Sequence[ReportPoint], lang: str) -> str:
    """How the points' token times were stamped (kernel, loop, tls-record), kind by kind,
    with the points' own reason where it is more than the kind's usual one (a proxy)."""
    kinds: dict[str, tuple[int, list[str], set[str]]] = {}
    for rp in points:
        for entry in rp.point.blocks.stamping:
            kind = entry.kind or "?"
            n, names, whys = kinds.get(kind, (0, [], set()))
            names.append(rp.name)
            if entry.why:
                whys.add(entry.why)
            kinds[kind] = (n + entry.requests, names, whys)
    if not kinds:
        return ""
    items = []
    for kind, (n, names, whys) in sorted(kinds.items(), key=lambda item: -item[1][0]):
        try:
            what = text(lang, f"stamp_{kind}")
        except KeyError:
            what = kind
        where = text(lang, "stamp_count", n=n, points=", ".join(names))
        # a reason beyond the kind's usual one (a proxy, missing kernel stamps) in its words
        extra = [w for w in sorted(whys) if "proxy" in w or "no stamp" in w]
        items.append(
            f'<li data-stamping="{a(kind)}">{a(what)} — {a(where)}'
            + "".join(f" ({a(w)})" for w in extra)
            + "</li>"
        )
    return f'<h3>{a(text(lang, "stamp_title"))}</h3><ul class="stamping">{"".join(items)}</ul>'


def distributions_section(points: Sequence[ReportPoint], lang: str) -> str:
    cdfs = cdf_charts(points, lang)
    if not cdfs:
        return f'<p class="note">{a(text(lang, "dist_none"))}</p>'
    parts = [f'<div class="charts">{"".join(cdfs)}</div>']
    missing = [rp.name for rp in points if not rp.samples.has_any]
    if missing:
        parts.append(
            f'<p class="note">{a(text(lang, "dist_missing", points=", ".join(missing)))}</p>'
        )
    panels = point_panels(points, lang)
    options = "".join(f'<option value="{p.index}">{a(p.name)}</option>' for p in panels)
    parts.append(
        f'<div class="picker"><label for="point-pick">{a(text(lang, "pick_point"))}</label> '
        f'<select id="point-pick">{options}</select></div>'
    )
    for panel in panels:
        parts.append(
            f'<div class="point-panel" data-point="{panel.index}"><h3>{a(panel.name)}</h3>'
            f'<p class="note">{a(panel.caption)}</p>'
            f'<div class="charts">{"".join(panel.charts)}</div></div>'
        )
    return "".join(parts)


def roofline_section(points: Sequence[ReportPoint], lang: str) -> str:
    charts = roofline_charts(points, lang)
    if not charts:
        return f'<p class="note">{a(text(lang, "roof_none"))}</p>'
    rows = []
    for rp in points:
        roof = rp.roofline()
        if roof is None:
            continue
        source = roof.batch_source
        source_key = f"src_{source}"
        try:
            source_text = text(lang, source_key)
        except KeyError:
            source_text = str(source or DASH)
        mbu = number(roof.mbu)
        rows.append(
            "<tr>"
            + _td(rp.name, numeric=False)
            + _td(fmt(number(roof.batch), 1))
            + _td(source_text, numeric=False)
            + _td(fmt(number(roof.floor_tpot_ms), 2))
            + _td(fmt(number(roof.tpot_p50_ms), 2))
            + _td(f"{mbu:.1%}" if mbu is not None else DASH)
            + "</tr>"
        )
    head = "".join(
        f"<th>{a(text(lang, k))}</th>"
        for k in ("col_point", "col_batch", "col_batch_src", "col_floor", "col_tpot50", "col_mbu")
    )
    body = "".join(
        f'<figure>{chart}<figcaption class="note">{a(caption)}</figcaption></figure>'
        for chart, caption in charts
    )
    return (
        f'<div class="charts">{body}</div>'
        f'<table class="roofline"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
        "</table>"
    )


def server_section(points: Sequence[ReportPoint], lang: str) -> str:
    charts = server_charts(points, lang)
    errors = [
        text(lang, "server_error", point=rp.name, error=s.error)
        for rp in points
        if (s := rp.server()) is not None and s.error
    ]
    if not charts and not errors:
        return f'<p class="note">{a(text(lang, "server_none"))}</p>'
    rows = []
    for rp in points:
        s = rp.server()
        if s is None or s.error:
            continue
        kv = number(s.kv_cache_usage.max) if s.kv_cache_usage else None
        running = number(s.running.mean) if s.running else None
        waiting = number(s.waiting.max) if s.waiting else None
        ttft = number(s.server_ttft_ms.mean) if s.server_ttft_ms else None
        itl = number(s.server_itl_ms.mean) if s.server_itl_ms else None
        rows.append(
            "<tr>"
            + _td(rp.name, numeric=False)
            + _td(f"{kv:.1%}" if kv is not None else DASH)
            + _td(fmt(running, 2))
            + _td(fmt(waiting, 0))
            + _td(fmt(number(s.preemptions), 0))
            + _td(fmt(ttft, 1))
            + _td(fmt(itl, 2))
            + "</tr>"
        )
    head = "".join(
        f"<th>{a(text(lang, k))}</th>"
        for k in (
            "col_point",
            "col_kv_max",
            "col_run_mean",
            "col_wait_max",
            "s_preempt",
            "col_srv_ttft",
            "col_srv_itl",
        )
    )
    parts = [f'<div class="charts">{"".join(charts)}</div>'] if charts else []
    if rows:
        parts.append(
            f'<table class="server"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
            "</table>"
        )
    parts += [f'<p class="note">{a(e)}</p>' for e in errors]
    return "".join(parts)


def _sections(
    points: Sequence[ReportPoint],
    meta: RunMeta,
    lang: str,
    searches: Sequence[tuple[str, SearchDoc]],
    definitions: Sequence[str] = (),
) -> str:
    """The document's sections in order, each with its heading."""
    knees, knee_text = knee_charts(points, lang)
    sections = [
        ("meta", "sec_meta", meta_table(meta, lang)),
        (
            "points",
            "sec_points",
            points_table(points, lang)
            + f'<p class="note">{a(text(lang, "null_note"))}</p>'
            + (
                f'<p class="note">{a(text(lang, "vllm_note", n=meta.vllm_files))}</p>'
                if meta.vllm_files
                else ""
            )
            + load_warnings_list(points, lang)
            + failures_list(points, lang)
            + stamping_list(points, lang),
        ),
        ("slo", "sec_slo", slo_section(points, lang, searches)),
        (
            "knee",
            "sec_knee",
            f'<div class="charts">{"".join(knees)}</div>{knee_text}'
            if knees
            else f'<p class="note">{a(text(lang, "knee_none"))}</p>',
        ),
        ("pareto", "sec_pareto", pareto_section(points, lang)),
        ("distributions", "sec_dist", distributions_section(points, lang)),
        ("roofline", "sec_roofline", roofline_section(points, lang)),
        ("server", "sec_server", server_section(points, lang)),
    ]
    html = [
        f'<section id="{sid}"><h2>{a(text(lang, key))}</h2>{content}</section>'
        for sid, key, content in sections
    ]
    html.insert(2, definitions_section(points, lang, definitions))
    return "".join(html)


def render(
    points: Sequence[ReportPoint],
    lang: str = "en",
    now: datetime | None = None,
    searches: Sequence[tuple[str, SearchDoc]] = (),
    definitions: Sequence[str] = (),
) -> str:
    """The whole document for `points` in `lang` ('en' or 'zh_CN'), with the summaries of any
    capacity searches (file name, search.json document) that produced them."""
    meta = run_meta(points)
    now = now or datetime.now(UTC)
    title = text(lang, "title")
    subtitle = " · ".join(str(v) for v in (meta.models[:1] + meta.gpus[:1] + meta.dates[-1:]) if v)
    body = _sections(points, meta, lang, searches, definitions)
    generated = text(
        lang,
        "generated",
        version=__version__,
        date=now.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )
    header = (
        f'<header><h1>{a(title)}</h1><p class="sub">{a(subtitle)}</p>'
        f'<p class="note">{a(text(lang, "toggle_hint"))}</p></header>'
    )
    return page(lang, f"{title} — {subtitle}", header + body, generated, SCRIPT)


def page(lang: str, title: str, body: str, footer: str, script: str = "") -> str:
    """A whole self-contained page in the report's style: the CSP forbids loading anything."""
    html_lang = "zh-CN" if lang == "zh_CN" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{html_lang}"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{a(title)}</title>"
        f"<style>{CSS % {'fonts': FONTS}}</style></head><body>"
        f"{body}<footer>{a(footer)}</footer>"
        + (f"<script>{script}</script>" if script else "")
        + "</body></html>\n"
    )
