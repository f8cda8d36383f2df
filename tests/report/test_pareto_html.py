"""The report's Pareto section as a user sees it: a real sweep on the simulator with a roofline
context on two GPUs, written by `tpotbench report --html`, opened in headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.bench.results.read import load_results
from tests.documents import document
from tests.report.browser import Dom, dump_dom
from tests.report.test_html import tpotbench


@pytest.fixture(scope="module")
def sweep_dir(sim, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pareto")
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
        "--gpu",
        "rtx3090",
        "--tensor-parallel-size",
        "2",
        "--result-dir",
        str(out),
        "--disable-tqdm",
    )
    assert done.returncode == 0, done.stderr
    return out


def test_pareto_chart_and_table_in_chromium(sweep_dir: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    done = tpotbench("report", str(sweep_dir), "--html", str(page))
    assert done.returncode == 0, done.stderr
    dom = Dom(dump_dom(page, tmp_path / "profile"))
    assert "pareto" in {svg.get("id") for svg in dom.all("svg")}
    files = {p.path.name: p for p in load_results([sweep_dir])}
    xy = {}
    for conc in (1, 3):
        point = files[f"expB_rateinf_conc{conc}.json"]
        assert document(point)["tpotbench"]["roofline"]["tensor_parallel"] == 2
        rows = [r for r in dom.rows if r and r[0] == f"conc {conc}" and len(r) == 9]
        assert rows, f"no Pareto row for conc {conc}"
        row = rows[0]
        user = 1000 / point.metric("tpot", "median")
        gpu = point.output_throughput / 2  # two GPUs
        xy[conc] = (user, gpu)
        assert row[1] == f"{user:.1f}" and row[2] == f"{gpu:.1f}"
        assert row[3] == str(conc)  # an unlimited-rate point runs at its concurrency
    # The hardware at batch 1 on two ideally split RTX 3090s: the step takes 15.139528 / 2 ms
    # (tests/roofline/test_pareto.py works the bytes out), so one user gets 2 x 66.0523 =
    # 132.1 tok/s and each GPU 66.1.
    row1 = next(r for r in dom.rows if r and r[0] == "conc 1" and len(r) == 9)
    assert row1[4:6] == ["132.1", "66.1"]
    # The measured frontier of two points: conc 3 makes more tokens per GPU; conc 1 stays on
    # the frontier only if its users decode faster.
    on_front = {c: next(r for r in dom.rows if r and r[0] == f"conc {c}" and len(r) == 9)[8]
                for c in (1, 3)}  # fmt: skip
    assert on_front[3] == "✓"
    assert on_front[1] == ("✓" if xy[1][0] > xy[3][0] else "")
    text = " ".join(dom.text)
    assert "hardware frontier — GeForce RTX 3090 ×2, bf16" in text
    assert "1000 / TPOT P50" in text


def test_pareto_section_in_chinese(sweep_dir: Path, tmp_path: Path) -> None:
    page = tmp_path / "report-zh.html"
    done = tpotbench("report", str(sweep_dir), "--html", str(page), "--lang", "zh_CN")
    assert done.returncode == 0, done.stderr
    text = " ".join(Dom(dump_dom(page, tmp_path / "profile")).text)
    for words in ("交互性与吞吐（帕累托）", "硬件前沿", "每 GPU tok/s", "实测前沿"):
        assert words in text


def test_a_fragment_or_a_load_never_reached_is_not_on_the_pareto_chart(tmp_path: Path) -> None:
    # An early-stopped point ran 3 of 48 requests: it never sustained the load it names.
    from app.bench.results.write import write_point_json
    from app.report.model import report_points
    from app.report.pareto_view import pareto_points
    from tests.point_docs import point_doc, write_curve

    write_curve(tmp_path)
    # Nor did a point asked for 64 streams with 8 prompts: at most 8 were ever in flight.
    write_point_json(tmp_path / "run_rateinf_conc64.json", point_doc(64, 12.0, planned=8))
    found = pareto_points(report_points(load_results([tmp_path])))
    assert sorted(rp.point.max_concurrency for rp, _ in found) == [1, 2, 4, 8, 16]


# The Pareto chart's point labels as rendered boxes, written into the page.
MEASURE_LABELS = """
<script>
const svg = document.getElementById('pareto');
const boxes = [...svg.querySelectorAll('text.point-label')].map(t => {
  const r = t.getBoundingClientRect();
  return [t.textContent, r.left, r.top, r.right, r.bottom];
});
const out = document.createElement('pre');
out.id = 'label-boxes';
out.textContent = JSON.stringify(boxes);
document.body.appendChild(out);
</script>
"""


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_points_at_the_same_place_share_one_pareto_label(tmp_path: Path, lang: str) -> None:
    """Two runs that measured the same figures: their points sit on each other, and so did
    their labels; now one label names them all."""
    from tests.report.test_ticks import _point, _write, overlaps

    points = [_point(None, c, 18.0 + c, run) for run in ("a", "b") for c in (1, 8)]
    points.append(_point(None, 8, 26.0, "b"))  # run b measured conc 8 twice, alike
    folder = _write(tmp_path / "twice", points)
    page = tmp_path / "report.html"
    done = tpotbench("report", str(folder), "--html", str(page), "--lang", lang)
    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    page.write_text(html.replace("</body>", MEASURE_LABELS + "</body>"), encoding="utf-8")
    dom = dump_dom(page, tmp_path / "profile")
    found = re.search(r'<pre id="label-boxes">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script did not run"
    boxes = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert overlaps(boxes) == [], boxes
    sep, conc = ("、", "并发") if lang == "zh_CN" else (", ", "conc")
    names = sorted(b[0] for b in boxes if not b[0].startswith("b="))  # not the hardware's
    assert names == [
        f"a {conc} 1{sep}b {conc} 1",
        f"a {conc} 8{sep}b {conc} 8{sep}b {conc} 8 (p04)",  # a file's name tells the twins apart
    ], names
