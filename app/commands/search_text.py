"""The lines under `tpotbench search`'s table (capacity, monotonicity, why, knees, time) in
English or Chinese, as the why under them is rendered (`--lang`).

The search keeps its stop reason as an English sentence (search.json's `stop_reason`); the
Chinese lines say the ones the search writes in Chinese, read back from the figures in them,
and quote any other as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.bench.schema.search_doc import SearchDoc, SearchPoint

# key: (English, 简体中文); placeholders are str.format names.
LINES: dict[str, tuple[str, str]] = {
    "streams": ("{value} streams", "{value} 路并发"),
    "rate": ("{value} req/s", "{value} 请求/秒"),
    "capacity": (
        "Capacity: {high} within every SLO; at {low} it fails {failed}.",
        "容量：{high} 满足全部 SLO；到 {low} 时未通过 {failed}。",
    ),
    "capacity_top": (
        "Capacity: {high} within every SLO (the highest load tried).",
        "容量：{high} 满足全部 SLO（尝试过的最高负载）。",
    ),
    "capacity_why": (
        "Capacity: {high} within every SLO ({reason}).",
        "容量：{high} 满足全部 SLO（{reason}）。",
    ),
    "capacity_none": (
        "Capacity: no load tried meets every SLO ({reason}).",
        "容量：尝试过的负载都不满足全部 SLO（{reason}）。",
    ),
    "not_monotonic": (
        "Warning: not monotonic: {pairs}; measure again with --runs 3.",
        "警告：结果不单调：{pairs}；请用 --runs 3 重新测量。",
    ),
    "violation": (
        "{passed} passed above failing {failed}",
        "{passed} 在未通过的 {failed} 之上反而通过",
    ),
    "why": ("Why: {text}", "原因：{text}"),
    "why_full": (
        "Why (from a full run at {load}: {requests} requests, {seconds:.1f} s): {text}",
        "原因（取自在 {load} 处的一次完整测量：{requests} 个请求，{seconds:.1f} 秒）：{text}",
    ),
    "knee": (
        "Knee of {metric} p99: {load} ({value:.1f} ms). {text}",
        "{metric} p99 的拐点：{load}（{value:.1f} ms）。{text}",
    ),
    "measuring": (
        "Measuring time: {seconds:.1f} s over {loads} loads.",
        "测量用时：{seconds:.1f} 秒，共 {loads} 个负载。",
    ),
    "separator": ("; ", "；"),
    # The line per load value on stderr while the search runs.
    "progress": (
        "search: {value} -> {decision}{failed}{note}; boundary {span}",
        "搜索：{value} → {decision}{failed}{note}；边界 {span}",
    ),
    "pass": ("pass", "通过"),
    "fail": ("fail", "未通过"),
    "marginal": ("marginal", "临界"),
    "progress_failed": (" failed {slos}", "：{slos}"),
    "progress_early": (" (stopped early: {reason})", "（提前停止：{reason}）"),
}

_NUMBER = r"(\S+?)"
# The stop reasons app.bench.capacity.search writes, and their Chinese.
_REASONS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (
        re.compile(rf"^every load up to --max {_NUMBER} met the SLOs$"),
        lambda m: f"直到 --max {m[1]} 的每个负载都满足 SLO",
    ),
    (
        re.compile(
            rf"^every load up to {_NUMBER} met the SLOs; --num-prompts (\d+) cannot fill more "
            r"streams, so no higher load was measured \(raise --num-prompts to search higher\)$"
        ),
        lambda m: (
            f"直到 {m[1]} 的每个负载都满足 SLO；--num-prompts {m[2]} 无法填满更多并发流，"
            "因此没有测量更高的负载（调大 --num-prompts 才能搜索更高负载）"
        ),
    ),
    (
        re.compile(rf"^no request succeeded at {_NUMBER}; see the failures above$"),
        lambda m: f"在 {m[1]} 处没有一个请求成功；请看上面的失败",
    ),
    (
        re.compile(
            r"^even 1 stream fails (.+): no concurrency meets these SLOs on this server "
            r"\(relax the SLOs, or shorten the prompts or replies\)$"
        ),
        lambda m: (
            f"即使 1 路并发也未通过 {m[1]}：这台服务器上没有能满足这些 SLO 的并发数"
            "（放宽 SLO，或缩短提示词或回复）"
        ),
    ),
    (
        re.compile(rf"^the lowest load \({_NUMBER}\) already fails (.+); lower --start$"),
        lambda m: f"最低负载（{m[1]}）已经未通过 {m[2]}；请调低 --start",
    ),
    (re.compile(r"^cancelled$"), lambda m: "已取消"),
]


def say(lang: str, key: str, **values: Any) -> str:
    """One line of LINES in 'en' or 'zh_CN'."""
    en, zh = LINES[key]
    return (zh if lang == "zh_CN" else en).format(**values)


def reason(text: str, lang: str) -> str:
    """A search's stop reason in the console's language (an unknown one as it is)."""
    if lang != "zh_CN":
        return text
    for pattern, chinese in _REASONS:
        found = pattern.match(text)
        if found:
            return chinese(found)
    return text


def load(over: str, value: float, lang: str) -> str:
    return say(lang, "streams" if over == "concurrency" else "rate", value=f"{value:g}")


# One branch per way a search ends, as search.json records it.
def capacity_lines(doc: SearchDoc, lang: str) -> list[str]:
    """The boundary line and the monotonicity warning of a search document."""
    over = doc.over
    high, low = doc.boundary.highest_pass, doc.boundary.lowest_fail
    stop = reason(doc.stop_reason, lang)
    if high is None:
        lines = [say(lang, "capacity_none", reason=stop)]
    elif low:
        failed = ", ".join(doc.boundary.failed_slos)
        lines = [
            say(
                lang,
                "capacity",
                high=load(over, high, lang),
                low=f"{low:g}",
                failed=failed,
            )
        ]
    elif doc.fill_limit:  # stopped where the prompts run out
        lines = [say(lang, "capacity_why", high=load(over, high, lang), reason=stop)]
    else:
        lines = [say(lang, "capacity_top", high=load(over, high, lang))]
    if not doc.monotonic:
        pairs = say(lang, "separator").join(
            say(lang, "violation", passed=f"{v.passed_at:g}", failed=f"{v.fail:g}")
            for v in doc.violations
        )
        lines.append(say(lang, "not_monotonic", pairs=pairs))
    return lines


def progress_line(value: SearchPoint, high: float | None, low: float | None, lang: str) -> str:
    """The line a search prints on stderr when a load value is decided (its entry of
    search.json, and the boundary so far)."""
    early = [r.early_stop for r in value.runs if r.early_stop]
    decision = str(value.decision)
    return say(
        lang,
        "progress",
        value=f"{value.value:g}",
        decision=say(lang, decision) if decision in ("pass", "fail", "marginal") else decision,
        failed=say(lang, "progress_failed", slos=", ".join(value.failed)) if value.failed else "",
        note=say(lang, "progress_early", reason=early[0]) if early else "",
        span=" .. ".join("-" if v is None else f"{v:g}" for v in (high, low)),
    )
