"""How long the Results tab holds the GUI thread with a large history: opening a folder of N
point files, and a point finishing beside them.

Makes a results folder of N point files (default 2,000: 40 runs of 50 points, each a copy of one
real point measured on the built-in simulator, with its per-request block) and opens it in the
Results panel as the window does (read on a thread: the GUI thread's stalls meanwhile, timed by
a 5 ms timer) and as before (everything on the GUI thread: one stall). Then it shows one run,
adds one point file to it as a sweep does and takes it in three ways, each timed on the GUI
thread, with the tab out of sight and on screen:

  event   the window's path: the point from its `point_finished` event (path and result),
          no folder read (ResultsPanel.add_point);
  refresh the previous path, still the Reload button's: the folder read again, unchanged
          files from the cache (one stat each);
  no cache  the same read with the cache emptied first: what every point cost two sessions ago.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/results_refresh.py [--files 2000]
        [--runs 3] [--detailed]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.bench.results.file_cache import PointFileCache
from app.bench.sweep.contract import PointFinished
from app.bench.sweep.event_decode import decode
from app.sim.embedded import start_sim_process


def one_point(folder: Path, detailed: bool) -> tuple[Path, PointFinished]:
    """One real point: 64 requests at concurrency 16 on the simulator (fast settings); its file
    and its point_finished event as the window reads it."""
    with start_sim_process([]) as sim:
        args = [
            sys.executable, "-m", "app", "sweep", "--base-url", sim.base_url,
            "--num-prompts", "64", "--max-concurrency", "16", "--request-rate", "inf",
            "--dataset-name", "random", "--random-input-len", "64", "--random-output-len", "32",
            "--label", "seed", "--result-dir", str(folder), "--disable-tqdm",
            "--events", "jsonl",
        ]  # fmt: skip
        if detailed:
            args.append("--save-detailed")
        done = subprocess.run(
            args,
            check=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ),
        )
    [event] = [
        e
        for e in (decode(line) for line in done.stdout.splitlines() if line.strip())
        if isinstance(e, PointFinished)
    ]
    [path] = sorted(folder.glob("seed_*.json"))
    return path, event


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

    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from app.ui.panels.results.panel import ResultsPanel

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        seed, event = one_point(Path(tmp) / "seed", args.detailed)
        root = Path(tmp) / "results"
        root.mkdir()
        make_history(root, seed, args.files)
        size = sum(p.stat().st_size for p in root.rglob("*.json"))
        print(f"{args.files} point files, {size / 1e6:.1f} MB, load {os.getloadavg()[0]:.2f}")
        panel = ResultsPanel()
        panel.resize(1400, 900)
        panel.show()
        app.processEvents()
        # Opening the folder, the window's way (Enter, Reload, Browse, the window's start):
        # listed and parsed on a thread, the GUI thread's stalls timed by a 5 ms timer.
        panel.folder.setText(str(root))
        stalls = StallProbe()
        t0 = time.perf_counter_ns()
        panel.refresh(background=True)
        while panel.scanning:
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
        app.processEvents()
        took = ms_since(t0)
        stalls.stop()
        print(
            f"open the folder: runs shown after {took:.0f} ms ({panel.file_cache.parsed} files "
            f"parsed on a thread); GUI thread stall {stalls.line()} (load "
            f"{os.getloadavg()[0]:.2f})"
        )
        # The previous way, still what a programmatic set_folder does: all on the GUI thread.
        panel.file_cache = PointFileCache()
        t0 = time.perf_counter_ns()
        panel.set_folder(root)
        app.processEvents()
        print(
            f"  before: {ms_since(t0):.0f} ms on the GUI thread, one stall (load "
            f"{os.getloadavg()[0]:.2f})"
        )
        # One run shown (the one the points join), the tab out of sight (on the Sweep tab,
        # as during a sweep) or on screen (watching the Results tab while a sweep runs).
        panel.show_runs(["run000"])
        app.processEvents()
        doc = json.loads(seed.read_text(encoding="utf-8"))
        conc = 100
        for run in range(1, args.runs + 1):
            line = []
            for on_screen in (False, True):
                panel.setVisible(on_screen)
                app.processEvents()
                figures = {}
                # The event last: out of sight, it leaves the shown run to be drawn when the
                # tab is shown again, timed after it.
                for way in ("refresh", "no cache", "event"):
                    # The shown run's next point, as its sweep writes it (then announces it).
                    conc += 1
                    point = {**doc, "label": "run000", "max_concurrency": conc}
                    new = root / "run000" / f"run000_rateinf_conc{conc}.json"
                    new.write_text(json.dumps(point), encoding="utf-8")
                    if way == "no cache":
                        panel.file_cache = PointFileCache()
                    t0 = time.perf_counter_ns()
                    if way == "event":
                        summary = {**event.summary, "label": "run000", "max_concurrency": conc}
                        assert panel.add_point(new, summary)
                    else:
                        panel.refresh()
                    app.processEvents()
                    figures[way] = ms_since(t0)
                if not on_screen:  # the run drawn when the tab comes back: a stall of its own
                    t0 = time.perf_counter_ns()
                    panel.show()
                    app.processEvents()
                    shown_ms = ms_since(t0)
                where = "tab on screen showing that run" if on_screen else "tab out of sight"
                line.append(
                    f"  {where}: from its event {figures['event']:.1f} ms; before: "
                    f"refresh {figures['refresh']:.0f} ms with the cache, "
                    f"{figures['no cache']:.0f} ms with it emptied"
                    + ("" if on_screen else f" (showing the tab then {shown_ms:.0f} ms)")
                )
            print(f"run {run} (load {os.getloadavg()[0]:.2f}), a point finished:")
            print("\n".join(line))
        panel.close()
        panel.deleteLater()


class StallProbe:
    """A 5 ms timer on the GUI thread; how late each tick came is how long the thread was
    held (gui_fidelity.py's probe, kept here to run alone)."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.late_ms: list[float] = []
        self._last = time.perf_counter_ns()
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        self.timer.start(5)

    def _tick(self) -> None:
        now = time.perf_counter_ns()
        self.late_ms.append(max(0.0, (now - self._last) / 1e6 - 5.0))
        self._last = now

    def stop(self) -> None:
        self.timer.stop()

    def line(self) -> str:
        late = sorted(self.late_ms) or [0.0]
        p99 = late[min(len(late) - 1, int(0.99 * len(late)))]
        return f"p99 {p99:.1f} ms, max {late[-1]:.0f} ms over {len(self.late_ms)} ticks"


def ms_since(t0: int) -> float:
    return (time.perf_counter_ns() - t0) / 1e6


if __name__ == "__main__":
    main()
