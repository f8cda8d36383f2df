"""`tpotbench selftest` end to end against its own local server on 127.0.0.1, with small bounds,
and a sweep asked to go past the saved ceiling: warned before it starts, each point records it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app.bench.results.read import load_results
from tests.documents import document


def tpotbench(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    env["TPOTBENCH_CONFIG_DIR"] = str(config)
    return subprocess.run(
        [sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=300, env=env
    )


def test_selftest_measures_saves_and_a_sweep_past_it_warns(sim, tmp_path: Path) -> None:
    config = tmp_path / "config"
    # Limits no machine can break, so the decision is known: every step passes, the ceiling is
    # the largest step asked for and only a lower bound.
    done = tpotbench(
        config,
        "selftest",
        "--workers", "0",
        "--max-streams", "2",
        "--tokens", "4",
        "--itl-ms", "2",
        "--requests-per-stream", "1",
        "--max-ttft-excess-ms", "100000",
        "--max-gap-error-ms", "100000",
        "--time-limit", "120",
        "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    result = doc["results"]["0"]
    assert (result["streams"], result["stopped"], result["at_least"]) == (2, "max", True)
    assert [s["streams"] for s in result["steps"]] == [1, 2]
    for s in result["steps"]:
        # Every token the server wrote was received and timed: 4 per request, 1 per stream.
        assert s["failed"] == 0 and s["tokens"] == 4 * s["streams"]
        assert s["cpu_ms_per_1k"] > 0
    assert "[in process]     2 streams" in done.stderr  # progress, one line per step
    saved = json.loads((config / "client_ceiling.json").read_text())
    assert saved["results"]["0"]["streams"] == 2 and saved["machine"]["hostname"]

    out = tmp_path / "sweep"
    swept = tpotbench(
        config,
        "sweep",
        "--base-url", sim.base_url,
        "--num-prompts", "4",
        "--max-concurrency", "1,4",
        "--output-len", "4",
        "--label", "c",
        "--result-dir", str(out),
        "--disable-tqdm",
    )  # fmt: skip
    assert swept.returncode == 0, swept.stderr
    assert (
        "warning: this sweep runs up to 4 streams, past this machine's client ceiling of at "
        "least 2 streams in one process"
    ) in swept.stderr
    blocks = {
        p.max_concurrency: document(p)["tpotbench"]["client_ceiling"] for p in load_results([out])
    }
    assert blocks[1]["streams"] == 1 and blocks[1]["ratio"] == 0.5
    assert blocks[4]["streams"] == 4 and blocks[4]["ratio"] == 2.0 and blocks[4]["ceiling"] == 2


def test_no_saved_ceiling_no_warning_and_no_block(sim, tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    swept = tpotbench(
        tmp_path / "empty",
        "sweep",
        "--base-url", sim.base_url,
        "--num-prompts", "2",
        "--max-concurrency", "2",
        "--output-len", "4",
        "--result-dir", str(out),
        "--disable-tqdm",
    )  # fmt: skip
    assert swept.returncode == 0, swept.stderr
    assert "client ceiling" not in swept.stderr
    assert all("client_ceiling" not in document(p)["tpotbench"] for p in load_results([out]))


def test_bad_workers_list_is_a_usage_error(tmp_path: Path) -> None:
    done = tpotbench(tmp_path, "selftest", "--workers", "1")
    assert done.returncode == 2
    assert "use 0 (in process) or 2..256 worker processes" in done.stderr
