"""How long the Results tab holds the GUI thread when a point finishes beside a large history.

Makes a results folder of N point files (default 2,000: 40 runs of 50 points, each a copy of one
real point measured on the built-in simulator, with its per-request block), opens it in the
Results panel, then adds one point file and refreshes, as the window does after every finished
point. Prints each run's figures for the panel as built (parsed files cached by path and
identity) and with the cache emptied before every refresh (what every refresh cost before).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/results_refresh.py [--files 2000]
        [--runs 3] [--detailed]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.bench.results.file_cache import PointFileCache
from app.sim.embedded import start_sim_process


def one_point(folder: Path, detailed: bool) -> Path:
    """One real point: 64 requests at concurrency 16 on the simulator (fast settings)."""
    with start_sim_process([]) as sim:
        args = [
            sys.executable, "-m", "app", "sweep", "--base-url", sim.base_url,
            "--num-prompts", "64", "--max-concurrency", "16", "--request-rate", "inf",
            "--dataset-name", "random", "--random-input-len", "64", "--random-output-len", "32",
            "--label", "seed", "--result-dir", str(folder), "--disable-tqdm",
        ]  # fmt: skip
        if detailed:
            args.append("--save-detailed")
        subprocess.run(
            args,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ),
        )
    [path] = sorted(folder.glob("seed_*.json"))
    return path


def make_history(root: Path, seed: Path, files: int) -> None:
    doc = json.loads(seed.read_text(encoding="utf-8"))
    per_run = 50
    for i in range(files):
        run = root / f"run{i // per_run:03d}"
        run.mkdir(exist_ok=True)
        doc["label"] = run.name
        doc["max_concurrency"] = 1 + i % per_run
        (run / f"{run.name}_rateinf_conc{1 + i % per_run}.json").write_text(
            json.dumps(doc), encoding="utf-8"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--detailed", action="store_true", help="points with --save-detailed")
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from app.ui.panels.results.panel import ResultsPanel

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        seed = one_point(Path(tmp) / "seed", args.detailed)
        root = Path(tmp) / "results"
        root.mkdir()
        make_history(root, seed, args.files)
        size = sum(p.stat().st_size for p in root.rglob("*.json"))
        print(f"{args.files} point files, {size / 1e6:.1f} MB, load {os.getloadavg()[0]:.2f}")
        panel = ResultsPanel()
        t0 = time.perf_counter_ns()
        panel.set_folder(root)
        app.processEvents()
        print(f"open the folder: {(time.perf_counter_ns() - t0) / 1e6:.0f} ms")
        for run in range(1, args.runs + 1):
            new = root / "run000" / f"new{run}_rateinf_conc64.json"
            shutil.copy(seed, new)
            figures = []
            for cached in (True, False):
                if not cached:
                    panel.file_cache = PointFileCache()
                t0 = time.perf_counter_ns()
                panel.refresh()
                app.processEvents()
                figures.append((time.perf_counter_ns() - t0) / 1e6)
                new.touch()  # the second refresh sees a changed file too
            print(
                f"run {run}: a point finished -> refresh {figures[0]:.0f} ms with the cache, "
                f"{figures[1]:.0f} ms without (load {os.getloadavg()[0]:.2f})"
            )
        panel.deleteLater()


if __name__ == "__main__":
    main()
