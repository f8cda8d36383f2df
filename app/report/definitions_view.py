"""The report's "Every tool's definitions" section: each point's TPOT, ITL and throughput as
vLLM, GuideLLM, AIPerf, SGLang and evalscope define them, with a switch between the tools."""

from __future__ import annotations

from collections.abc import Sequence

from app.bench.metrics.definitions import TOOL_NAMES, point_definitions
from app.report.model import ReportPoint
from app.report.svg import a

_TEXT: dict[str, tuple[str, str]] = {
    "title": ("Every tool's definitions", "各工具的指标定义"),
    "intro": (
        "The same requests under each tool's own definitions of TPOT, ITL and throughput "
        "(names as the tool prints them; sources in the README). Pick a tool:",
        "同一批请求按各工具自己的 TPOT、ITL 与吞吐定义计算（名称与各工具输出一致；"
        "出处见 README）。选择工具：",
    ),
    "point": ("Point", "测试点"),
    "figure": ("Figure (tool's name)", "指标（工具原名）"),
    "mean": ("Mean", "均值"),
    "median": ("Median", "中位数"),
    "p99": ("P99", "P99"),
    "weighting": ("Weighting", "加权方式"),
    "formula": ("Formula", "公式"),
    "needs": ("needs --save-detailed", "需要 --save-detailed"),
}


def _t(lang: str, key: str) -> str:
    en, zh = _TEXT[key]
    return zh if lang == "zh_CN" else en


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:,.2f}"


def definitions_section(points: Sequence[ReportPoint], lang: str, tools: Sequence[str]) -> str:
    """One table per tool, the first shown; a select switches (inline script, no network)."""
    if not tools:
        return ""
    options = "".join(f'<option value="{t}">{a(TOOL_NAMES[t])}</option>' for t in tools)
    heads = ("point", "figure", "mean", "median", "p99", "weighting", "formula")
    head = "".join(f"<th>{a(_t(lang, h))}</th>" for h in heads)
    tables = []
    for i, tool in enumerate(tools):
        rows = []
        for rp in points:
            for fig in point_definitions(rp.point.doc, rp.point.duration_s, [tool]):
                if fig.missing:
                    missing = _t(lang, "needs") if "save-detailed" in fig.missing else fig.missing
                    values = f'<td colspan="3" class="status-warn">{a(missing)}</td>'
                else:
                    values = "".join(
                        f'<td class="num">{_num(fig.values.get(s))}</td>'
                        for s in ("mean", "median", "p99")
                    )
                rows.append(
                    f"<tr><td>{a(rp.name)}</td><td>{a(fig.name)} ({a(fig.unit)})</td>{values}"
                    f"<td>{a(fig.weighting)}</td><td>{a(fig.formula)}</td></tr>"
                )
        hidden = "" if i == 0 else ' style="display:none"'
        tables.append(
            f'<table class="definitions" data-tool="{tool}"{hidden}><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
    script = (
        "<script>document.getElementById('definitions-tool').addEventListener('change',"
        "function(e){document.querySelectorAll('table.definitions').forEach(function(t){"
        "t.style.display=t.dataset.tool===e.target.value?'':'none';});});</script>"
    )
    return (
        f'<section id="definitions"><h2>{a(_t(lang, "title"))}</h2>'
        f'<p class="note">{a(_t(lang, "intro"))} '
        f'<select id="definitions-tool">{options}</select></p>{"".join(tables)}{script}</section>'
    )
