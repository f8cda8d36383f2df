"""The Results panel: our files and vLLM's, overlays, exports read back, corrupt files."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from app.ui.app_setup import settings
from app.ui.exports.tables import markdown_table, runs_csv
from app.ui.panels.results.panel import ResultsPanel
from app.ui.plots.sweep_curves import Series
from tests.ui.rows import row_of

# What `vllm bench serve --save-result` writes (a subset of its keys; the field guide's
# rate=4 / concurrency=16 figures and its concurrency-32 saturation point).
VLLM_RATE4 = {
    "date": "20250601-101500",
    "endpoint_type": "openai-chat",
    "backend": "openai-chat",
    "label": None,
    "model_id": "qwen2.5-7b",
    "tokenizer_id": "qwen2.5-7b",
    "num_prompts": 200,
    "request_rate": 4.0,
    "burstiness": 1.0,
    "max_concurrency": 16,
    "duration": 75.76,
    "completed": 200,
    "failed": 0,
    "total_input_tokens": 49324,
    "total_output_tokens": 42318,
    "request_throughput": 2.64,
    "request_goodput": None,
    "output_throughput": 558.58,
    "total_token_throughput": 1209.61,
    "max_output_tokens_per_s": 688.0,
    "max_concurrent_requests": 16,
    "mean_ttft_ms": 127.67,
    "median_ttft_ms": 113.43,
    "std_ttft_ms": 50.1,
    "p99_ttft_ms": 293.48,
    "mean_tpot_ms": 23.91,
    "median_tpot_ms": 23.87,
    "std_tpot_ms": 2.2,
    "p99_tpot_ms": 34.38,
    "mean_itl_ms": 23.8,
    "median_itl_ms": 22.9,
    "std_itl_ms": 4.0,
    "p99_itl_ms": 41.2,
}
VLLM_CONC32 = {
    **VLLM_RATE4,
    "request_rate": "inf",
    "max_concurrency": 32,
    "max_concurrent_requests": 32,  # a saturation point has all its streams in flight
    "output_throughput": 978.0,
    "median_tpot_ms": 31.5,
    "p99_tpot_ms": 60.0,
    "p99_ttft_ms": 812.0,
}


@pytest.fixture(scope="module")
def ours(tmp_path_factory, sim) -> Path:
    """A real two-point run written by `tpotbench sweep` against the simulator."""
    out = tmp_path_factory.mktemp("ours") / "local-bf16"
    subprocess.run(
        [
            *(sys.executable, "-m", "app", "sweep", "--base-url", sim.base_url),
            *("--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "8"),
            *("--num-prompts", "4", "--max-concurrency", "2,4", "--label", "bf16"),
            *("--result-dir", str(out), "--disable-tqdm"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return out


@pytest.fixture
def root(tmp_path, ours) -> Path:
    base = tmp_path / "results"
    local = base / "local-bf16"
    local.mkdir(parents=True)
    for f in ours.glob("*"):
        (local / f.name).write_bytes(f.read_bytes())
    old = base / "vllm-old"
    old.mkdir()
    # vLLM's own default names; `vllm bench serve` writes "inf" as a string.
    (old / "openai-chat-4.0qps-concurrency16-qwen2.5-7b-20250601-101500.json").write_text(
        json.dumps(VLLM_RATE4)
    )
    (old / "openai-chat-infqps-concurrency32-qwen2.5-7b-20250601-103000.json").write_text(
        json.dumps(VLLM_CONC32)
    )
    (base / "broken.json").write_text('{"completed": 3, "duration": ')
    return base


def _panel(qtbot, root: Path) -> ResultsPanel:
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(root)
    return panel


def test_opens_ours_and_vllm_and_reports_the_corrupt_file(qtbot, root) -> None:
    panel = _panel(qtbot, root)
    assert [(r.name, len(r.points), r.source) for r in panel.runs] == [
        ("local-bf16", 2, "tpotbench"),
        ("vllm-old", 2, "vllm"),
    ]
    assert len(panel.errors) == 1
    assert "broken.json" in panel.errors[0] and "not valid JSON" in panel.errors[0]
    assert "1 file(s) could not be read; the others opened" in panel.message.text()
    assert panel.tree.topLevelItemCount() == 2

    panel.tree.topLevelItem(1).setSelected(True)
    assert [r.name for r in panel.shown] == ["vllm-old"]
    assert panel.table.rowCount() == 2
    row = [
        panel.table.item(0, c).text()
        for c in range(panel.table.columnCount())
        if not panel.table.isColumnHidden(c)
    ]
    # Run, rate, conc, TPOT p50/p99, TTFT p50/p99, tok/s, req/s, completed, failed, ITL p99
    # (whole points: no Status column)
    assert row[:12] == [
        "vllm-old", "4", "16", "23.87", "34.38", "113.4", "293.5", "558.6", "2.64", "200",
        "0", "41.20",
    ]  # fmt: skip
    # Different rates and concurrencies: plotted against concurrency, slots 16 and 32.
    assert panel.curves.axis == "concurrency"
    xs, ys = panel.curves.throughput.getPlotItem().listDataItems()[0].getData()
    assert xs.tolist() == [0.0, 1.0] and ys.tolist() == [558.58, 978.0]


def test_overlay_and_exports_read_back(qtbot, root, tmp_path) -> None:
    panel = _panel(qtbot, root)
    panel.show_runs(["local-bf16", "vllm-old"])
    assert panel.table.rowCount() == 4
    items = panel.curves.throughput.getPlotItem().listDataItems()
    # One curve per run (markers drawn apart, for a point a busy machine left with a load
    # warning, have no line).
    items = [i for i in items if i.opts["pen"] is not None]
    assert len(items) == 2  # one curve per run
    ticks = panel.curves.throughput.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert [label for _, label in ticks] == ["2", "4", "16", "32"]
    assert items[1].getData()[0].tolist() == [2.0, 3.0]  # vLLM's points sit at 16 and 32

    out = tmp_path / "out"
    panel.export_data(out / "cmp.csv")
    rows = list(csv.DictReader(io.StringIO((out / "cmp.csv").read_text())))
    assert [(r["run"], r["max_concurrency"], r["request_rate"]) for r in rows] == [
        ("local-bf16", "2", "inf"),
        ("local-bf16", "4", "inf"),
        ("vllm-old", "16", "4"),
        ("vllm-old", "32", "inf"),
    ]
    assert rows[2]["output_throughput"] == "558.58" and rows[3]["p99_tpot_ms"] == "60.0"
    assert rows[0]["completed"] == "4"

    panel.export_data(out / "cmp.json")
    doc = json.loads((out / "cmp.json").read_text())
    assert doc["schema"] == 1 and [r["name"] for r in doc["runs"]] == ["local-bf16", "vllm-old"]
    assert doc["runs"][1]["points"][0]["median_tpot_ms"] == 23.87
    assert doc["runs"][0]["points"][0]["request_rate"] == "inf"  # JSON has no Infinity

    panel.export_data(out / "cmp.md")
    lines = (out / "cmp.md").read_text().splitlines()
    assert len(lines) == 2 + 4
    assert lines[0].startswith("| Run | Rate (req/s) | Concurrency |")
    assert lines[4].startswith("| vllm-old | 4 | 16 | 23.87 | 34.38 | 113.4 | 293.5 | 558.6 |")

    pngs = panel.export_charts(out / "charts.png")
    assert [p.name for p in pngs] == [
        "charts_throughput.png",
        "charts_tpot.png",
        "charts_ttft.png",
        "charts_pareto.png",
    ]
    image = QImage(str(pngs[0]))
    assert (image.width(), image.height()) == (900, 600)
    colours = {image.pixelColor(x, y).name() for x in range(0, 900, 3) for y in range(0, 600, 3)}
    assert {"#0072b2", "#d55e00"} <= colours  # both runs' curves are drawn in their colours
    svgs = panel.export_charts(out / "charts.svg")
    tree = ET.parse(svgs[1])
    assert tree.getroot().tag.endswith("svg")
    strokes = {e.get("stroke") for e in tree.iter()}
    assert {"#0072b2", "#d55e00"} <= strokes  # vector curves, one colour per run
    texts = {(e.text or "").strip() for e in tree.iter()}
    assert "TPOT P50 / P99 (P99 dashed)" in texts
    # The runs are named under the title in their colours, not in a legend box over the data.
    assert any("vllm-old" in t for t in texts)
    for plot in panel.curves.plots().values():
        legend = plot.getPlotItem().legend
        assert legend is None or not legend.items
    # On screen the runs are named once, above the three charts, wrapped to their width.
    assert "vllm-old" in panel.curves.runs_label.text() and panel.curves.runs_label.wordWrap()
    with pytest.raises(ValueError, match=r"\.csv, \.json or \.md"):
        panel.export_data(out / "cmp.xlsx")


def test_a_folder_of_only_bad_files_says_so(qtbot, tmp_path) -> None:
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "other.json").write_text('{"hello": 1}')
    panel = _panel(qtbot, tmp_path)
    assert panel.runs == []
    assert len(panel.errors) == 2
    assert "expected a JSON object" in panel.message.text()
    assert "not a benchmark result" in panel.message.text()
    assert not panel.export_data_button.isEnabled()
    panel.set_folder(tmp_path / "nope")
    # The folder itself, and what to do: no count of files (there were none to read).
    assert panel.message.text() == (
        f"{tmp_path / 'nope'} is not a folder: type the folder your sweeps save to, "
        "or choose one with Browse…"
    )


def test_default_folder_is_where_sweeps_save_and_empty_is_not_an_error(
    qtbot, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr("platformdirs.user_documents_dir", lambda: str(tmp_path))
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    assert panel.folder.text() == str(tmp_path / "TPOT Bench results")
    assert panel.errors == [] and panel.runs == []
    assert panel.message.text().startswith("No results yet: a sweep saves its runs in")


def test_markdown_and_csv_escape_and_format() -> None:
    expected = "| a\\|b | c |\n|---|---|\n| 1 | x\\|y |\n"
    assert markdown_table(["a|b", "c"], [["1", "x|y"]]) == expected
    text = runs_csv([Series("r", [row_of({"request_rate": None, "max_concurrency": None})])])
    assert text.splitlines()[1].startswith("r,inf,inf,")


def test_export_dialog_follows_the_filter_and_remembers_the_folder(
    qtbot, root, tmp_path, monkeypatch
) -> None:
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from app.ui.exports.files import FOLDER_KEY, with_filter_suffix

    filters = ["CSV (*.csv)", "JSON (*.json)", "Markdown table (*.md)"]
    assert with_filter_suffix("/d/x", "JSON (*.json)", filters).name == "x.json"
    assert with_filter_suffix("/d/x.md", "JSON (*.json)", filters).name == "x.md"  # typed wins
    assert with_filter_suffix("/d/v1.2", "CSV (*.csv)", filters).name == "v1.2.csv"
    panel = _panel(qtbot, root)
    panel.show_runs(["local-bf16"])
    out = tmp_path / "exports"
    out.mkdir()
    asked: list[str] = []

    def save_as(name: str, chosen: str):
        def dialog(_parent, _title, start, _filters, *_options):
            asked.append(start)
            return str(out / name), chosen

        return dialog

    # The user picks "JSON (*.json)" and types a name without an extension (a modal file
    # dialog cannot be driven offscreen, so its answer is given here).
    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_as("table", "JSON (*.json)"))
    panel.export_dialog()
    assert json.loads((out / "table.json").read_text())["runs"][0]["name"] == "local-bf16"
    assert "table.json" in panel.message.text()
    assert settings().value(FOLDER_KEY) == str(out)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_as("knee", "PNG (*.png)"))
    panel.export_charts_dialog()
    assert Path(asked[-1]).parent == out  # the dialog opens where the last export went
    written = sorted(p.name for p in out.glob("knee*"))
    assert written == [
        "knee_pareto.png",
        "knee_throughput.png",
        "knee_tpot.png",
        "knee_ttft.png",
    ]
    for name in written:  # the message names the files that exist, not "knee.png"
        assert name in panel.message.text()
    assert "knee.png" not in panel.message.text()
    # Exporting again under the same name: the files it would replace are named and asked
    # about (the dialog itself only knew of "knee.png", which never exists).
    stamps = {p.name: p.stat().st_mtime_ns for p in out.glob("knee*")}
    (out / "knee_tpot.png").write_bytes(b"an older chart")
    questions: list[str] = []

    def answer(reply):
        def question(_parent, _title, text, *_args):
            questions.append(text)
            return reply

        return question

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.No))
    panel.export_charts_dialog()
    assert len(questions) == 1 and "knee_tpot.png" in questions[0]
    assert (out / "knee_tpot.png").read_bytes() == b"an older chart"  # "No" keeps every file
    assert (out / "knee_ttft.png").stat().st_mtime_ns == stamps["knee_ttft.png"]
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Yes))
    panel.export_charts_dialog()
    assert len(questions) == 2
    assert (out / "knee_tpot.png").read_bytes()[:4] == b"\x89PNG"  # replaced


def test_exported_charts_carry_run_model_gpu_date_and_the_floor(qtbot, tmp_path) -> None:
    from app.bench.results.write import roofline_block, write_point_json
    from app.bench.schema.codec import to_json_obj
    from app.bench.sweep.roofline_point import check_roofline

    context = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16", "kv_dtype": "fp16"}
    for conc, tpot in ((1, 19.7), (8, 24.0)):
        doc = {
            "date": "20261201-083000",
            "model_id": "qwen2.5-7b",
            "completed": 4,
            "duration": 2.0,
            "request_rate": "inf",
            "max_concurrency": conc,
            "median_tpot_ms": tpot,
            "p99_tpot_ms": tpot * 1.2,
            "output_throughput": conc * 1000 / tpot,
            "tpotbench": {
                "roofline": to_json_obj(
                    roofline_block(
                        check_roofline({**context, "context": 512}), conc, "concurrency", tpot
                    )
                )
            },
        }
        write_point_json(tmp_path / "runs" / f"ref_rateinf_conc{conc}.json", doc)
    panel = _panel(qtbot, tmp_path / "runs")
    panel.show_runs(["ref"])
    [_, tpot_svg, _, pareto_svg] = panel.export_charts(tmp_path / "c.svg")
    # The Pareto chart of a saved run: its loads and the hardware's frontier from the
    # roofline context each file recorded.
    pareto_texts = " ".join((e.text or "") for e in ET.parse(pareto_svg).iter())
    for word in ("conc 1", "conc 8", "hardware ×1", "b=64", "2026-12-01"):
        assert word in pareto_texts
    texts = " ".join((e.text or "") for e in ET.parse(tpot_svg).iter())
    for word in ("ref", "qwen2.5-7b", "RTX 3090", "2026-12-01 08:30", "floor"):
        assert word in texts
    dotted = [e for e in ET.parse(tpot_svg).iter() if e.get("stroke") == "#777777"]
    assert dotted  # the roofline floor is drawn under the TPOT curves


def test_points_of_different_runs_overlay_their_distributions(qtbot, root: Path) -> None:
    detailed = root / "vllm-detailed"
    detailed.mkdir()
    doc = {
        **VLLM_CONC32,
        "completed": 3,
        "failed": 1,
        "ttfts": [0.10, 0.12, 0.0, 0.30],
        "latencies": [1.0, 1.1, 0.0, 1.5],
        "input_lens": [100, 200, 150, 400],
        "output_lens": [10, 10, 0, 12],
        "itls": [[0.09] * 9, [0.1] * 9, [], [0.1] * 11],
        "errors": ["", "", "ReadTimeout", ""],
    }
    (detailed / "openai-chat-infqps-concurrency32-qwen2.5-7b-20250601-110000.json").write_text(
        json.dumps(doc)
    )
    panel = _panel(qtbot, root)
    panel.resize(1200, 900)
    panel.show()
    panel.show_runs(["local-bf16", "vllm-detailed"])
    runs = [panel.table.item(r, 0).text() for r in range(panel.table.rowCount())]
    assert runs == ["local-bf16", "local-bf16", "vllm-detailed"]
    view = panel.distributions
    for row, modifier in (
        (0, Qt.KeyboardModifier.NoModifier),
        (2, Qt.KeyboardModifier.ControlModifier),
    ):
        rect = panel.table.visualRect(panel.table.model().index(row, 1))
        qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())
    assert panel.chart_tabs.currentWidget() is view
    assert view.series_names() == ["local-bf16 r=inf c=2", "vllm-detailed r=inf c=32"]
    # Our file's 4 requests (its own block) and vLLM's 3 successful ones (detailed arrays).
    assert view.scatter_counts() == (4 + 3, 0)
    assert "1 failed" in view.note.text()
    assert len(view.dist_plot.getPlotItem().listDataItems()) == 2


def test_a_refresh_parses_only_the_files_that_changed(qtbot, root: Path) -> None:
    # After each finished point the window refreshes the folder: the points already read are
    # not parsed again (a user's history of thousands of files stalled the GUI thread).
    panel = _panel(qtbot, root)
    assert panel.file_cache.parsed == 5  # 2 + 2 + the broken one
    panel.refresh()
    assert panel.file_cache.parsed == 5
    assert len(panel.errors) == 1  # the broken file is still reported
    new = root / "vllm-old" / "openai-chat-8.0qps-concurrency16-qwen2.5-7b-20250601-104500.json"
    new.write_text(json.dumps({**VLLM_RATE4, "request_rate": 8.0}))
    panel.refresh()
    assert panel.file_cache.parsed == 6
    assert [(r.name, len(r.points)) for r in panel.runs] == [("local-bf16", 2), ("vllm-old", 3)]
