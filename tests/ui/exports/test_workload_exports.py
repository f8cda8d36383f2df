"""The Results tab's Markdown, CSV and JSON exports of each workload kind: reasoning (with
speculative decoding), shared prefixes, conversations and a trace replay, from result files of
real sweeps against the simulator. A workload column is written with the figure the file has;
a plain run's export carries no empty workload columns."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim.config import SimConfig
from app.sim.embedded import start_sim_thread
from app.ui.exports.tables import OPTIONAL_KEYS, TABLE_COLUMNS
from app.ui.panels.results.panel import ResultsPanel
from tests.documents import document

HEADER = {key: header for key, header, _d in TABLE_COLUMNS}
SHORT = ("--num-prompts", "6", "--max-concurrency", "2", "--disable-tqdm", "--server-metrics")
RUNS: dict[str, tuple[str, ...]] = {
    # no /metrics scrape: its prefix-cache hit rate (0 %) would be a figure of its own
    "plain": (*SHORT[:-1], "--dataset-name", "random", "--random-input-len", "32"),
    "reasoning": (*SHORT, "--dataset-name", "random", "--random-input-len", "32"),
    "prefix": (
        *SHORT,
        "--dataset-name",
        "prefix",
        "--prefix-repetition-num-prefixes",
        "2",
        "--prefix-repetition-prefix-len",
        "256",
        "--prefix-repetition-suffix-len",
        "16",
    ),
    "chat": ("--multi-turn", "--num-sessions", "2", "--max-turns", "2", "--disable-tqdm"),
    "trace": ("--dataset-name", "mooncake", "--num-prompts", "4", "--trace-speedup", "50"),
}


@pytest.fixture(scope="module")
def results_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("workloads")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    # A plain server, and a reasoning one with speculative decoding (its /metrics counters).
    with (
        start_sim_thread(SimConfig(), port=0) as plain,
        start_sim_thread(
            SimConfig(reasoning_share=0.5, num_speculative_tokens=3), port=0
        ) as reasoning,
    ):
        for label, flags in RUNS.items():
            base = reasoning.base_url if label == "reasoning" else plain.base_url
            done = subprocess.run(
                [sys.executable, "-m", "app", "sweep", "--base-url", base, "--label", label]
                + (["--output-len", "8"] if label != "trace" else [])  # a trace has its own
                + ["--result-dir", str(root / label), *flags],
                capture_output=True,
                text=True,
                timeout=600,
                env=env,
            )
            assert done.returncode == 0, (label, done.stderr)
    yield root


def _block(root: Path, label: str) -> dict:
    (path,) = (root / label).glob(f"{label}_*.json")
    return document(path)["tpotbench"]


def _markdown(qtbot, root: Path, labels: list[str], out: Path) -> dict[str, dict[str, str]]:
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(root)
    panel.show_runs(labels)
    text = panel.export_data(out).read_text(encoding="utf-8")
    lines = [line.strip("|").split(" | ") for line in text.splitlines()]
    heads = [h.strip() for h in lines[0]]
    return {
        row[0].strip(): dict(zip(heads, (c.strip() for c in row), strict=True)) for row in lines[2:]
    }


def test_markdown_writes_each_workloads_columns_with_the_files_figures(
    qtbot, results_root: Path, tmp_path: Path
) -> None:
    rows = _markdown(qtbot, results_root, list(RUNS), tmp_path / "all.md")
    assert set(rows) == set(RUNS)
    # every workload column some run has is there, with that run's own figure
    reasoning = _block(results_root, "reasoning")
    assert rows["reasoning"][HEADER["ttfo_ms"]] == f"{reasoning['ttfo_ms']['mean']:.1f}"
    assert rows["reasoning"][HEADER["reasoning_tokens"]] == (
        f"{reasoning['reasoning_tokens']['mean']:.1f}"
    )
    assert rows["reasoning"][HEADER["tpot_answer_ms"]] == (
        f"{reasoning['tpot_answer_ms']['mean']:.2f}"
    )
    spec = reasoning["server_metrics"]["spec_decode"]
    assert rows["reasoning"][HEADER["acceptance_rate"]] == f"{spec['acceptance_rate'] * 100:.1f} %"
    prefix = _block(results_root, "prefix")
    client = prefix["prefix_cache_client"]["hit_rate"]
    server = prefix["server_metrics"]["prefix_cache"]["hit_rate"]
    assert client > 0.5 and server > 0.5
    assert rows["prefix"][HEADER["client_hit_rate"]] == f"{client * 100:.1f} %"
    assert rows["prefix"][HEADER["server_hit_rate"]] == f"{server * 100:.1f} %"
    chat = _block(results_root, "chat")["conversations"]
    assert rows["chat"][HEADER["ttft_first_turn_ms"]] == f"{chat['ttft_first_turn_ms']['mean']:.1f}"
    assert rows["chat"][HEADER["ttft_later_turns_ms"]] == (
        f"{chat['ttft_later_turns_ms']['mean']:.1f}"
    )
    late = _block(results_root, "trace")["schedule_lateness_ms"]["p99_ms"]
    assert rows["trace"][HEADER["trace_lateness_p99_ms"]] == f"{late:.2f}"
    # a run without the workload shows a dash in that column
    assert rows["plain"][HEADER["ttfo_ms"]] == "–"
    assert rows["plain"][HEADER["ttft_first_turn_ms"]] == "–"


def test_a_plain_runs_markdown_has_no_empty_workload_columns(
    qtbot, results_root: Path, tmp_path: Path
) -> None:
    rows = _markdown(qtbot, results_root, ["plain"], tmp_path / "plain.md")
    heads = set(rows["plain"])
    assert not heads & {HEADER[key] for key in OPTIONAL_KEYS}
    assert HEADER["p99_tpot_ms"] in heads and rows["plain"][HEADER["completed"]] == "6"
    # the prefix run alone: its two cache columns, no reasoning or conversation ones
    rows = _markdown(qtbot, results_root, ["prefix"], tmp_path / "prefix.md")
    shown = {key for key in OPTIONAL_KEYS if HEADER[key] in rows["prefix"]}
    assert shown == {"client_hit_rate", "server_hit_rate"}


def test_csv_and_json_carry_the_workload_figures(qtbot, results_root: Path, tmp_path: Path) -> None:
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(results_root)
    panel.show_runs(["plain", "chat", "prefix"])
    table = panel.export_data(tmp_path / "runs.csv").read_text(encoding="utf-8")
    by_run = {row["run"]: row for row in csv.DictReader(table.splitlines())}
    chat = _block(results_root, "chat")["conversations"]
    assert float(by_run["chat"]["ttft_later_turns_ms"]) == chat["ttft_later_turns_ms"]["mean"]
    client = _block(results_root, "prefix")["prefix_cache_client"]["hit_rate"]
    assert float(by_run["prefix"]["client_hit_rate"]) == client
    assert by_run["plain"]["client_hit_rate"] == ""
    assert "ttfo_ms" not in by_run["plain"]  # no run here reasons: no such column
    doc = json.loads(panel.export_data(tmp_path / "runs.json").read_text(encoding="utf-8"))
    points = {run["name"]: run["points"][0] for run in doc["runs"]}
    assert points["prefix"]["client_hit_rate"] == client
