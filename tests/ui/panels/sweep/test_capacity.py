"""Find capacity in the window: the preset, the SLO editor, a live search against the
simulator (a real `tpotbench search` worker), coloured cells, marks on the curves, the why."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtGui import QColor

from app.bench.capacity import why as engine_why
from app.bench.schema.codec import to_json_obj
from app.bench.schema.search_doc import read_search_doc
from app.bench.sweep.contract import SearchValue
from app.commands.argv import SweepSpec, build_run_config
from app.profiles import Target
from app.ui.exports.tables import TABLE_COLUMNS
from app.ui.panels.results.panel import ResultsPanel
from app.ui.panels.sweep.panel import SweepPanel
from app.ui.panels.sweep.slo_editor import SloDialog, SloSummary
from app.ui.plots.capacity import (
    FAIL_BG,
    PASS_BG,
    capacity_text,
    why_text,
)
from app.ui.run_extras import RunExtras

COL = {key: i for i, (key, _h, _d) in enumerate(TABLE_COLUMNS)}


def _lines(plot: pg.PlotWidget) -> list[pg.InfiniteLine]:
    return [i for i in plot.getPlotItem().items if isinstance(i, pg.InfiniteLine)]


def test_the_window_says_the_engines_why_in_its_language() -> None:
    from PySide6.QtCore import QLocale

    params = {"queue_ms": 900.0, "ttft_ms": 1000.0, "waiting": 3.0, "peak": 9.0, "running": 2.0}
    why = engine_why.why_block("queue", params, {}, confidence="high", runner_up="kv")
    assert why_text(why) == why.text
    assert "Runner-up: the KV cache." in why_text(why)
    QLocale.setDefault(QLocale("zh_CN"))
    try:
        chinese = why_text(why)
    finally:
        QLocale.setDefault(QLocale("en_US"))
    assert chinese == engine_why.render(why, "zh_CN") == why.text_zh
    assert "请求在服务端排队" in chinese and "置信度：高" in chinese
    # A why read from the boundary's full re-run says so.
    doc = {
        "over": "concurrency",
        "boundary": {"highest_pass": 2, "lowest_fail": 3, "failed_slos": ["ttft:p99:300"]},
        "boundary_why": to_json_obj(why),
        "boundary_evidence": {"value": 3, "num_requests": 16, "measuring_s": 4.3},
    }
    line = capacity_text(read_search_doc(doc)).splitlines()[1]
    assert line.startswith("Why (from a full run at 3 streams, 16 requests): Requests queue")


def test_a_pass_above_fails_is_named_once() -> None:
    doc = {
        "over": "concurrency",
        "boundary": {"highest_pass": 11, "lowest_fail": 12, "failed_slos": ["tpot:p99:40"]},
        "violations": [{"fail": 12, "pass": 24}, {"fail": 16, "pass": 24}],
    }
    lines = capacity_text(read_search_doc(doc)).splitlines()
    assert lines[0] == "Capacity: 11 streams within every SLO; at 12 streams it fails tpot:p99:40."
    assert lines[1:] == ["Not monotonic: 24 streams passed above a failing load; run again."]


def test_a_search_stopped_where_its_prompts_run_out_says_so() -> None:
    doc = {
        "over": "concurrency",
        "settings": {"num_prompts": 16},
        "boundary": {"highest_pass": 16, "lowest_fail": None, "failed_slos": []},
        "fill_limit": 16,
    }
    lines = capacity_text(read_search_doc(doc)).splitlines()
    assert lines[0] == "Capacity: 16 streams or more (every load tried met every SLO)."
    assert lines[1].startswith("16 prompts cannot hold more streams in flight")
    assert "Prompts per point" in lines[1]


def test_slo_dialog_round_trip(qtbot) -> None:
    summary = SloSummary()
    qtbot.addWidget(summary)
    dialog = SloDialog(["tpot:p99:50"])
    qtbot.addWidget(dialog)
    check, combo, spin = dialog.rows["ttft"]
    check.setChecked(True)
    combo.setCurrentIndex(combo.findData("p90"))
    spin.setValue(1500)
    assert dialog.slos() == ["ttft:p90:1500", "tpot:p99:50"]
    summary.set_slos(dialog.slos())
    assert "TTFT P90 ≤ 1500 ms" in summary.label.text()


def test_capacity_preset_builds_a_search(qtbot, tmp_path: Path) -> None:
    panel = SweepPanel(lambda: Target("x", "http://127.0.0.1:9", "chat", ""))
    qtbot.addWidget(panel)
    panel.form.results_root.setText(str(tmp_path))
    panel.form.apply_preset("capacity")
    spec = panel.build_spec()
    # Sized for an answer in about 2 minutes on the simulator (11 loads, 121 s measured).
    assert spec.search == {"start": 4.0, "max": 256.0}
    assert (spec.dataset, spec.num_prompts) == ("random", 128)
    assert (panel.form.input_len.value(), panel.form.output_len.value()) == (256, 64)
    assert spec.slos == ["ttft:p99:2000", "tpot:p99:50"]
    spec.result_dir = str(tmp_path)
    config = build_run_config(spec, Target("x", "http://127.0.0.1:9", "chat", ""))
    assert config.command == "search" and config.search is not None
    assert list(config.slo.slos) == spec.slos
    assert config.load.max_concurrencies is None and config.search.max == 256
    qtbot.keyClicks(panel.form.concurrencies, "0")  # "4, 2560": still the search, a new maximum
    assert panel.form.preset.currentData() == "capacity"
    panel.form.concurrencies.setText("1, 2, 3")
    try:
        panel.build_spec()
    except ValueError as exc:
        assert "two concurrencies" in str(exc)
    else:
        raise AssertionError("three concurrencies accepted for a search")
    # A grid sweep with SLOs stays a sweep, judged per point.
    plain = build_run_config(SweepSpec(slos=["tpot:p99:50"]), Target("x", "http://h", "chat", ""))
    assert plain.command == "sweep" and plain.slo.slos == ("tpot:p99:50",)


def test_live_search_against_the_simulator(qtbot, sim, tmp_path: Path) -> None:
    small = RunExtras(flags=("--min-prompts", "4", "--prompts-per-unit", "1"))
    panel = SweepPanel(
        lambda: Target("Built-in simulator", sim.base_url, "chat", ""), lambda: small
    )
    qtbot.addWidget(panel)
    panel.resize(1280, 800)
    panel.form.results_root.setText(str(tmp_path))
    panel.form.apply_preset("capacity")
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
    panel.form.input_len.setValue(16)
    panel.form.output_len.setValue(12)
    panel.form.ignore_eos.setChecked(True)
    panel.form.concurrencies.setText("1, 8")
    panel.form.slo_summary.set_slos(["tpot:p99:26"])  # decode at batch >= ~4 is slower than this
    panel.form.num_prompts.setValue(16)
    values: list[SearchValue] = []
    panel.worker.searchValue.connect(values.append)
    assert panel.run() is True
    qtbot.waitUntil(lambda: bool(values), timeout=60_000)
    assert not panel.capacity.isHidden() and "Search:" in panel.capacity.text()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=120_000)
    assert panel.search_doc is not None, panel.last_error
    boundary = panel.search_doc.boundary
    assert panel.capacity.text().startswith("Capacity:")
    assert panel.tabs.currentWidget() is panel.curves  # the answer is on the curves
    assert panel.run_dir is not None and (panel.run_dir / "search.json").exists()
    # the status line says how the token times were stamped
    assert panel.status.text().startswith("Search done:")
    if sys.platform == "linux":
        assert "× kernel receive stamps." in panel.status.text()
    # Every row is judged: the TPOT P99 cell and the concurrency cell coloured pass or fail.
    rows = panel.table.rowCount()
    assert rows == len(panel.search_doc.points or values)
    colours = {
        panel.table.item(r, COL["p99_tpot_ms"]).background().color().name() for r in range(rows)
    }
    assert colours <= {QColor(PASS_BG).name(), QColor(FAIL_BG).name()} and len(colours) >= 1
    panel._repaint()
    tpot_lines = _lines(panel.curves.tpot)
    assert any(line.angle == 0 and math.isclose(line.value(), 26.0) for line in tpot_lines)
    if boundary.highest_pass is not None and boundary.lowest_fail is not None:
        assert any(line.angle == 90 for line in _lines(panel.curves.throughput))


def test_results_panel_shows_a_saved_search(qtbot, tmp_path: Path) -> None:
    run = tmp_path / "capacity-1"
    run.mkdir()
    for conc, tpot, ok in ((1, 20.0, True), (2, 30.0, True), (4, 60.0, False), (8, 90, False)):
        doc = {
            "label": "capacity",
            "request_rate": "inf",
            "max_concurrency": conc,
            "completed": 10,
            "failed": 0,
            "duration": 1.0,
            "p99_tpot_ms": tpot,
            "median_tpot_ms": tpot,
            "p99_ttft_ms": 100.0,
            "tpotbench": {
                "slo": {
                    "limits": [{"metric": "tpot", "stat": "p99", "limit_ms": 50.0}],
                    "passed": ok,
                    "checks": [{"slo": "tpot:p99:50", "kind": "stat", "passed": ok}],
                },
                "early_stop": {"reason": "tpot:p99:50: 2 of 10 over"} if conc == 8 else None,
            },
        }
        (run / f"capacity_rateinf_conc{conc}.json").write_text(json.dumps(doc))
    search = {
        "over": "concurrency",
        "boundary": {"highest_pass": 2, "lowest_fail": 4, "failed_slos": ["tpot:p99:50"]},
        "boundary_why": to_json_obj(
            engine_why.why_block(
                "chunked_prefill",
                {"itl_p99": 160.0, "itl_p50": 20.0, "ratio": 8.0, "prompt": 1500.0, "roof": 90.0},
                {},
            )
        ),
        "knee": {},
    }
    (run / "search.json").write_text(json.dumps(search))
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(tmp_path)
    assert not panel.errors  # search.json is not taken for a broken point file
    panel.show_runs(["capacity-1"])
    assert panel.capacity.text() == capacity_text(read_search_doc(search), knees=False)
    assert "Decode steps are stalled by prefill" in panel.capacity.text()
    # However small the panel, the whole why shows: the label is never cut to fewer lines.
    panel.resize(640, 420)
    panel.show()
    qtbot.waitExposed(panel)
    label = panel.capacity
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()) > 0)
    fail_row = next(
        r
        for r in range(panel.table.rowCount())
        if panel.table.item(r, 1 + COL["max_concurrency"]).text() == "4"
    )
    cell = panel.table.item(fail_row, 1 + COL["p99_tpot_ms"])
    assert cell.background().color().name() == QColor(FAIL_BG).name()
    # The early-stopped point is in the table, not on the curves.
    assert panel.table.rowCount() == 4
    assert len(panel.curves.tpot.getPlotItem().listDataItems()[0].xData) == 3
    verticals = [line for line in _lines(panel.curves.tpot) if line.angle == 90]
    assert any(math.isclose(line.value(), 1.5) for line in verticals)  # between 2 and 4


def test_presets_never_carry_the_searchs_slos_into_a_grid(qtbot, tmp_path: Path) -> None:
    panel = SweepPanel(lambda: Target("x", "http://127.0.0.1:9", "chat", ""))
    qtbot.addWidget(panel)
    form = panel.form
    form.results_root.setText(str(tmp_path))
    form.apply_preset("capacity")
    assert form.slo_summary.slos() == ["ttft:p99:2000", "tpot:p99:50"]
    form.advanced_toggle.setChecked(False)  # the section holding them folded again
    for key in ("demo", "A", "B"):
        form.apply_preset(key)
        assert panel.build_spec().slos == [], key  # no goal the user cannot see judges a point
        form.apply_preset("capacity")
    # Goals the user chose stay with them, and in view.
    form.slo_summary.set_slos(["tpot:p99:40"])
    form.advanced_toggle.setChecked(False)
    form.apply_preset("B")
    assert panel.build_spec().slos == ["tpot:p99:40"]
    assert form.advanced_toggle.isChecked() and not form.advanced.isHidden()
