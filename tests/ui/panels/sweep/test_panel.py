"""The Sweep panel driving a real `tpotbench sweep` worker against the built-in simulator."""

from __future__ import annotations

import csv
import gc
import json
import math
import socket
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QTranslator

from app.bench.results.point_row import PointRow
from app.bench.results.read import load_result
from app.bench.schema.point_doc import read_point_doc
from app.bench.schema.run_config import LoadConfig, RequestOptions, RunConfig
from app.bench.sweep.contract import ServerMetrics
from app.commands.argv import build_run_config
from app.paths import resources_dir
from app.profiles import Target
from app.ui.exports.tables import TABLE_COLUMNS
from app.ui.panels.sweep.form_values import format_duration, parse_concurrencies, parse_rates
from app.ui.panels.sweep.panel import SweepPanel

COL = {key: i for i, (key, _h, _d) in enumerate(TABLE_COLUMNS)}


def _panel(qtbot, base_url: str, root: Path) -> SweepPanel:
    panel = SweepPanel(lambda: Target("Built-in simulator", base_url, "chat", ""))
    qtbot.addWidget(panel)
    panel.form.results_root.setText(str(root))
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
    panel.form.input_len.setValue(32)
    panel.form.rates.setText("inf")
    panel.form.label.setText("t")
    return panel


def test_rate_and_concurrency_lists_parse_or_say_what_is_wrong() -> None:
    assert parse_rates("1, 2,4 inf") == [1.0, 2.0, 4.0, math.inf]
    assert parse_concurrencies("1,4; 8") == [1, 4, 8]
    with pytest.raises(ValueError, match="'fast' is not a request rate"):
        parse_rates("1, fast")
    with pytest.raises(ValueError, match="above 0"):
        parse_rates("0")
    with pytest.raises(ValueError, match=r"'2\.5' is not a concurrency"):
        parse_concurrencies("2.5")
    with pytest.raises(ValueError, match="at least one concurrency"):
        parse_concurrencies(" , ")
    assert format_duration(59.6) == "1 min 0 s"
    assert format_duration(3725) == "1 h 2 min"


def test_presets_fill_the_field_guide_experiments(qtbot, tmp_path) -> None:
    panel = _panel(qtbot, "http://127.0.0.1:9", tmp_path)
    panel.form.apply_preset("A")
    spec = panel.build_spec()
    assert spec.request_rates == [1, 2, 4, 8, 16, math.inf]
    assert spec.max_concurrencies == [32]
    assert spec.label == "expA"
    assert spec.dataset == "sharegpt" and spec.dataset_path.endswith("sharegpt_synthetic.json")
    panel.form.apply_preset("B")
    spec = panel.build_spec()
    assert spec.request_rates == [math.inf]
    assert spec.max_concurrencies == [1, 4, 8, 16, 32, 64, 128]
    assert spec.num_points == 7
    qtbot.keyClicks(panel.form.concurrencies, ", 256")  # a hand edit is no longer experiment B
    assert panel.form.preset.currentData() == "custom"
    assert panel.build_spec().max_concurrencies[-1] == 256


def test_bad_form_input_is_a_message_not_a_run(qtbot, tmp_path) -> None:
    panel = _panel(qtbot, "http://127.0.0.1:9", tmp_path)
    panel.form.rates.setText("1, fast")
    assert panel.run() is False
    assert "'fast' is not a request rate" in panel.status.text()
    assert not panel.is_running()
    panel.form.rates.setText("inf")
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("prompts"))
    panel.form.dataset_path.setText(str(tmp_path / "missing.txt"))
    assert panel.run() is False
    assert "missing.txt does not exist" in panel.status.text()


def test_short_sweep_fills_table_and_charts_and_writes_files(qtbot, sim, tmp_path) -> None:
    panel = _panel(qtbot, sim.base_url, tmp_path)
    panel.form.concurrencies.setText("2, 4")
    panel.form.output_len.setValue(12)
    panel.form.num_prompts.setValue(8)
    running: list[bool] = []
    finished: list[PointRow] = []
    frozen: list[int] = []  # the heap is kept out of full collections during the run only
    panel.runningChanged.connect(running.append)
    panel.runningChanged.connect(lambda _r: frozen.append(gc.get_freeze_count()))
    panel.pointFinished.connect(finished.append)
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=45_000)
    assert panel.last_error == ""
    assert running == [True, False]
    assert frozen[0] > 0 and frozen[1] == 0 == gc.get_freeze_count()
    assert panel.status.text().startswith("Done: 2 point(s) saved in")
    # how the token times were stamped: the kernel's receive stamps, for all 16 requests
    if sys.platform == "linux":
        assert "Token times: 16 × kernel receive stamps." in panel.status.text()

    # Files: one JSON per point, named like the field guide, plus sweep.csv.
    run_dir = panel.run_dir
    assert run_dir is not None and run_dir.parent == tmp_path
    for conc in (2, 4):
        point = load_result(run_dir / f"t_rateinf_conc{conc}.json")
        assert (point.completed, point.failed, point.max_concurrency) == (8, 0, conc)
        assert point.total_output_tokens == 8 * 12  # random dataset: exact output length
    with open(run_dir / "sweep.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 2

    # Table: a row per finished point, in order.
    assert panel.table.rowCount() == 2
    cells = [
        [panel.table.item(r, c).text() for c in range(panel.table.columnCount())] for r in range(2)
    ]
    assert [row[COL["max_concurrency"]] for row in cells] == ["2", "4"]
    assert [row[COL["request_rate"]] for row in cells] == ["inf", "inf"]
    assert [row[COL["completed"]] for row in cells] == ["8", "8"]
    assert [f.path for f in finished] == [
        str(run_dir / "t_rateinf_conc2.json"),
        str(run_dir / "t_rateinf_conc4.json"),
    ]

    # Live charts: every gap after a request's first chunk (12 tokens -> 11 gaps, one token
    # per chunk on the simulator), 16 requests' TPOTs, progress samples.
    assert panel.live.tokens.total_added == 2 * 8 * 11
    assert panel.live.requests.total_added == 16
    itl = panel.live.tokens.view()[:, 1]
    # The charts show the very gaps the files hold (on any load: a busy client stamps late, but
    # the same stamps go to both): 88 gaps per point, so the mean of all is the points' mean.
    means = [load_result(run_dir / f"t_rateinf_conc{c}.json").metric("itl", "mean") for c in (2, 4)]
    assert float(np.mean(itl)) == pytest.approx(sum(means) / 2, rel=1e-3, abs=1e-3)
    assert len(panel.live.rolling) >= 1 and len(panel.live.progress) >= 2
    x, y = panel.live.scatter_data()
    assert 0 < len(x) <= 176  # one dot per lit 2x2-pixel cell
    assert float(y.max()) >= float(itl.max()) / 1.1  # the slowest gap is drawn

    # Sweep curves: x slots 0, 1 for concurrency 2, 4, y = the points' throughputs.
    assert panel.curves.axis == "concurrency"
    item = panel.curves.throughput.getPlotItem().listDataItems()[0]
    xs, ys = item.getData()
    assert xs.tolist() == [0.0, 1.0]
    assert ys.tolist() == [f.output_throughput for f in finished]
    ticks = panel.curves.throughput.getPlotItem().getAxis("bottom")._tickLevels
    assert [label for _, label in ticks[0]] == ["2", "4"]


def test_cancel_mid_sweep_keeps_finished_points(qtbot, sim, tmp_path) -> None:
    panel = _panel(qtbot, sim.base_url, tmp_path)
    panel.form.concurrencies.setText("4, 1, 2")
    panel.form.output_len.setValue(16)
    panel.form.num_prompts.setValue(8)
    first: list[PointRow] = []
    panel.pointFinished.connect(first.append)
    assert panel.run()
    qtbot.waitUntil(lambda: len(first) >= 1, timeout=30_000)
    panel.cancel()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=30_000)
    assert panel.status.text().startswith("Cancelled:")
    assert panel.last_error == ""
    run_dir = panel.run_dir
    assert run_dir is not None
    done = load_result(run_dir / "t_rateinf_conc4.json")
    assert done.completed == 8
    # The point running at the cancel is saved too (marked cancelled); the last never starts.
    assert not (run_dir / "t_rateinf_conc2.json").exists()
    saved = sorted(p.name for p in run_dir.glob("t_*.json"))
    assert saved == sorted(Path(p.path).name for p in panel.points)
    assert panel.table.rowCount() == len(panel.points)


def test_unreachable_endpoint_is_a_readable_message(qtbot, tmp_path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = tmp_path / "results"
    root.mkdir()
    panel = _panel(qtbot, f"http://127.0.0.1:{port}", root)
    panel.form.concurrencies.setText("2")
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=30_000)
    assert "cannot reach" in panel.last_error
    assert "Traceback" not in panel.status.text()
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    # the run's folder, made for it and left empty, is gone again; the results root stays
    assert root.is_dir() and list(root.iterdir()) == []


def test_server_metrics_events_are_forwarded(qtbot, tmp_path) -> None:
    panel = _panel(qtbot, "http://127.0.0.1:9", tmp_path)
    sample = ServerMetrics(1.5, 0.25, 3, None, None)
    with qtbot.waitSignal(panel.serverMetrics) as blocker:
        panel.worker.serverMetrics.emit(sample)
    assert blocker.args == [sample]


def test_chinese_translation_covers_the_panel(qtbot, qapp, tmp_path) -> None:
    translator = QTranslator()
    assert translator.load("tpotbench_zh_CN", str(resources_dir() / "i18n"))
    qapp.installTranslator(translator)
    try:
        panel = _panel(qtbot, "http://127.0.0.1:9", tmp_path)
        assert panel.run_button.text() == "开始扫描"
        assert panel.tabs.tabText(1) == "扫描曲线"
        header = panel.table.horizontalHeaderItem(COL["max_concurrency"])
        assert header.text() == "并发数" and "AIPerf" in header.toolTip()
        with pytest.raises(ValueError, match="不是有效的请求速率"):
            parse_rates("fast")
    finally:
        qapp.removeTranslator(translator)


def test_cancel_says_what_it_waits_for_and_reports_the_partial_point(qtbot, sim, tmp_path) -> None:
    panel = _panel(qtbot, sim.base_url, tmp_path)
    panel.form.concurrencies.setText("2, 4")
    panel.form.output_len.setValue(48)
    panel.form.num_prompts.setValue(12)  # about 6 s at concurrency 2: time to cancel mid-point
    assert panel.run()
    qtbot.waitUntil(lambda: panel.run_model.progress.completed >= 2, timeout=60_000)
    panel.cancel()
    panel._repaint()  # a frame during the drain: no time left, no jump
    assert panel.status.text().startswith("Cancelling:")
    assert "left" not in panel.status.text()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=60_000)
    [point] = panel.points
    assert point.path.endswith(".partial.json")
    done = point.completed
    assert 2 <= done < 12
    text = panel.status.text()
    assert text.startswith("Cancelled: 0 complete point(s)")
    assert f"({done} of 12 requests finished)" in text and ".partial.json" in text
    assert panel.progress_bar.value() < panel.progress_bar.maximum()
    assert panel.table.item(0, COL["completed"]).text() == f"{done} / 12"


def test_advanced_settings_reach_the_run_config(qtbot, tmp_path) -> None:
    panel = _panel(qtbot, "http://127.0.0.1:9", tmp_path)
    panel.form.concurrencies.setText("2")
    target = Target("x", "http://127.0.0.1:9", "chat", "")

    def config() -> RunConfig:
        return build_run_config(panel.build_spec(), target)

    defaults = config()
    assert (defaults.load, defaults.options) == (
        LoadConfig(request_rates=defaults.load.request_rates, max_concurrencies=(2,)),
        RequestOptions(),
    )  # defaults set nothing
    panel.form.advanced.burstiness.setValue(0.5)
    panel.form.advanced.warmups.setValue(2)
    panel.form.advanced.temperature.setValue(0.0)
    panel.form.advanced.request_timeout.setValue(120)
    chosen = config()
    assert (chosen.load.burstiness, chosen.load.num_warmups) == (0.5, 2)
    assert (chosen.options.temperature, chosen.options.request_timeout_s) == (0.0, 120)
    assert panel.form.advanced.temperature.text() != "server default"
    panel.form.advanced.workers.setValue(3)
    assert config().load.workers == 3
    panel.form.advanced.reset()
    assert panel.form.advanced.temperature.text() == "server default"
    assert config() == defaults


def test_advanced_settings_run_and_are_recorded(qtbot, sim, tmp_path) -> None:
    panel = _panel(qtbot, sim.base_url, tmp_path)
    panel.form.rates.setText("40")
    panel.form.concurrencies.setText("2")
    panel.form.num_prompts.setValue(4)
    panel.form.output_len.setValue(4)
    panel.form.advanced.burstiness.setValue(0.5)
    panel.form.advanced.warmups.setValue(1)
    panel.form.advanced.temperature.setValue(0.0)
    panel.form.advanced.request_timeout.setValue(60)
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=60_000)
    assert panel.last_error == "", panel.status.text()
    [point] = panel.points
    doc = json.loads(Path(point.path).read_text())
    assert doc["burstiness"] == 0.5 and doc["completed"] == 4
    assert doc["tpotbench"]["num_warmups"] == 1


def test_a_run_where_every_request_fails_shows_no_curves_of_the_run_before(
    qtbot, sim, tmp_path
) -> None:
    target = {"url": sim.base_url}
    panel = SweepPanel(lambda: Target("Built-in simulator", target["url"], "chat", ""))
    qtbot.addWidget(panel)
    panel.form.results_root.setText(str(tmp_path))
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
    panel.form.input_len.setValue(32)
    panel.form.rates.setText("inf")
    panel.form.concurrencies.setText("2")
    panel.form.output_len.setValue(12)
    panel.form.num_prompts.setValue(4)
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=45_000)
    p50 = panel.live._p50
    assert len(p50.getData()[0]) >= 1  # the first run drew its rolling TPOT
    with socket.socket() as s:  # the second run's endpoint: nothing listens, every request fails
        s.bind(("127.0.0.1", 0))
        target["url"] = f"http://127.0.0.1:{s.getsockname()[1]}"
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=45_000)
    for curve in (p50, panel.live._p99, panel.live._tok, panel.live._flight):
        xs, _ys = curve.getData()
        assert xs is None or len(xs) == 0


def test_a_new_run_starts_the_table_at_its_first_columns(qtbot, tmp_path) -> None:
    from app.bench.sweep.contract import PointFinished

    panel = _panel(qtbot, "http://127.0.0.1:9", tmp_path)
    panel.resize(500, 600)
    panel.show()
    qtbot.waitExposed(panel)
    doc = {"completed": 8, "failed": 0, "request_rate": "inf", "max_concurrency": 4,
           "median_tpot_ms": 20.0, "p99_tpot_ms": 22.0, "output_throughput": 100.0}  # fmt: skip
    panel._on_point_finished(
        PointFinished(0, str(tmp_path / "a.json"), read_point_doc(doc, strict=True))
    )
    bar = panel.table.horizontalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())  # the user read the last columns of the previous run
    panel.charts.clear([])
    assert bar.value() == 0
