"""The Sweep panel's dataset choices turned into the run's dataset settings, the shared-prefix
dataset run against the simulator from the window, and the workload columns (reasoning, prefix
cache, speculative decoding, conversations) shown only when some point in the table has them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.bench.schema.run_config import DatasetConfig
from app.commands.argv import DATASETS, build_run_config
from app.paths import resources_dir
from app.profiles import Target
from app.ui.exports.tables import OPTIONAL_KEYS, TABLE_COLUMNS, cell_text
from app.ui.panels.results.panel import ResultsPanel
from app.ui.panels.sweep.dataset_fields import SYNTHETIC_DATASET
from app.ui.panels.sweep.panel import SweepPanel
from tests.documents import document
from tests.ui.rows import row_of

COL = {key: i for i, (key, _h, _d) in enumerate(TABLE_COLUMNS)}
TARGET = Target("sim", "http://127.0.0.1:9", "chat", "")


# What each choice sets in the run's DatasetConfig besides the prompts per point ({file}: the
# file chosen in the form, {shipped}: the shipped synthetic ShareGPT file).
EXPECTED: dict[str, dict[str, Any]] = {
    "synthetic": {"name": "sharegpt", "path": "{shipped}"},
    "conversations": {
        "name": "sharegpt",
        "multi_turn": True,
        "num_prompts": None,  # counted in sessions: the CLI refuses --num-prompts with them
        "num_sessions": 7,
        "path": "{file}",
        "max_turns": 4,
        "think_time_s": 1.5,
        "think_time_stddev_s": 0.25,
    },
    "prefix": {
        "name": "prefix",
        "prefix_len": 300,
        "suffix_len": 40,
        "num_prefixes": 3,
        "prefix_output_len": 20,
    },
    "mooncake": {"name": "mooncake", "path": "{file}", "trace_speedup": 2.5},
    "sharegpt": {"name": "sharegpt", "path": "{file}"},
    "random": {"name": "random", "random_input_len": 111, "random_output_len": 22},
    "prompts": {"name": "prompts", "path": "{file}"},
}


@pytest.mark.parametrize("kind", DATASETS)
def test_each_dataset_choice_builds_its_dataset(qtbot, tmp_path: Path, kind: str) -> None:
    panel = SweepPanel(lambda: TARGET)
    qtbot.addWidget(panel)
    panel.show()
    data = tmp_path / "data.json"
    data.write_text("[]", encoding="utf-8")
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData(kind))
    panel.form.dataset_path.setText(str(data))
    panel.form.num_prompts.setValue(7)
    panel.form.input_len.setValue(111)
    panel.form.output_len.setValue(22)
    panel.form.prefix_len.setValue(300)
    panel.form.suffix_len.setValue(40)
    panel.form.num_prefixes.setValue(3)
    panel.form.prefix_output_len.setValue(20)
    panel.form.trace_speedup.setValue(2.5)
    panel.form.max_turns.setValue(4)
    panel.form.think_time.setValue(1.5)
    panel.form.think_stddev.setValue(0.25)
    spec = panel.build_spec()
    spec.result_dir = str(tmp_path)
    shipped = str(resources_dir() / SYNTHETIC_DATASET)
    expected = {
        key: value.format(file=data, shipped=shipped) if isinstance(value, str) else value
        for key, value in EXPECTED[kind].items()
    }
    config = build_run_config(spec, TARGET)
    assert config.dataset == replace(DatasetConfig(num_prompts=7), **expected)
    # a trace sends on its own timestamps: the CLI refuses --request-rate with it
    assert (config.load.request_rates is not None) == (kind != "mooncake")
    assert panel.form.trace_speedup.isVisibleTo(panel) == (kind == "mooncake")
    # only the fields of the chosen dataset are shown / enabled
    prefix_rows = (panel.form.prefix_row, panel.form.suffix_row, panel.form.labels["prefix"])
    assert all(w.isVisible() == (kind == "prefix") for w in prefix_rows)
    assert panel.form.dataset_row.isEnabled() == (
        kind in ("sharegpt", "prompts", "mooncake", "conversations")
    )
    conversation_rows = (panel.form.data.session_row, panel.form.labels["session"])
    assert all(w.isVisible() == (kind == "conversations") for w in conversation_rows)
    assert panel.form.lengths_row.isEnabled() == (kind == "random")


def _visible_keys(table, first: int = 0) -> set[str]:
    return {
        key
        for col, (key, _h, _d) in enumerate(TABLE_COLUMNS, start=first)
        if not table.isColumnHidden(col)
    }


def test_prefix_sweep_shows_cache_columns_and_a_plain_one_does_not(
    qtbot, sim, tmp_path: Path
) -> None:
    panel = SweepPanel(lambda: Target("Built-in simulator", sim.base_url, "chat", ""))
    qtbot.addWidget(panel)
    assert not _visible_keys(panel.table) & set(OPTIONAL_KEYS)  # an empty table
    panel.form.results_root.setText(str(tmp_path))
    panel.form.rates.setText("inf")
    panel.form.concurrencies.setText("1")
    panel.form.num_prompts.setValue(6)

    # a plain run: the table is as wide as before
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
    panel.form.input_len.setValue(32)
    panel.form.output_len.setValue(4)
    panel.form.label.setText("plain")
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=90_000)
    assert panel.last_error == ""
    assert panel.table.rowCount() == 1
    assert not _visible_keys(panel.table) & set(OPTIONAL_KEYS)
    plain_dir = panel.run_dir

    # the shared-prefix dataset: every prompt after the first of its prefix hits the cache
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("prefix"))
    panel.form.num_prefixes.setValue(2)
    panel.form.prefix_len.setValue(256)
    panel.form.suffix_len.setValue(16)
    panel.form.prefix_output_len.setValue(4)
    panel.form.label.setText("shared")
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=90_000)
    assert panel.last_error == ""
    (path,) = panel.run_dir.glob("shared_*.json")
    block = document(path)["tpotbench"]
    rate = block["prefix_cache_client"]["hit_rate"]
    assert rate > 0
    shown = _visible_keys(panel.table)
    assert "client_hit_rate" in shown
    assert "ttfo_ms" not in shown  # not a reasoning model: still hidden
    cell = panel.table.item(0, COL["client_hit_rate"]).text()
    assert cell == f"{rate * 100:.1f} %"
    assert panel.table.horizontalHeaderItem(COL["client_hit_rate"]).toolTip()

    # the Results tab: the column appears with the prefix run, not with the plain one alone
    results = ResultsPanel()
    qtbot.addWidget(results)
    results.set_folder(tmp_path)
    names = {r.name: r for r in results.runs}
    assert len(names) == 2
    plain = next(n for n, r in names.items() if any(p.path.parent == plain_dir for p in r.points))
    results.show_runs([plain])
    assert results.table.rowCount() == 1
    assert not _visible_keys(results.table, first=1) & set(OPTIONAL_KEYS)
    results.show_runs(list(names))
    assert results.table.rowCount() == 2
    assert "client_hit_rate" in _visible_keys(results.table, first=1)
    texts = {results.table.item(r, 1 + COL["client_hit_rate"]).text() for r in range(2)}
    assert texts == {"–", cell}


def test_reasoning_and_spec_decode_figures_fill_their_cells() -> None:
    block = {
        "ttfo_ms": {"mean": 812.25},
        "tpot_answer_ms": {"mean": 21.456},
        "reasoning_tokens": {"mean": 150.0, "source": {"usage": 8}},
        "server_metrics": {
            "prefix_cache": {"hit_rate": 0.25},
            "spec_decode": {"acceptance_rate": 0.7, "mean_acceptance_length": 2.4},
        },
    }
    point = row_of({"tpotbench": block})
    assert [
        cell_text(point, k, d)
        for k, _h, d in TABLE_COLUMNS
        if k in ("ttfo_ms", "tpot_answer_ms", "reasoning_tokens")
    ] == ["812.2", "21.46", "150.0"]
    assert cell_text(point, "server_hit_rate", None) == "25.0 %"
    assert cell_text(point, "acceptance_rate", None) == "70.0 %"
    assert cell_text(point, "acceptance_length", 2) == "2.40"
    assert cell_text(row_of({"tpotbench": {}}), "ttfo_ms", 1) == "–"


def test_trace_replay_from_the_window_shows_send_lateness(qtbot, sim, tmp_path: Path) -> None:
    panel = SweepPanel(lambda: Target("Built-in simulator", sim.base_url, "chat", ""))
    qtbot.addWidget(panel)
    panel.form.results_root.setText(str(tmp_path))
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("mooncake"))
    assert not panel.form.rates.isEnabled()
    panel.form.concurrencies.setText("4")
    panel.form.num_prompts.setValue(5)  # the shipped trace's first five requests
    panel.form.trace_speedup.setValue(50)
    panel.form.label.setText("trace")
    assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=120_000)
    assert panel.last_error == ""
    (path,) = panel.run_dir.glob("trace_*.json")
    block = document(path)["tpotbench"]
    assert block["trace"]["speedup"] == 50
    p99 = block["schedule_lateness_ms"]["p99_ms"]
    assert "trace_lateness_p99_ms" in _visible_keys(panel.table)
    assert panel.table.item(0, COL["trace_lateness_p99_ms"]).text() == f"{p99:.2f}"
