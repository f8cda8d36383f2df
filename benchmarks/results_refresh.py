"""How long the Results tab holds the GUI thread with a large history: opening a folder of N
point files, and points finishing beside them.

Makes a results folder of N point files (default 2,000: 40 runs of 50 points, each one real
point measured on the built-in simulator, with its per-request block, its throughput and
latencies shaped by its load as a real run's are (--same: the very same figures at every load,
as this script's figures before 2026-12 were measured: every load then sits at one place on the
Pareto chart)) and opens it in the Results panel as the window does (read on a thread: the GUI
thread's stalls meanwhile, timed by a 5 ms timer), then reads it again (Reload: every file from
the cache). Then it shows one run and adds points to it as a sweep does, each from its
`point_finished` event (ResultsPanel.add_point, no folder read), with the tab out of sight
(then shows the tab: the run drawn with the points it missed) and on screen: the GUI thread
held per point, from the event until the tab is drawn (a point is drawn on the event loop's
next turn, a burst of them in one drawing) and its labels placed (p50/p99/max over --points
points; the run grows by one each time). Last, a Reload after a sweep's end (the Sweep tab then
thaws the heap it froze, gc.unfreeze) and, for reference, the folder read all on the GUI thread
(set_folder: one stall; last because the objects it parses outside a read's freeze would be
walked by every later full collection).

Every scenario prints its longest uninterrupted GUI-thread hold: the stall a user feels (no
click or repaint is answered meanwhile), timed by a 1 ms timer whose ticks mark where the
thread was free; over 50 ms is a long task (the W3C Long Tasks threshold), over 16 ms a missed
60 Hz frame. And the cyclic collector's passes on that thread meanwhile: collections run as in
the window (app_setup.GuiThreadCollector: on the GUI thread, by a timer; the panel, once built,
collected and frozen by app_setup.freeze_long_lived as the window is, in a tree that has it),
and a full one walks every object not frozen. --refresh also times the paths before points came
from their events (the folder read again, with the file cache and without).

Before/after: run this very script inside a copy of the older tree (it imports the app/ beside
it), e.g. for main before the re-show and collector work (aa6931f):

    git archive aa6931f | tar -x -C /tmp/before
    cp benchmarks/results_refresh.py /tmp/before/benchmarks/
    cd /tmp/before && QT_QPA_PLATFORM=offscreen PYTHONPATH=$PWD \
        python benchmarks/results_refresh.py --files 2000 --points 20

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/results_refresh.py [--files 2000]
        [--runs 2] [--points 20] [--same] [--refresh] [--detailed]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.bench.results.file_cache import PointFileCache
from app.bench.schema.point_doc import PointDoc, point_json, read_point_doc
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


def at_load(doc: dict, conc: int, same: bool) -> dict:
    """The seed point as if measured at `conc` streams: throughput rising to a plateau, TPOT
    and TTFT rising with the batch, so the curves and the Pareto chart spread out as a real
    run's do (`same`: the seed's figures at every load, as this script did before)."""
    out = {**doc, "max_concurrency": conc}
    if same:
        return out
    grow, slow = min(conc, 48) ** 0.8, 1 + conc / 48
    for key, value in doc.items():
        if isinstance(value, int | float) and key.endswith("_throughput"):
            out[key] = value * grow
        elif isinstance(value, int | float) and key.endswith(("_tpot_ms", "_ttft_ms")):
            out[key] = value * slow
    return out


def make_history(root: Path, seed: Path, files: int, same: bool) -> None:
    doc = json.loads(seed.read_text(encoding="utf-8"))
    per_run = 50
    for i in range(files):
        run = root / f"run{i // per_run:03d}"
        run.mkdir(exist_ok=True)
        point = at_load({**doc, "label": run.name}, 1 + i % per_run, same)
        (run / f"{run.name}_rateinf_conc{1 + i % per_run}.json").write_text(
            json.dumps(point), encoding="utf-8"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--points", type=int, default=20, help="points finishing per case")
    parser.add_argument(
        "--refresh", action="store_true", help="also time the folder read again, with and "
        "without the cache (the paths before points came from their events)"
    )  # fmt: skip
    parser.add_argument("--detailed", action="store_true", help="points with --save-detailed")
    parser.add_argument(
        "--same", action="store_true", help="every point a copy of the seed's figures (all "
        "loads at one place on the Pareto chart: the shape of this script's earlier figures)"
    )  # fmt: skip
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from app.ui import app_setup
    from app.ui.app_setup import collect_on_gui_thread
    from app.ui.panels.results.panel import ResultsPanel

    freeze_long_lived = getattr(app_setup, "freeze_long_lived", None)  # absent in older trees
    app = QApplication.instance() or QApplication([])
    # As the window does: automatic collection off, the cyclic collector run on the GUI thread
    # by a timer (app_setup.GuiThreadCollector); its collections are holds of that thread too.
    collect_on_gui_thread(app)
    with tempfile.TemporaryDirectory() as tmp:
        seed, event = one_point(Path(tmp) / "seed", args.detailed)
        root = Path(tmp) / "results"
        root.mkdir()
        make_history(root, seed, args.files, args.same)
        size = sum(p.stat().st_size for p in root.rglob("*.json"))
        print(f"{args.files} point files, {size / 1e6:.1f} MB, load {os.getloadavg()[0]:.2f}")
        panel = ResultsPanel()
        panel.resize(1400, 900)
        if freeze_long_lived is not None:
            freeze_long_lived()  # as the window does once built (launch.py), where it does
        panel.show()
        # Its first paints done (pyqtgraph's come a turn or two later): a user opens a folder
        # in a window already drawn, and they were a 40-60 ms start of the open's figures.
        for _ in range(3):
            settle(app, panel)
        # Opening the folder, the window's way (Enter, Reload, Browse, the window's start):
        # listed and parsed on a thread, the GUI thread's stalls timed by a 5 ms timer.
        panel.folder.setText(str(root))
        read_folder(app, panel, "open the folder")
        read_folder(app, panel, "read it again (Reload, F5: every file from the cache)")
        # One run shown (the one the points join), the tab out of sight (on the Sweep tab,
        # as during a sweep) or on screen (watching the Results tab while a sweep runs).
        panel.show_runs(["run000"])
        app.processEvents()
        doc = json.loads(seed.read_text(encoding="utf-8"))
        conc = 100

        def next_point() -> tuple[Path, PointDoc]:
            """The shown run's next point, as its sweep writes it (then announces it)."""
            nonlocal conc
            conc += 1
            point = at_load({**doc, "label": "run000"}, conc, args.same)
            new = root / "run000" / f"run000_rateinf_conc{conc}.json"
            new.write_text(json.dumps(point), encoding="utf-8")
            summary = at_load({**point_json(event.summary), "label": "run000"}, conc, args.same)
            return new, read_point_doc(summary, strict=True)

        for run in range(1, args.runs + 1):
            print(f"run {run} (load {os.getloadavg()[0]:.2f}), points finishing beside it:")
            for on_screen in (False, True):
                panel.setVisible(on_screen)
                settle(app, panel)
                # The window's path: each point from its `point_finished` event, the GUI
                # thread held from the event until the tab is drawn and its labels placed.
                held, longest = [], []
                probe, collections = HoldProbe(), Collections()
                for _ in range(args.points):
                    new, summary = next_point()
                    t0 = time.perf_counter_ns()
                    assert panel.add_point(new, summary)
                    settle(app, panel)
                    held.append(ms_since(t0))
                    longest.append(probe.longest(t0, time.perf_counter_ns()))
                where = "tab on screen showing that run" if on_screen else "tab out of sight"
                print(
                    f"  {where}: {args.points} points from their events, GUI thread held per "
                    f"point {spread(held)} (run of {len(panel.shown[0].points)} points)"
                )
                print(
                    f"    longest uninterrupted GUI-thread hold per point {spread(longest)}; "
                    f"{collections.line()}"
                )
                if not on_screen:  # the run drawn when the tab comes back: a stall of its own
                    collections = Collections()
                    t0 = time.perf_counter_ns()
                    panel.show()
                    settle(app, panel)
                    took, hold = ms_since(t0), probe.longest(t0, time.perf_counter_ns())
                    print(
                        f"  showing the tab then: {took:.0f} ms on the GUI thread, longest "
                        f"uninterrupted hold {hold:.0f} ms; {collections.line()}"
                    )
                probe.stop()
            if args.refresh:
                for way in ("refresh", "no cache"):  # the previous paths, for reference
                    new, _summary = next_point()
                    if way == "no cache":
                        panel.file_cache = PointFileCache()
                    t0 = time.perf_counter_ns()
                    panel.refresh()
                    settle(app, panel)
                    print(f"  before that: {way}, the folder read again: {ms_since(t0):.0f} ms")
        # A sweep's end: the Sweep tab thaws what it froze at the run's start (gc.unfreeze, in
        # SweepPanel._set_running), the folder read's freeze with it; a Reload then collects
        # before its read (ResultsPanel._scan_in_background) over all of it.
        gc.unfreeze()
        read_folder(app, panel, "read it again after a sweep's end (gc.unfreeze)")
        # The previous way of opening, still what a programmatic set_folder does: every file
        # parsed again on the GUI thread, into a cache of its own. Last: those millions of
        # objects, parsed outside a folder read's freeze (a window never makes them), would
        # otherwise be walked by every later full collection and time the collector, not the tab.
        panel.file_cache = PointFileCache()
        t0 = time.perf_counter_ns()
        panel.set_folder(root)
        app.processEvents()
        print(
            f"before, the folder read on the GUI thread: {ms_since(t0):.0f} ms, one stall "
            f"(load {os.getloadavg()[0]:.2f})"
        )
        panel.close()
        panel.deleteLater()


def read_folder(app, panel, what: str) -> None:
    """The folder (read again), the window's way (Enter, Reload, Browse, the window's start):
    listed and parsed on a thread, the GUI thread's stalls timed by a 5 ms timer and its
    longest uninterrupted hold by a 1 ms one."""
    from PySide6.QtCore import QEventLoop

    parsed = panel.file_cache.parsed
    stalls, probe, collections = StallProbe(), HoldProbe(), Collections()
    t0 = time.perf_counter_ns()
    panel.refresh(background=True)
    while panel.scanning:
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
    app.processEvents()
    took = ms_since(t0)
    longest = probe.longest(t0, time.perf_counter_ns())
    stalls.stop()
    probe.stop()
    print(
        f"{what}: runs shown after {took:.0f} ms ({panel.file_cache.parsed - parsed} files "
        f"parsed on a thread); GUI thread stalls {stalls.line()} (load "
        f"{os.getloadavg()[0]:.2f})"
    )
    print(f"    longest uninterrupted GUI-thread hold {longest:.0f} ms; {collections.line()}")


def settle(app, panel) -> None:
    """Events processed until the charts' labels are placed (a placement runs once the event
    loop is idle, after the layout it needs)."""
    curves = panel.curves
    declutters = [*curves.declutter.values(), curves.pareto.declutter]
    app.processEvents()
    # Points joining the shown run are drawn on the next turn of the event loop (a burst in
    # one drawing); an older tree draws them at once and has no such flag.
    while getattr(panel, "drawing_due", False) or any(d.pending for d in declutters):
        app.processEvents()
    app.processEvents()  # the paint of what was drawn last


def spread(values: list[float]) -> str:
    done = sorted(values)
    p99 = done[min(len(done) - 1, int(0.99 * len(done)))]
    return f"p50 {done[len(done) // 2]:.0f} ms, p99 {p99:.0f} ms, max {done[-1]:.0f} ms"


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
        return (
            f"p99 {p99:.1f} ms, longest GUI-thread step {late[-1]:.0f} ms over "
            f"{len(self.late_ms)} ticks"
        )


class HoldProbe:
    """The GUI thread's holds as a user feels them: a 1 ms timer on the GUI thread notes when
    it gets to run; between two of its ticks the thread did one uninterrupted piece of work
    (an event handler, a paint), which is what keeps the window from answering a click or a
    repaint. `longest` is the longest such piece from an instant to another (the first from
    the instant to the first tick, the last from the last tick to the end)."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.ticks: list[int] = []
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(lambda: self.ticks.append(time.perf_counter_ns()))
        self.timer.start(1)

    def longest(self, start: int, end: int) -> float:
        marks = [start, *(t for t in self.ticks if start < t < end), end]
        return max(b - a for a, b in itertools.pairwise(marks)) / 1e6

    def stop(self) -> None:
        self.timer.stop()


class Collections:
    """The cyclic collector's passes on the GUI thread from now on: how many and the longest
    (each is one uninterrupted hold: with thousands of files alive, a full pass walks them)."""

    def __init__(self) -> None:
        self.took_ms: list[tuple[int, float]] = []
        self._start = 0
        self._gui = threading.get_ident()

        def timed(phase: str, info: dict) -> None:
            if threading.get_ident() != self._gui:
                return
            if phase == "start":
                self._start = time.perf_counter_ns()
            elif self._start:
                self.took_ms.append((info["generation"], ms_since(self._start)))

        self._timed = timed
        gc.callbacks.append(timed)

    def line(self) -> str:
        if self._timed in gc.callbacks:
            gc.callbacks.remove(self._timed)
        full = [ms for generation, ms in self.took_ms if generation == 2]
        young = [ms for generation, ms in self.took_ms if generation < 2]
        return (
            f"collections on it: {len(full)} full (longest {max(full, default=0):.0f} ms), "
            f"{len(young)} young (longest {max(young, default=0):.0f} ms)"
        )


def ms_since(t0: int) -> float:
    return (time.perf_counter_ns() - t0) / 1e6


if __name__ == "__main__":
    main()
