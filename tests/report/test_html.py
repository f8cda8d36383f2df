"""The HTML report as a user sees it: results of a real sweep against the simulator, written by
`tpotbench report DIR --html FILE`, opened in headless Chromium; the rendered DOM must hold the
table's figures and the charts, and the file must load nothing from anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.bench.http.failures import title_for
from app.bench.http.record import RequestRecord
from app.bench.metrics.point import compute_point_metrics
from app.bench.results.read import load_results
from app.bench.results.write import PointInfo, build_result, write_point_json
from app.bench.schema.point_doc import point_json
from tests.documents import document
from tests.report.browser import Dom, dump_dom, external_references, screenshot

HOSTILE = "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned2'\">"


def tpotbench(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=300, env=env
    )


@pytest.fixture(scope="module")
def sweep_dir(sim, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two points of experiment B against the simulator, with everything a report can show."""
    out = tmp_path_factory.mktemp("sweep")
    done = tpotbench(
        "sweep",
        "--base-url",
        sim.base_url,
        "--num-prompts",
        "6",
        "--max-concurrency",
        "1,3",
        "--output-len",
        "12",
        "--label",
        "expB",
        "--save-detailed",
        "--scrape-metrics",
        "--gpu",
        "rtx3090",
        "--goodput",
        "ttft:5000",
        "tpot:100",
        "--result-dir",
        str(out),
        "--disable-tqdm",
    )
    assert done.returncode == 0, done.stderr
    return out


def write_html(folder: Path, out: Path, *extra: str) -> str:
    done = tpotbench("report", str(folder), "--html", str(out), *extra)
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


def test_sweep_report_renders_table_and_charts_in_chromium(
    sim, sweep_dir: Path, tmp_path: Path
) -> None:
    page = tmp_path / "report.html"
    html = write_html(sweep_dir, page)
    assert external_references(html) == []
    assert "Content-Security-Policy" in html and "default-src 'none'" in html

    dom = Dom(dump_dom(page, tmp_path / "profile"))
    files = {p.path.name: p for p in load_results([sweep_dir])}
    for conc in (1, 3):
        point = files[f"expB_rateinf_conc{conc}.json"]
        row = dom.row(f"conc {conc}")
        # Point, rate, conc, completed, failed, status, req/s, tok/s, TTFT p50/p99, TPOT p50/p99
        # (on a very busy machine the client may be named saturated after "complete")
        assert row[1:5] == ["inf", str(conc), "6", "0"] and row[5].startswith("complete")
        assert row[6] == f"{point.request_throughput:,.2f}"
        assert row[8] == f"{point.metric('ttft', 'median'):,.1f}"
        assert row[10] == f"{point.metric('tpot', 'median'):,.2f}"
        assert row[11] == f"{point.metric('tpot', 'p99'):,.2f}"
        roof = document(point)["tpotbench"]["roofline"]
        assert row[14] == f"{roof['floor_tpot_ms']:,.2f}" and row[15] == f"{roof['mbu']:.1%}"

    charts = {svg.get("id") for svg in dom.all("svg")}
    assert {"knee-tpot", "knee-ttft", "knee-throughput"} <= charts
    assert {"cdf-ttft", "cdf-tpot", "cdf-itl", "cdf-e2el"} <= charts
    assert {"hist-0-ttft", "hist-1-itl", "scatter-0-x_prompt", "roofline-0"} <= charts
    assert {"server-kv_cache_usage", "server-running", "server-waiting"} <= charts
    assert len(dom.all("circle")) >= 4  # markers drawn, not just empty frames
    assert len(dom.all("rect")) > 20  # histogram bars
    text = " ".join(dom.text)
    assert sim.base_url.split("//")[1] in text and "qwen2.5-7b" in text
    assert "GeForce RTX 3090" in text and "TTFT ≤ 5000 ms, TPOT ≤ 100 ms" in text
    # how the token times were stamped: kernel receive stamps for plain HTTP on Linux
    assert "How token times were stamped" in text
    kind = "kernel" if sys.platform == "linux" else "loop"
    (item,) = [li for li in dom.all("li") if li.get("data-stamping")]
    assert item["data-stamping"] == kind
    assert "12 request(s) in" in text
    # The inline script ran in the browser: the point picker shows the first point's panel only.
    panels = [a for a in dom.all("div") if "point-panel" in a.get("class", "")]
    assert ["hidden" in p for p in panels] == [False, True]

    shot = screenshot(page, tmp_path / "report.png", tmp_path / "profile2")
    # A page that rendered blank (GuideLLM's offline failure) is a few KB of white.
    assert shot.stat().st_size > 60_000


def test_chinese_report_renders_in_chromium(sweep_dir: Path, tmp_path: Path) -> None:
    page = tmp_path / "report-zh.html"
    write_html(sweep_dir, page, "--lang", "zh_CN")
    dom = Dom(dump_dom(page, tmp_path / "profile"))
    assert dom.all("html")[0]["lang"] == "zh-CN"
    text = " ".join(dom.text)
    for words in ("运行信息", "测试点", "拐点曲线", "分布", "服务端指标", "完整", "实测 TPOT P50"):
        assert words in text
    row = dom.row("并发 3")
    assert row[1:3] == ["无限", "3"]
    assert "Knee curves" not in text and "complete" not in text
    assert "词元时间的打点方式" in text and "个请求" in text


def test_model_id_and_label_with_markup_are_shown_as_text(sweep_dir: Path, tmp_path: Path) -> None:
    data = json.loads((sweep_dir / "expB_rateinf_conc1.json").read_text(encoding="utf-8"))
    data["model_id"] = HOSTILE
    data["label"] = HOSTILE
    data["tpotbench"]["endpoint"]["url"] = "http://h/v1/chat/completions?x=" + HOSTILE
    data["tpotbench"]["failures"] = [{"kind": "x", "count": 1, "title": HOSTILE, "fix": HOSTILE}]
    folder = tmp_path / "hostile"
    folder.mkdir()
    (folder / "evil.json").write_text(json.dumps(data), encoding="utf-8")
    page = tmp_path / "evil.html"
    html = write_html(folder, page)
    assert html.count("<script") == 1 and "<img" not in html
    dom = Dom(dump_dom(page, tmp_path / "profile"))
    assert dom.all("img") == [] and len(dom.all("script")) == 1
    assert dom.titles[0].startswith("TPOT Bench report — ")  # a script would have set "pwned"
    text = " ".join(dom.text)
    assert "<script>document.title='pwned'</script>" in text  # shown, as text
    assert dom.row("conc 1")[3] == "6"
    assert dom.row("Label")[1] == HOSTILE and dom.row("Model")[1] == HOSTILE


def _vllm_detailed() -> dict:
    """What `vllm bench serve --save-result --save-detailed` writes, one request failed."""
    return {
        "date": "20261130-101500",
        "endpoint_type": "openai-chat",
        "backend": "openai-chat",
        "model_id": "Qwen/Qwen2.5-7B-Instruct",
        "num_prompts": 3,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": 2,
        "duration": 2.5,
        "completed": 2,
        "failed": 1,
        "total_input_tokens": 30,
        "total_output_tokens": 32,
        "request_throughput": 0.8,
        "request_goodput": None,
        "output_throughput": 12.8,
        "total_token_throughput": 24.8,
        "input_lens": [10, 20, 0],
        "output_lens": [11, 21, 0],
        "ttfts": [0.1, 0.2, 0.0],
        "itls": [[0.1] * 10, [0.1] * 20, []],
        "generated_texts": ["a", "b", ""],
        "errors": ["", "", "Read timed out"],
        "latencies": [1.1, 2.2, 0.0],
        "mean_ttft_ms": 150.0,
        "median_ttft_ms": 150.0,
        "p99_ttft_ms": 199.0,
        "mean_tpot_ms": 100.0,
        "median_tpot_ms": 100.0,
    }


def test_vllm_files_show_what_they_have_and_dashes_for_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "vllm"
    folder.mkdir()
    (folder / "expB_conc2.json").write_text(json.dumps(_vllm_detailed()), encoding="utf-8")
    summary_only = {**_vllm_detailed(), "max_concurrency": 4}
    # vLLM without --save-detailed keeps only `latencies`; older benchmark_serving.py files
    # lack even that.
    for key in ("input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors"):
        del summary_only[key]
    del summary_only["latencies"]
    (folder / "expB_conc4.json").write_text(json.dumps(summary_only), encoding="utf-8")
    page = tmp_path / "vllm.html"
    html = write_html(folder, page)
    assert external_references(html) == []
    dom = Dom(dump_dom(page, tmp_path / "profile"))
    row = dom.row("conc 2")
    assert row[1:6] == ["inf", "2", "2", "1", "1 failed"]
    assert row[8:12] == ["150.0", "199.0", "100.00", "–"]  # no p99 TPOT in the file
    assert row[14:16] == ["–", "–"]  # no roofline context
    text = " ".join(dom.text)
    assert "vllm bench serve" in text and "No roofline context" in text
    assert "No server metrics" in text
    # Distributions from the per-request arrays; the failed request is left out.
    assert {"cdf-ttft", "cdf-tpot", "cdf-itl", "hist-0-tpot"} <= {
        s.get("id") for s in dom.all("svg")
    }
    assert "2 successful requests of 3" in text
    assert "No per-request data for: conc 4." in text


def _record(ok: bool) -> RequestRecord:
    return RequestRecord(
        send_ns=0,
        first_choice_ns=50_000_000 if ok else None,
        first_token_ns=50_000_000 if ok else None,
        chunk_ns=[50_000_000, 70_000_000] if ok else [],
        end_ns=70_000_000,
        ok=ok,
        prompt_len=8,
        output_tokens=2 if ok else 0,
        error=None if ok else "HTTP 500",
        error_kind=None if ok else "http_5xx",
    )


def test_failed_and_partial_points_are_shown_honestly(tmp_path: Path) -> None:
    info = PointInfo("openai-chat", "m", "http://h/v1/x", "chat", 4, float("inf"), 2, label="run")
    folder = tmp_path / "mixed"
    failed = point_json(build_result(info, compute_point_metrics([_record(False)] * 4, 0.5)))
    write_point_json(folder / "run_rateinf_conc2.json", failed)
    info4 = PointInfo("openai-chat", "m", "http://h/v1/x", "chat", 4, float("inf"), 4, label="run")
    partial = point_json(
        build_result(info4, compute_point_metrics([_record(True)], 0.5), cancelled=True, not_sent=3)
    )
    write_point_json(folder / "run_rateinf_conc4.partial.json", partial)
    page = tmp_path / "mixed.html"
    write_html(folder, page)
    dom = Dom(dump_dom(page, tmp_path / "profile"))
    all_failed = dom.row("conc 2")
    assert all_failed[3:6] == ["0", "4", "all failed"]
    # The file says 0.0 ms for a point without one success (vLLM's convention): not a figure.
    assert all_failed[8:14] == ["–"] * 6
    cut = dom.row("conc 4")
    assert cut[3:6] == ["1", "0", "cancelled after 1 of 4"] and cut[10] == "20.00"
    assert f"4 × {title_for('http_5xx')}" in " ".join(dom.text)


def test_report_of_nothing_and_bad_language_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = tpotbench("report", str(tmp_path / "empty"), "--html", str(tmp_path / "r.html"))
    assert done.returncode == 2 and "no result files" in done.stderr
    assert not (tmp_path / "r.html").exists()
    done = tpotbench("report", str(tmp_path), "--html", "r.html", "--lang", "fr")
    assert done.returncode == 2 and "--lang" in done.stderr and len(done.stderr.splitlines()) == 1


def test_without_detailed_arrays_the_compact_request_block_still_gives_distributions(
    make_sim, tmp_path: Path
) -> None:
    # Every third stream is cut mid-reply: those requests fail after some tokens.
    flaky = make_sim(faults=["cut"], fault_every=3)
    out = tmp_path / "cut"
    done = tpotbench(
        "sweep",
        "--base-url",
        flaky.base_url,
        "--num-prompts",
        "6",
        "--max-concurrency",
        "2",
        "--output-len",
        "12",
        "--label",
        "cut",
        "--result-dir",
        str(out),
        "--disable-tqdm",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "cut_rateinf_conc2.json").read_text(encoding="utf-8"))
    assert "ttfts" not in data and data["failed"] == 2  # no --save-detailed; 2 of 6 cut
    dom = Dom(write_html(out, tmp_path / "cut.html"))
    charts = {s.get("id") for s in dom.all("svg")}
    assert {"cdf-ttft", "cdf-itl", "hist-0-itl", "scatter-0-x_prompt"} <= charts
    text = " ".join(dom.text)
    assert "4 successful requests of 6; failed requests are drawn apart" in text
    assert "failed (time to failure)" in text


def test_an_early_stopped_point_is_marked_off_the_curves_and_off_the_knee(tmp_path: Path) -> None:
    from app.bench.results.write import write_point_json
    from app.report.text import text as text_for
    from tests.point_docs import point_doc, write_curve

    folder = tmp_path / "search"
    write_curve(folder)  # knee at 4; the fragment at 32 would move it to 16
    # Another run: 32 prompts at concurrency 64 (never more than 32 in flight).
    short = point_doc(64, 12.0, planned=32, label="expB")
    write_point_json(folder / "expB_rateinf_conc64.json", short)
    for lang, early, load in (
        ("en", "early-stopped after 3 of 48", "load not as planned"),
        ("zh_CN", "提前停止：48 个请求完成了 3 个", "负载未按计划"),
    ):
        page = tmp_path / f"report-{lang}.html"
        html = write_html(folder, page, "--lang", lang)
        dom = Dom(dump_dom(page, tmp_path / f"profile-{lang}"))
        rows: dict[str, list[str]] = {}
        for r in dom.rows:  # the points table's row: it comes before the other tables'
            if r:
                rows.setdefault(r[0], r)
        fragment = next(r for name, r in rows.items() if name.endswith("32"))
        assert fragment[5] == early and "complete" not in fragment[5] and "完整" not in fragment[5]
        warned = next(r for name, r in rows.items() if name.endswith("64"))
        assert warned[5].endswith(load)
        # Drawn apart: open markers, never on a curve's path (TPOT P50 and P99, TTFT P50 and
        # P99, tok/s), for the fragment and for the point that never had 64 in flight; the knee
        # from the full points only.
        assert html.count('class="marker hollow"') == 2 * 5
        knees = [t for t in dom.text if "Kneedle" in t and "TPOT" in t]
        where = text_for(lang, "w_conc", value="4")
        assert knees and all(where in t for t in knees), knees
        assert ("only 32 prompts for 64 streams" in html) == (lang == "en")
        assert ("64 路并发只有 32 个请求" in html) == (lang == "zh_CN")


def test_markers_of_a_load_never_reached_stay_inside_the_plot_box(tmp_path: Path) -> None:
    from tests.point_docs import point_doc, write_curve

    folder = tmp_path / "unreached"
    write_curve(folder)
    # 200 prompts for 1000 streams, TPOT far above the rest: a log y axis whose top is this
    # open marker, and a log x axis whose right end is it too.
    write_point_json(folder / "run_rateinf_conc1000.json", point_doc(1000, 900.0, planned=200))
    page = tmp_path / "report.html"
    write_html(folder, page)
    dom = Dom(dump_dom(page, tmp_path / "profile"))
    chart, plot = "", (0.0, 0.0, 0.0, 0.0)
    markers: dict[str, int] = {}
    for tag, attrs in dom.elements:
        if tag == "svg":
            chart = attrs.get("id", "")
        elif tag == "rect" and attrs.get("class") == "plot-bg":
            x, y = float(attrs["x"]), float(attrs["y"])
            plot = (x, y, x + float(attrs["width"]), y + float(attrs["height"]))
        elif tag == "circle" and "marker" in attrs.get("class", "") and chart.startswith("knee"):
            cx, cy, r = float(attrs["cx"]), float(attrs["cy"]), float(attrs["r"])
            r += float(attrs.get("stroke-width", "0")) / 2
            inside = (
                plot[0] <= cx - r and cx + r <= plot[2] and plot[1] <= cy - r <= cy + r <= plot[3]
            )
            assert inside, (chart, attrs, plot)
            markers[chart] = markers.get(chart, 0) + 1
    assert set(markers) == {"knee-tpot", "knee-ttft", "knee-throughput"}, markers
