"""Roofline floor and MBU in the GUI: results table and exports, and the sweep worker's flags."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from app.bench.results.write import roofline_block, write_point_json
from app.bench.schema.codec import to_json_obj
from app.bench.sweep.roofline_point import check_roofline
from app.ui.exports.tables import TABLE_COLUMNS, cell_text, runs_csv, runs_json
from app.ui.main_window import MainWindow
from app.ui.panels.results.panel import ResultsPanel
from app.ui.plots.sweep_curves import Series
from tests.ui.rows import row_of

REFERENCE = {
    "gpu_id": "rtx3090",
    "model_id": "qwen2.5-7b",
    "fmt": "bf16",
    "kv_dtype": "fp16",
    "context": 512,
}
COL = {key: i for i, (key, _h, _d) in enumerate(TABLE_COLUMNS, start=1)}


def _doc(roofline: dict | None) -> dict:
    return {
        "completed": 4,
        "duration": 2.0,
        "request_rate": "inf",
        "max_concurrency": 1,
        "median_tpot_ms": 19.7,
        "tpotbench": {"roofline": roofline},
    }


def test_live_summary_cells_read_the_nested_block() -> None:
    # A live point_finished summary nests the figures; 19.7 ms at batch 1 is the reference.
    live = row_of(
        _doc(to_json_obj(roofline_block(check_roofline(REFERENCE), 1, "concurrency", 19.7)))
    )
    bare = row_of(_doc(None))
    assert cell_text(live, "floor_tpot_ms", 2) == "15.14"
    assert cell_text(live, "mbu", None) == "76.9 %"
    assert cell_text(bare, "floor_tpot_ms", 2) == "–"
    assert cell_text(bare, "mbu", None) == "–"
    text = runs_csv([Series("live", [live, bare])])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert float(rows[0]["floor_tpot_ms"]) == pytest.approx(15.139528, abs=1e-6)
    assert float(rows[0]["mbu"]) == pytest.approx(0.768504, abs=1e-6)
    assert rows[0]["roofline_batch"] == "1.0"
    assert (rows[1]["floor_tpot_ms"], rows[1]["mbu"]) == ("", "")
    [point, empty] = json.loads(runs_json([Series("live", [live, bare])]))["runs"][0]["points"]
    assert point["mbu"] == pytest.approx(0.768504, abs=1e-6) and empty["mbu"] is None


def test_results_panel_table_and_exports_show_floor_and_mbu(qtbot, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    write_point_json(
        root / "ref_rateinf_conc1.json",
        _doc(to_json_obj(roofline_block(check_roofline(REFERENCE), 1, "concurrency", 19.7))),
    )
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(root)
    panel.show_runs(["ref"])
    assert panel.table.horizontalHeaderItem(COL["floor_tpot_ms"]).text() == "Floor (ms)"
    assert panel.table.item(0, COL["floor_tpot_ms"]).text() == "15.14"
    assert panel.table.item(0, COL["mbu"]).text() == "76.9 %"
    assert "bandwidth" in panel.table.horizontalHeaderItem(COL["mbu"]).toolTip()
    with open(panel.export_data(tmp_path / "x.csv"), newline="") as fh:
        [row] = list(csv.DictReader(fh))
    assert float(row["floor_tpot_ms"]) == pytest.approx(15.139528, abs=1e-6)
    assert float(row["mbu"]) == pytest.approx(0.768504, abs=1e-6)
    markdown = panel.export_data(tmp_path / "x.md").read_text()
    assert "| 15.14 | 76.9 % |" in markdown


@pytest.fixture
def window(sim_window: MainWindow) -> MainWindow:
    return sim_window


def _flags(args: list[str]) -> dict[str, str]:
    names = ("--gpu", "--roofline-model", "--dtype", "--kv-dtype", "--roofline-context")
    assert sum(args.count(n) for n in names) == len(names)  # each once, never duplicated
    return {n: args[args.index(n) + 1] for n in names}


def test_sweep_worker_gets_the_docks_context_and_follows_it(window: MainWindow) -> None:
    # The run reads the dock's context when it is built: one value, no list kept in sync.
    def args() -> list[str]:  # the run's flags, as "Copy as command" gives them
        from app.commands.argv import build_run_config
        from app.commands.run_args import config_argv

        return config_argv(build_run_config(window.sweep.build_spec(), window.current_target()))

    assert _flags(args()) == {
        "--gpu": "rtx3090",
        "--roofline-model": "qwen2.5-7b",
        "--dtype": "bf16",
        "--kv-dtype": "fp16",
        "--roofline-context": "512",
    }
    panel = window.roofline
    # The user picks AWQ INT4 in the dock: the next sweep records that.
    panel.picker.fmt_combo.setCurrentIndex(panel.picker.fmt_combo.findData("awq-int4"))
    assert _flags(args())["--dtype"] == "awq-int4"
    assert args().count("--server-metrics") == 1
    # Another profile's saved context is applied without a contextChanged signal.
    store = window.ctx.store
    store.set_roofline(store.simulator().name, {**REFERENCE, "gpu_id": "h100-sxm"})
    window._on_profile_changed(store.simulator().name)
    assert _flags(args())["--gpu"] == "h100-sxm"
