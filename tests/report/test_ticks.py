"""Tick labels that never overlap: reports of generated sweeps (many rates, a wide log range,
long labels, Chinese) opened in headless Chromium, where a script reads back every tick label's
rendered bounding box; no two boxes of one chart may intersect."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.bench.results.write import roofline_block
from app.bench.schema.codec import to_json_obj
from app.bench.sweep.roofline_point import check_roofline
from tests.report.browser import dump_dom
from tests.report.test_html import write_html

CONTEXT = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16", "kv_dtype": "fp16"}

# Each chart's tick labels (x and y axes together) as rendered boxes, written into the page.
MEASURE = """
<script>
const found = [];
for (const svg of document.querySelectorAll('svg.chart')) {
  const boxes = [...svg.querySelectorAll('text.tick')].map(t => {
    const r = t.getBoundingClientRect();
    return [t.textContent, r.left, r.top, r.right, r.bottom];
  });
  found.push([svg.id, boxes]);
}
const out = document.createElement('pre');
out.id = 'tick-boxes';
out.textContent = JSON.stringify(found);
document.body.appendChild(out);
</script>
"""


def _point(rate: float | None, conc: int | None, tpot: float, label: str) -> dict:
    batch = float(conc or 64)
    return {
        "backend": "openai-chat",
        "model_id": "m",
        "label": label,
        "num_prompts": 256,
        "request_rate": "inf" if rate is None else rate,
        "max_concurrency": conc,
        "duration": 10.0,
        "completed": 256,
        "failed": 0,
        "request_throughput": 1.0,
        "output_throughput": 3.0 * batch * 1000 / tpot,
        "median_tpot_ms": tpot,
        "p99_tpot_ms": tpot * 1.7,
        "median_ttft_ms": tpot * 4,
        "p99_ttft_ms": tpot * 40,
        "tpotbench": {
            "roofline": to_json_obj(
                roofline_block(check_roofline(CONTEXT), batch, "concurrency", tpot)
            )
        },
    }


def _write(folder: Path, points: list[dict]) -> Path:
    folder.mkdir()
    for k, p in enumerate(points):
        (folder / f"p{k:02d}.json").write_text(json.dumps(p), encoding="utf-8")
    return folder


def _sweeps() -> dict[str, list[dict]]:
    # Twelve rates at one concurrency: a log axis naming every rate, 90 and 100 11 px apart.
    many_rates = [1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, None]
    # Twelve concurrencies over three decades, TPOT over five (a wide log range on both axes).
    wide = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 1000]
    return {
        "many_rates": [_point(r, 32, 20 + 3 * k, "rates") for k, r in enumerate(many_rates)],
        "wide_log": [_point(None, c, 0.05 * 10 ** (k * 0.45), "wide") for k, c in enumerate(wide)],
        # Twelve concurrencies, one apart: 9, 10, 11, 12 a few pixels apart on a log axis.
        "many_concs": [_point(None, c, 10 + c, "concs") for c in range(1, 13)],
        # Rates with long decimals: each label wide for its place.
        "long_labels": [
            _point(r, 16, 15 + k, "long")
            for k, r in enumerate([0.0125, 0.015, 0.0175, 0.02, 0.0225, 0.025, 0.0275, 0.03])
        ],
    }


def _boxes(page: Path, profile: Path) -> list[tuple[str, list[list]]]:
    dom = dump_dom(page, profile)
    found = re.search(r'<pre id="tick-boxes">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script did not run"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def overlaps(boxes: list[list]) -> list[tuple[str, str]]:
    """Pairs of labels whose rendered boxes intersect (a shared edge is not an overlap)."""
    out = []
    for i, (t1, l1, u1, r1, b1) in enumerate(boxes):
        for t2, l2, u2, r2, b2 in boxes[i + 1 :]:
            if min(r1, r2) - max(l1, l2) > 0.5 and min(b1, b2) - max(u1, u2) > 0.5:
                out.append((t1, t2))
    return out


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
@pytest.mark.parametrize("sweep", ["many_rates", "many_concs", "wide_log", "long_labels"])
def test_no_two_tick_labels_overlap_in_chromium(tmp_path: Path, sweep: str, lang: str) -> None:
    folder = _write(tmp_path / sweep, _sweeps()[sweep])
    page = tmp_path / "report.html"
    html = write_html(folder, page, "--lang", lang)
    page.write_text(html.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    charts = _boxes(page, tmp_path / "profile")
    assert len(charts) >= 5
    collisions = {svg: hits for svg, boxes in charts if (hits := overlaps(boxes))}
    assert collisions == {}
    for svg, boxes in charts:  # thinning keeps enough labels to read the axis
        assert len(boxes) >= 4, (svg, boxes)


def test_load_ticks_and_legend_name_the_rates_as_chosen(tmp_path: Path) -> None:
    rates = [0.0125, 0.015, 0.0175, 0.02, 0.0225, 0.025, 0.0275, 0.03]
    points = [_point(r, 16, 15 + k, "long") for k, r in enumerate(rates)]
    html = write_html(_write(tmp_path / "rates", points), tmp_path / "rates.html")
    chart = html.split('id="knee-tpot"', 1)[1].split("</svg>", 1)[0]
    x_ticks = re.findall(r'<text class="tick"[^>]*text-anchor="middle">([^<]*)<', chart)
    assert "0.0125" in x_ticks and set(x_ticks) <= {f"{r:g}" for r in rates}, x_ticks
    # Concurrency on the axis, one curve per rate: the legend names each rate as given.
    points = [_point(r, c, 10 + c, "long") for r in (0.0125, 0.0175) for c in (8, 16)]
    html = write_html(_write(tmp_path / "concs", points), tmp_path / "concs.html")
    legend = re.findall(r'class="legend-text">([^<]*)<', html)
    assert any("0.0125" in t for t in legend) and any("0.0175" in t for t in legend), legend
    assert "0.013" not in html and "0.018" not in html
