"""The capacity search over real HTTP against the formula server: the boundary is exact."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bench.capacity.search import SearchSettings
from app.bench.capacity.search_run import SEARCH_FILE, run_search, search_json
from app.bench.capacity.slo import parse_slos
from app.bench.datasets.prompts import SampleRequest
from app.bench.http.endpoint import resolve_endpoint
from app.bench.results.read import load_results
from app.bench.schema.search_doc import SearchBoundary, read_search_doc
from app.bench.sweep.run_context import RunContext
from tests.documents import document
from tests.formula_server import FormulaServer, capacity, tpot_ms


@pytest.fixture
def formula() -> Iterator[FormulaServer]:
    server = FormulaServer(tokens=20).start()
    try:
        yield server
    finally:
        server.stop()


def config_for(server: FormulaServer, tmp_path: Path, limit_ms: float, n: int) -> RunContext:
    return RunContext(
        resolved=resolve_endpoint(server.base_url, "/v1/chat/completions", "chat", "formula"),
        model="formula",
        backend="openai-chat",
        samples=[SampleRequest("hello", 8, 20, f"r{i}") for i in range(n)],
        rates=[float("inf")],
        concurrencies=[None],
        result_dir=tmp_path,
        label="expB",
        slos=parse_slos([f"tpot:p99:{limit_ms:g}"]),
    )


def test_finds_the_exact_boundary(formula: FormulaServer, tmp_path: Path) -> None:
    # Halfway between TPOT at 6 and at 7 streams: 8 ms of margin either side for late wakeups.
    limit = (tpot_ms(6) + tpot_ms(7)) / 2
    assert capacity(limit) == 6
    settings = SearchSettings(num_prompts=32, min_prompts=16, prompts_per_unit=2, maximum=64)
    config = config_for(formula, tmp_path, limit, settings.num_prompts)
    outcome, path, doc = asyncio.run(run_search(config, settings, []))
    assert (outcome.highest_pass, outcome.lowest_fail) == (6, 7)
    assert doc.boundary == SearchBoundary(6, 7, (6, 7), (f"tpot:p99:{limit:g}",))
    assert [p.value for p in doc.points] == [1, 2, 4, 8, 6, 7, 14]
    assert doc.monotonic is True
    # Every point's own file is beside search.json, and report skips search.json.
    assert path == tmp_path / SEARCH_FILE and json.loads(path.read_text())["boundary"]
    # The real file reads back into the same document and writes out byte for byte.
    assert read_search_doc(json.loads(path.read_text())) == doc
    assert search_json(doc) == path.read_text()
    points = load_results([tmp_path])
    # 7 was stopped early in the search, so it is measured once more to the end: the why
    # reads that whole point (here: no /metrics, so it says so), never the fragment.
    assert sorted(p.max_concurrency for p in points) == [1, 2, 4, 6, 7, 7, 8, 14]
    assert doc.boundary_evidence is not None and doc.boundary_evidence.value == 7
    assert doc.boundary_why is not None and doc.boundary_why.cause == "abstain"
    assert "/metrics" in (doc.boundary_why.text or "")
    by_conc = {p.max_concurrency: p for p in points}
    assert document(by_conc[6])["tpotbench"]["slo"]["passed"] is True
    assert document(by_conc[7])["tpotbench"]["slo"]["passed"] is False
    # The failing points above the boundary stopped as soon as their failure was proven.
    assert document(by_conc[14])["tpotbench"]["early_stop"]["reason"].startswith("tpot:p99")
    assert by_conc[14].completed < 28
    # The streams those early stops cut off were closed by the client, and the server saw it
    # (EOF) before their end: nothing of point 8 was still streaming while 6 ran (6 passed).
    assert formula.aborted > 0
    # The prefix cache was reset before every point (a loopback server), and the client kept
    # to its concurrency.
    assert formula.resets == len(points)
    # The client kept to its concurrency: its own peak, from the records. The server's peak may
    # also count, on a busy machine, a stream of the previous early-stopped point it has not yet
    # seen closed (it polls for EOF every 5 ms): seen once under a CPU hog (15 at point 14).
    assert all(p.max_concurrent_requests <= p.max_concurrency for p in points)
    assert formula.peak <= 14 + formula.aborted


def test_server_without_reset_route_is_asked_once(tmp_path: Path) -> None:
    server = FormulaServer(tokens=4, reset_route=False).start()
    try:
        settings = SearchSettings(num_prompts=4, min_prompts=4, maximum=2)
        config = config_for(server, tmp_path, 1000.0, 4)
        outcome, _, _ = asyncio.run(run_search(config, settings, []))
    finally:
        server.stop()
    assert outcome.highest_pass == 2
    blocks = [document(p)["tpotbench"]["prefix_cache"] for p in load_results([tmp_path])]
    assert [b["reset"] for b in blocks] == ["unsupported", "unsupported"]
    assert config._resetter is not None and config._resetter.calls == 1


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    return subprocess.run(
        [sys.executable, "-m", "app", "search", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_cli_search_table_and_files(formula: FormulaServer, tmp_path: Path) -> None:
    limit = (tpot_ms(2) + tpot_ms(3)) / 2
    proc = _cli(
        "--base-url", formula.base_url, "--endpoint", "/v1/chat/completions",
        "--dataset-name", "random", "--random-input-len", "8", "--random-output-len", "20",
        "--slo", f"tpot:p99:{limit:g}", "--num-prompts", "12", "--min-prompts", "8",
        "--prompts-per-unit", "2", "--max", "16", "--result-dir", str(tmp_path),
        "--disable-tqdm",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Capacity: 2 streams within every SLO; at 3 it fails tpot:p99:" in proc.stdout
    doc = json.loads((tmp_path / SEARCH_FILE).read_text())
    assert doc["boundary"]["highest_pass"] == 2
    assert doc["slos"]["limits"] == [{"metric": "tpot", "stat": "p99", "limit_ms": limit}]


def test_cli_search_stops_where_its_prompts_run_out(formula: FormulaServer, tmp_path: Path) -> None:
    proc = _cli(
        "--base-url", formula.base_url, "--endpoint", "/v1/chat/completions",
        "--dataset-name", "random", "--random-input-len", "8", "--random-output-len", "20",
        "--slo", "tpot:p99:100000", "--num-prompts", "4", "--min-prompts", "4",
        "--max", "16", "--result-dir", str(tmp_path), "--disable-tqdm",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Capacity: 4 streams within every SLO (every load up to 4 met the SLOs; " in proc.stdout
    assert "--num-prompts 4 cannot fill more streams" in proc.stdout
    doc = json.loads((tmp_path / SEARCH_FILE).read_text())
    assert doc["fill_limit"] == 4 and max(p["value"] for p in doc["points"]) == 4


def test_cli_search_reads_metrics_without_being_asked(tmp_path: Path) -> None:
    # The why reads /metrics and abstains without them: a search scrapes them by default.
    server = FormulaServer(tokens=20, metrics=True).start()
    try:
        proc = _cli(
            "--base-url", server.base_url, "--endpoint", "/v1/chat/completions",
            "--dataset-name", "random", "--random-input-len", "8", "--random-output-len", "20",
            "--slo", "tpot:p99:1000", "--num-prompts", "8", "--min-prompts", "8",
            "--max", "2", "--result-dir", str(tmp_path), "--disable-tqdm",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert server.metrics_scrapes >= 2  # at least the point's bracketing scrapes
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--slo", "tpot:p99"], "--slo"),
        ([], "search needs SLOs"),
        (["--slo", "tpot:p99:50", "--growth", "1"], "--growth"),
        (["--slo", "tpot:p99:50", "--max-concurrency", "1,2", "--over", "rate"], "not lists"),
        # A flag the search sets itself is refused, not silently replaced.
        (["--slo", "tpot:p99:50", "--max-concurrency", "4"], "--max-concurrency does not apply"),
        (["--slo", "tpot:p99:50", "--over", "rate", "--request-rate", "2"], "does not apply"),
    ],
)
def test_cli_bad_usage_is_one_line_exit_2(args: list[str], message: str) -> None:
    proc = _cli("--base-url", "http://127.0.0.1:9", *args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_cli_no_success_exits_1_with_the_failures(formula: FormulaServer, tmp_path: Path) -> None:
    proc = _cli(
        "--base-url", formula.base_url, "--endpoint", "/v1/completions",
        "--model", "formula", "--dataset-name", "random", "--random-input-len", "8",
        "--random-output-len", "4", "--slo", "tpot:p99:50", "--num-prompts", "4",
        "--min-prompts", "4", "--max", "4", "--result-dir", str(tmp_path), "--disable-tqdm",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("tpotbench search: no request succeeded at any of 1 load(s)"), last
    assert "404" in last and "fix:" in last
    assert "lower --start" not in proc.stdout + proc.stderr
    assert "no request succeeded" in proc.stdout  # the table's capacity line says so too


def test_cli_search_says_its_capacity_in_chinese(formula: FormulaServer, tmp_path: Path) -> None:
    # --lang zh_CN: the lines under the table are Chinese like the why among them, the stop
    # reason too; the table's column names stay (they are the figures' own names).
    proc = _cli(
        "--base-url", formula.base_url, "--endpoint", "/v1/chat/completions",
        "--dataset-name", "random", "--random-input-len", "8", "--random-output-len", "20",
        "--slo", "tpot:p99:100000", "--num-prompts", "4", "--min-prompts", "4",
        "--max", "16", "--result-dir", str(tmp_path), "--disable-tqdm", "--lang", "zh_CN",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        "容量：4 路并发 满足全部 SLO（直到 4 的每个负载都满足 SLO；--num-prompts 4" in proc.stdout
    )
    assert "测量用时：" in proc.stdout
    for english in ("Capacity:", "Measuring time", "Why", "met the SLOs"):
        assert english not in proc.stdout, proc.stdout
