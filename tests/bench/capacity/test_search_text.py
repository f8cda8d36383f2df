"""The lines under `tpotbench search`'s table in English and Chinese: every way a search ends
(a boundary, the highest load tried, the prompts' fill limit, no load passing, not
monotonic), with the why and a knee; Chinese has no English line left."""

from __future__ import annotations

from typing import Any

import pytest

from app.bench.schema.search_doc import SearchDoc, read_search_doc
from app.commands.search import format_search_table
from app.commands.search_text import LINES, reason

WHY = {"cause": "queue", "confidence": "high", "runner_up": None, "evidence": {}, "params": {
    "queue_ms": 300.0, "ttft_ms": 380.0, "waiting": 3.0, "peak": 6.0, "running": 4.0,
    "server": "llamacpp"}}  # fmt: skip


def _doc(**changes: Any) -> SearchDoc:
    doc: dict[str, Any] = {
        "over": "concurrency",
        "points": [],
        "boundary": {"highest_pass": 4.0, "lowest_fail": 5.0, "failed_slos": ["ttft:p99:500"]},
        "stop_reason": "converged",
        "boundary_why": WHY,
        "boundary_evidence": {"value": 5.0, "num_requests": 48, "measuring_s": 9.5},
        "knee": {"ttft": {"load": 4.0, "value": 420.0, "why": WHY}},
        "measuring_s": 61.0,
    }
    doc.update(changes)
    return read_search_doc(doc)  # a hand-made file: read tolerantly


ENDINGS = {
    "boundary": ({}, "Capacity: 4 streams within every SLO; at 5 it fails ttft:p99:500.",
                 "容量：4 路并发 满足全部 SLO；到 5 时未通过 ttft:p99:500。"),
    "top": ({"boundary": {"highest_pass": 8.0, "lowest_fail": None},
             "stop_reason": "every load up to --max 8 met the SLOs"},
            "Capacity: 8 streams within every SLO (the highest load tried).",
            "容量：8 路并发 满足全部 SLO（尝试过的最高负载）。"),
    "fill": ({"boundary": {"highest_pass": 4.0, "lowest_fail": None}, "fill_limit": 4.0,
              "stop_reason": "every load up to 4 met the SLOs; --num-prompts 4 cannot fill more "
              "streams, so no higher load was measured (raise --num-prompts to search higher)"},
             "Capacity: 4 streams within every SLO (every load up to 4 met the SLOs; "
             "--num-prompts 4 cannot fill more streams",
             "容量：4 路并发 满足全部 SLO（直到 4 的每个负载都满足 SLO；--num-prompts 4 无法填满"),
    "none": ({"boundary": {"highest_pass": None, "lowest_fail": 1.0},
              "stop_reason": "even 1 stream fails ttft:p99:500: no concurrency meets these SLOs "
              "on this server (relax the SLOs, or shorten the prompts or replies)"},
             "Capacity: no load tried meets every SLO (even 1 stream fails ttft:p99:500",
             "容量：尝试过的负载都不满足全部 SLO（即使 1 路并发也未通过 ttft:p99:500"),
    "rate": ({"over": "rate", "boundary": {"highest_pass": None, "lowest_fail": 2.0},
              "stop_reason": "the lowest load (2) already fails ttft:p99:500; lower --start"},
             "(the lowest load (2) already fails ttft:p99:500; lower --start).",
             "（最低负载（2）已经未通过 ttft:p99:500；请调低 --start）。"),
    "failed": ({"boundary": {"highest_pass": None, "lowest_fail": 1.0},
                "stop_reason": "no request succeeded at 1; see the failures above"},
               "(no request succeeded at 1; see the failures above).",
               "（在 1 处没有一个请求成功；请看上面的失败）。"),
    "cancelled": ({"boundary": {"highest_pass": None, "lowest_fail": None},
                   "stop_reason": "cancelled"}, "(cancelled).", "（已取消）。"),
    "not_monotonic": ({"monotonic": False, "violations": [{"pass": 6.0, "fail": 5.0}]},
                      "Warning: not monotonic: 6 passed above failing 5; measure again",
                      "警告：结果不单调：6 在未通过的 5 之上反而通过；请用 --runs 3 重新测量。"),
}  # fmt: skip


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_every_ending_is_said_in_both_languages(ending: str) -> None:
    changes, english, chinese = ENDINGS[ending]
    en = format_search_table(_doc(**changes), "en")
    zh = format_search_table(_doc(**changes), "zh_CN")
    assert english in en, en
    assert chinese in zh, zh
    under = zh.split("\n\n", 1)[1]  # the lines under the table
    for word in ("Capacity", "Warning", "Why", "Knee", "Measuring", "streams", "SLOs"):
        assert word not in under, (word, under)
    unit = "请求/秒" if changes.get("over") == "rate" else "路并发"
    assert f"原因（取自在 5 {unit} 处的一次完整测量：48 个请求，9.5 秒）：" in zh
    assert f"TTFT p99 的拐点：4 {unit}（420.0 ms）。" in zh
    assert "--parallel" in zh  # the why's own sentence, for the server it read
    assert "测量用时：61.0 秒，共 0 个负载。" in zh


def test_the_english_lines_are_as_before() -> None:
    en = format_search_table(_doc(), "en")
    assert "Why (from a full run at 5 streams: 48 requests, 9.5 s): Requests queue" in en
    assert "Knee of TTFT p99: 4 streams (420.0 ms). Requests queue" in en
    assert en.endswith("Measuring time: 61.0 s over 0 loads.")


def test_an_unknown_stop_reason_is_quoted_as_it_is() -> None:
    assert reason("a reason from a newer version", "zh_CN") == "a reason from a newer version"
    assert all(zh and en for en, zh in LINES.values())


def test_the_progress_line_per_load_is_said_in_the_consoles_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io

    from app.bench.schema.search_doc import SearchPoint, SearchRun
    from app.bench.sweep.contract import SearchValue
    from app.commands.search import SearchConsole

    def point(value: float, decision: str, failed: tuple[str, ...], early: str | None) -> Any:
        run = SearchRun(1, passed=not failed, num_requests=48, measuring_s=1.0, early_stop=early)
        return SearchPoint(value, "grow", decision, failed, {}, (run,))

    value = point(8.0, "fail", ("ttft:p99:500",), "ttft:p99:500: 3 of 48 over")
    for lang, line in (
        ("en", "search: 8 -> fail failed ttft:p99:500 (stopped early: ttft:p99:500: 3 of 48 "
               "over); boundary 4 .. -"),
        ("zh_CN", "搜索：8 → 未通过：ttft:p99:500（提前停止：ttft:p99:500: 3 of 48 over）；"
                  "边界 4 .. -"),
    ):  # fmt: skip
        SearchConsole(io.StringIO(), lang).search_value(SearchValue(value, 4.0, None))
        assert capsys.readouterr().err.strip() == line
    for decision, zh in (("pass", "通过"), ("marginal", "临界")):
        passed = point(2.0, decision, (), None)
        SearchConsole(io.StringIO(), "zh_CN").search_value(SearchValue(passed, 2.0, 5.0))
        assert capsys.readouterr().err.strip() == f"搜索：2 → {zh}；边界 2 .. 5"
