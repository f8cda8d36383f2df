"""The window's exports land as `tpotbench report` writes its outputs: a symlink is written
through (the link stays a link, its target gets the chart), a FIFO is refused with one clear
message in the window and left a FIFO (Qt writing straight onto it would block or replace it)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from PySide6.QtCore import QTranslator
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.paths import resources_dir
from app.ui.exports.charts import export_plot
from app.ui.panels.results.panel import ResultsPanel
from app.ui.plots.pareto import ParetoPlot


def _run(root: Path) -> None:
    run = root / "lead"
    run.mkdir(parents=True)
    for c in (1, 4, 16):
        point = {"backend": "openai-chat", "model_id": "m", "label": "lead", "num_prompts": 64,
                 "request_rate": "inf", "max_concurrency": c, "duration": 10.0, "completed": 64,
                 "failed": 0, "request_throughput": 1.0, "output_throughput": 40.0 * c,
                 "median_tpot_ms": 20 + c, "p99_tpot_ms": 25 + c, "median_ttft_ms": 50.0,
                 "p99_ttft_ms": 90.0 * c}  # fmt: skip
        (run / f"lead_rateinf_conc{c}.json").write_text(json.dumps(point), encoding="utf-8")


def _panel(qtbot, tmp_path: Path) -> ResultsPanel:
    root = tmp_path / "results"
    _run(root)
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(root)
    panel.show_runs(["lead"])
    return panel


def _export_to(monkeypatch, panel: ResultsPanel, target: Path, charts: bool) -> None:
    # "Replace files?" answered Yes: the export then meets what is really there.
    monkeypatch.setattr(QMessageBox, "question", lambda *_a: QMessageBox.StandardButton.Yes)
    chosen = "PNG (*.png)" if charts else "CSV (*.csv)"
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(target), chosen)
    )  # a modal dialog cannot be driven offscreen: its answer is given here
    (panel.export_charts_dialog if charts else panel.export_dialog)()


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_a_fifo_is_refused_with_one_message_and_left_alone(
    qtbot, qapp, tmp_path: Path, monkeypatch, lang: str
) -> None:
    translator = QTranslator()
    if lang != "en":
        assert translator.load(f"tpotbench_{lang}", str(resources_dir() / "i18n"))
        qapp.installTranslator(translator)
    try:
        panel = _panel(qtbot, tmp_path)
        out = tmp_path / "out"
        out.mkdir()
        fifo = out / "charts_throughput.png"  # the first file a chart export writes
        os.mkfifo(fifo)
        _export_to(monkeypatch, panel, out / "charts.png", charts=True)
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still a FIFO, not a PNG
        message = panel.message.text()
        assert str(fifo) in message and message.count("\n") == 0
        words = "FIFO" if lang == "en" else "不是普通文件"
        assert words in message, message
        assert not list(out.glob(".*.tmp"))  # no temp file left behind
        # The data export too.
        data_fifo = out / "table.csv"
        os.mkfifo(data_fifo)
        _export_to(monkeypatch, panel, data_fifo, charts=False)
        assert stat.S_ISFIFO(os.lstat(data_fifo).st_mode)
        assert str(data_fifo) in panel.message.text() and words in panel.message.text()
    finally:
        qapp.removeTranslator(translator)


def test_a_symlink_is_written_through(qtbot, tmp_path: Path, monkeypatch) -> None:
    panel = _panel(qtbot, tmp_path)
    out = tmp_path / "out"
    elsewhere = tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    real = elsewhere / "tpot.png"
    real.write_bytes(b"an older chart")
    link = out / "charts_tpot.png"
    link.symlink_to(real)
    _export_to(monkeypatch, panel, out / "charts.png", charts=True)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes()[:4] == b"\x89PNG"  # the link's target got the chart
    assert (out / "charts_ttft.png").read_bytes()[:4] == b"\x89PNG"


def test_an_svg_onto_a_fifo_is_refused_too(qtbot, tmp_path: Path) -> None:
    plot = ParetoPlot()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    fifo = tmp_path / "pareto.svg"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        export_plot(plot, fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    target = tmp_path / "pareto2.svg"
    export_plot(plot, target)
    assert target.read_text(encoding="utf-8").lstrip().startswith("<?xml")
