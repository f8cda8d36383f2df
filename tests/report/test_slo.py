"""SLO verdicts, the knee and a capacity search in the HTML report: a sweep held to SLOs against
the simulator (opened in Chromium), result files with a known knee, a search.json summary."""

from __future__ import annotations

import json
from pathlib import Path

from app.bench.capacity.why import why_block
from app.bench.schema.codec import to_json_obj
from tests.report.browser import Dom, dump_dom
from tests.report.test_html import tpotbench, write_html


def test_slo_verdicts_per_point_and_per_slo(sim, tmp_path: Path) -> None:
    # One SLO nothing can miss, one nothing can meet: every verdict is known in advance.
    out = tmp_path / "run"
    done = tpotbench(
        "sweep",
        "--base-url",
        sim.base_url,
        "--num-prompts",
        "4",
        "--max-concurrency",
        "1,2",
        "--output-len",
        "8",
        "--label",
        "held",
        "--slo",
        "tpot:p99:10000",
        "ttft:p99:0.001",
        "--result-dir",
        str(out),
        "--disable-tqdm",
    )
    assert done.returncode == 0, done.stderr
    page = tmp_path / "slo.html"
    write_html(out, page)
    dom = Dom(dump_dom(page, tmp_path / "profile"))
    header = next(r for r in dom.rows if r[:2] == ["Point", "Verdict"])
    assert header[2:5] == ["TPOT p99 ≤ 10000 ms", "TTFT p99 ≤ 0.001 ms", "failed requests ≤ 1%"]
    for conc in (1, 2):
        row = next(r for r in dom.rows if r[0] == f"conc {conc}" and len(r) == len(header))
        assert row[1] == "fail"
        assert row[2].endswith("✓") and row[3].endswith("✗") and row[4] == "0.0% ✓"
    text = " ".join(dom.text)
    assert "No point meets every SLO." in text
    assert "SLO TPOT p99 ≤ 10000 ms" in text  # the limit drawn on the knee chart


def _point(conc: int, tpot_p99: float, ttft_p99: float) -> dict:
    return {
        "backend": "openai-chat",
        "model_id": "m",
        "label": "knee",
        "num_prompts": 64,  # at least as many prompts as streams: every load happened
        "request_rate": "inf",
        "max_concurrency": conc,
        "duration": 10.0,
        "completed": 64,
        "failed": 0,
        "request_throughput": 1.0,
        "output_throughput": 10.0 * conc,
        "median_tpot_ms": tpot_p99 * 0.8,
        "p99_tpot_ms": tpot_p99,
        "median_ttft_ms": ttft_p99 * 0.5,
        "p99_ttft_ms": ttft_p99,
    }


def test_knee_is_marked_and_named(tmp_path: Path) -> None:
    # TPOT p99 over log2(conc) scaled to 0..1: x - y = 0, .2, .383, .567, .467, 0 -> conc 8.
    curve = [(1, 20), (2, 20), (4, 21), (8, 22), (16, 40), (32, 80)]
    folder = tmp_path / "knee"
    folder.mkdir()
    for k, (conc, tpot) in enumerate(curve):
        point = _point(conc, tpot, 100.0 * (k + 1))  # TTFT straight on log2 load: no knee
        (folder / f"knee_rateinf_conc{conc}.json").write_text(json.dumps(point), encoding="utf-8")
    html = write_html(folder, tmp_path / "knee.html")
    dom = Dom(html)
    text = " ".join(dom.text)
    assert "Knee of TPOT P99 (Kneedle on log2 load): conc 8 (22.0 ms)." in text
    assert "knee 8" in text and "Knee of TTFT" not in text


def test_capacity_search_summary_and_a_broken_one(tmp_path: Path) -> None:
    folder = tmp_path / "search"
    folder.mkdir()
    for conc, tpot in ((8, 22.0), (16, 36.0), (32, 47.0)):
        (folder / f"s_rateinf_conc{conc}.json").write_text(
            json.dumps(_point(conc, tpot, 500.0)), encoding="utf-8"
        )
    doc = {
        "tpotbench_search": 1,
        "over": "concurrency",
        "boundary": {"highest_pass": 16, "lowest_fail": 32, "failed_slos": ["tpot:p99:40"]},
        "boundary_why": {"cause": "queue", "text": "Requests <wait> in the server's queue."},
    }
    (folder / "search.json").write_text(json.dumps(doc), encoding="utf-8")
    html = write_html(folder, tmp_path / "s.html", "--lang", "zh_CN")
    text = " ".join(Dom(html).text)
    assert "容量：并发 16 满足全部 SLO；并发 32 未通过（tpot:p99:40）。" in text
    # A file from an older version keeps its own (English) sentence, escaped.
    assert "原因：Requests <wait> in the server's queue." in text
    # Today's why is said in the report's language, with its confidence and the full run.
    why = why_block("queue", {"queue_ms": 900.0, "ttft_ms": 1000.0, "waiting": 3.0, "peak": 9.0,
                              "running": 2.0}, {}, confidence="high")  # fmt: skip
    doc["boundary_why"] = to_json_obj(why)
    doc["boundary_evidence"] = {"value": 32, "num_requests": 64, "measuring_s": 9.5}
    (folder / "search.json").write_text(json.dumps(doc), encoding="utf-8")
    for lang, sentence, full in (
        ("zh_CN", "原因：请求在服务端排队", "原因取自在 并发 32 处的一次完整测量（64 个请求"),
        ("en", "Why: Requests queue inside the server", "read from a full run at conc 32"),
    ):
        html = write_html(folder, tmp_path / f"s-{lang}.html", "--lang", lang)
        text = " ".join(Dom(html).text)
        assert sentence in text and full in text, text
        assert ("置信度：高" if lang == "zh_CN" else "Confidence: high.") in text
    (folder / "search.json").write_text('{"boundary": ', encoding="utf-8")
    done = tpotbench("report", str(folder), "--html", str(tmp_path / "s2.html"))
    assert done.returncode == 0 and "skipped" in done.stderr and "search.json" in done.stderr
    assert "容量" not in (tmp_path / "s2.html").read_text(encoding="utf-8")


def test_a_search_stopped_where_its_prompts_run_out(tmp_path: Path) -> None:
    folder = tmp_path / "search"
    folder.mkdir()
    (folder / "s_rateinf_conc16.json").write_text(
        json.dumps(_point(16, 22.0, 500.0)), encoding="utf-8"
    )
    doc = {
        "tpotbench_search": 1,
        "over": "concurrency",
        "settings": {"num_prompts": 16},
        "boundary": {"highest_pass": 16, "lowest_fail": None, "failed_slos": []},
        "fill_limit": 16,
    }
    (folder / "search.json").write_text(json.dumps(doc), encoding="utf-8")
    for lang, sentence in (
        ("en", "16 prompts cannot hold more streams in flight"),
        ("zh_CN", "16 个提示词无法让更多并发流同时在途"),
    ):
        html = write_html(folder, tmp_path / f"fill-{lang}.html", "--lang", lang)
        assert sentence in " ".join(Dom(html).text)


def test_a_search_over_rate_names_its_loads_exactly(tmp_path: Path) -> None:
    """The loads a search chose are written with every digit they need (0.0125, not the
    chart ticks' two figures, 0.013), in English and Chinese."""
    folder = tmp_path / "search"
    folder.mkdir()
    for rate, tpot in ((0.0125, 22.0), (0.0375, 47.0)):
        point = {**_point(1, tpot, 500.0), "request_rate": rate, "max_concurrency": None}
        (folder / f"s_rate{rate}_concnone.json").write_text(json.dumps(point), encoding="utf-8")
    doc = {
        "tpotbench_search": 1,
        "over": "rate",
        "boundary": {"highest_pass": 0.0125, "lowest_fail": 0.0375, "failed_slos": ["tpot:p99:40"]},
        "boundary_evidence": {"value": 0.0375, "num_requests": 64, "measuring_s": 9.5},
        "boundary_why": to_json_obj(
            why_block(
                "queue",
                {"queue_ms": 900.0, "ttft_ms": 1000.0, "waiting": 3.0, "peak": 9.0, "running": 2.0},
                {},
                confidence="high",
            )
        ),
    }
    (folder / "search.json").write_text(json.dumps(doc), encoding="utf-8")
    for lang, line, full in (
        ("en", "Capacity: rate 0.0125 within every SLO; rate 0.0375 fails", "at rate 0.0375"),
        ("zh_CN", "速率 0.0125", "在 速率 0.0375 处的一次完整测量"),
    ):
        html = write_html(folder, tmp_path / f"rate-{lang}.html", "--lang", lang)
        text = " ".join(Dom(html).text)
        assert line in text and full in text, text
        assert "0.013" not in text and "0.037 " not in text, text


def test_slo_limit_and_knee_load_are_written_exactly(tmp_path: Path) -> None:
    """A goodput SLO of 26.25 ms and a knee at a rate of many digits read as given, as the
    search's loads and the table do (26.25, not the chart ticks' three figures, 26.2), on the
    chart's lines and in the knee's sentence, in English and Chinese."""
    base = 1.0123456789
    curve = [(1, 20), (2, 20), (4, 21), (8, 22), (16, 40), (32, 80)]  # the knee at the 4th
    folder = tmp_path / "exact"
    folder.mkdir()
    for k, (step, tpot) in enumerate(curve):
        point = {
            **_point(1, tpot, 100.0 * (k + 1)),
            "request_rate": base * step,
            "max_concurrency": None,
            "tpotbench": {"goodput_slos_ms": {"tpot": 26.25}},
        }
        (folder / f"exact_rate{k}.json").write_text(json.dumps(point), encoding="utf-8")
    knee = f"{base * 8:.12g}"
    assert knee == "8.0987654312"
    for lang, sentence in (("en", f"rate {knee} (22.0 ms)"), ("zh_CN", f"速率 {knee}")):
        html = write_html(folder, tmp_path / f"exact-{lang}.html", "--lang", lang)
        text = " ".join(Dom(html).text)
        assert "SLO TPOT 26.25 ms" in text and "26.2 ms" not in text, text
        assert f"knee {knee}" in text or f"拐点 {knee}" in text, text
        assert sentence in text and "8.09877" not in text, text
