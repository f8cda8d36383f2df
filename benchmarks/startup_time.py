"""Time from `tpotbench` starting to a usable window (goal: under 2 s), and to the simulator.

Each run is a fresh `python -m app` process with a throwaway config folder. "Usable" is the first
event-loop turn after the main window is shown (it has painted and takes input); the built-in
simulator keeps starting in the background and is timed separately. The clock is
CLOCK_MONOTONIC, which the parent and the child share on Linux.

    .venv/bin/python benchmarks/startup_time.py [--runs 5] [--platform offscreen|xcb]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

# Runs inside the child: report when the window is usable and when the simulator is up, then
# close the window (which ends the app the normal way).
CHILD = r"""
import sys, time
from PySide6.QtCore import QTimer
import app.ui.main_window as mw

shown = mw.MainWindow.show

def show(self):
    shown(self)
    def ready():
        print("WINDOW", time.monotonic(), flush=True)
        def sim_up(_url):
            print("SIM", time.monotonic(), flush=True)
            self.close()
        if self.ctx.simulator.base_url:
            sim_up(self.ctx.simulator.base_url)
        else:
            self.ctx.simulator.started.connect(sim_up)
            self.ctx.simulator.failed.connect(lambda _e: self.close())
    QTimer.singleShot(0, ready)

mw.MainWindow.show = show
from app.cli import main
sys.exit(main([]))
"""


def one_run(platform: str) -> tuple[float, float | None]:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(
            os.environ,
            QT_QPA_PLATFORM=platform,
            TPOTBENCH_CONFIG_DIR=tmp,
            TPOTBENCH_LOG_DIR=tmp,
        )
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
    marks = {}
    for line in proc.stdout.splitlines():
        name, _, value = line.partition(" ")
        if name in ("WINDOW", "SIM"):
            marks[name] = float(value) - start
    if "WINDOW" not in marks:
        raise SystemExit(f"the window never became ready:\n{proc.stderr[-2000:]}")
    return marks["WINDOW"], marks.get("SIM")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--platform", default=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    args = parser.parse_args()
    one_run(args.platform)  # warm the OS file cache; not counted
    window, sim = [], []
    for _ in range(args.runs):
        w, s = one_run(args.platform)
        window.append(w)
        if s is not None:
            sim.append(s)
    load = os.getloadavg()
    print(f"platform {args.platform}, {args.runs} runs, load average {load[0]:.2f}")
    print(
        f"usable window: median {statistics.median(window):.2f} s, "
        f"max {max(window):.2f} s (goal < 2 s)"
    )
    if sim:
        print(f"simulator ready: median {statistics.median(sim):.2f} s, max {max(sim):.2f} s")
    return 0 if statistics.median(window) < 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
