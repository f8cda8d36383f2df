"""GUI fidelity: per-token timing error, event-loop stalls and memory with the charts live.

Runs sweeps through the Sweep panel's own code path (form -> worker process -> events -> live
charts repainted at 5 Hz, the panel shown) against benchmarks/chunk_server.py, which logs the
monotonic time it wrote every chunk. Prints:

  1. concurrency 64: per-token ITL error |client gap - server gap| p50/p99 (goal p99 < 1 ms,
     equal to the headless worker's with --baseline), TTFT excess (client TTFT - server first
     write after receiving the request), the GUI event-loop stall p99 (lateness of a 5 ms
     timer; goal < 16 ms, one frame at 60 Hz), the window's CPU seconds and share of a core
     (goal <= 10 %) and the CPU cost of one repaint of the live charts (thread CPU time, so
     less sensitive to other load on the machine than the wall-clock figures);
  2. experiment B (rate inf, concurrency 1..128, 200 prompts per point): the window's RSS
     after it and the worker's peak RSS (goal < 500 MB), with the stalls during it.

The window's parts run on a temporary config folder (as `--screenshot --demo-sweep` does): a
sweep form the user saved (a capacity preset, other rates) is neither read nor changed. The
Server metrics dock is linked as in the window: it reads /metrics itself until the sweep
starts, then shows the sweep worker's own samples (one reader of the endpoint's /metrics).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gui_fidelity.py [--skip-b]
        [--baseline] (about 40 s with --skip-b --baseline)
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def metrics_page(path: Path) -> Path:
    """A /metrics page as the built-in simulator (vLLM's metric names) renders it."""
    from app.sim.metrics import SimMetrics

    sim = SimMetrics(
        "bench", block_size=16, num_gpu_blocks=5306, cache_dtype="auto", gpu_memory_utilization=0.9
    )
    sim.on_step(64, 0, 0.4)
    path.write_bytes(sim.render())
    return path


def start_chunk_server(
    itl_ms: float, tokens: int, page: Path | None = None
) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            *(sys.executable, str(ROOT / "benchmarks" / "chunk_server.py")),
            *("--itl-ms", str(itl_ms), "--tokens", str(tokens), "--ttft-ms", "5"),
            *(("--metrics-page", str(page)) if page else ()),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    if not line.startswith("READY"):
        proc.kill()
        raise SystemExit(f"chunk server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{int(line.split()[1])}"


def rss_mb(pid: int | str = "self") -> tuple[float, float]:
    """(current, peak) resident memory in MB from /proc (Linux)."""
    values = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, amount, _unit = line.split()
                values[key] = int(amount) / 1024
    return values.get("VmRSS:", math.nan), values.get("VmHWM:", math.nan)


def pct(values: list[float] | np.ndarray, q: float) -> float:
    arr = np.asarray(values, dtype=float)
    return float(np.percentile(arr, q)) if arr.size else math.nan


def stall_line(probe: StallProbe, goal: str = "") -> str:
    late = probe.lateness_ms
    if not late:
        return "  GUI event-loop stall: not measured (--no-stall-probe)"
    return (
        f"  GUI event-loop stall p50 {pct(late, 50):.2f} ms, p99 {pct(late, 99):.2f} ms, "
        f"max {max(late):.1f} ms{goal}; {len(late)} ticks; worst: {probe.worst()} after "
        "the probe started"
    )


class StallProbe:
    """A 5 ms precise timer on the GUI thread; lateness of each tick = event-loop stall."""

    def __init__(self, interval_ms: int = 5) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.interval_ns = interval_ms * 1_000_000
        self.lateness_ms: list[float] = []
        self._last = time.perf_counter_ns()
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)

    def cost_per_tick_ms(self, seconds: float = 1.0) -> float:
        """Process CPU per tick with nothing else to do (the event loop's wake-up included)."""
        from PySide6.QtCore import QEventLoop, QTimer

        loop = QEventLoop()
        QTimer.singleShot(round(seconds * 1000), loop.quit)
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        self.start()
        loop.exec()
        self.stop()
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu_ms = (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1e3
        ticks = max(1, len(self.lateness_ms))
        self.lateness_ms.clear()
        return cpu_ms / ticks

    def start(self) -> None:
        self.lateness_ms.clear()
        self.at_s: list[float] = []
        self._last = self._t0 = time.perf_counter_ns()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter_ns()
        self.lateness_ms.append(max(0, now - self._last - self.interval_ns) / 1e6)
        self.at_s.append((self._last - self._t0) / 1e9)  # when the stall began
        self._last = now

    def worst(self, n: int = 3) -> str:
        order = sorted(range(len(self.lateness_ms)), key=self.lateness_ms.__getitem__)[-n:]
        return ", ".join(
            f"{self.lateness_ms[i]:.0f} ms at {self.at_s[i]:.2f} s" for i in reversed(order)
        )


class CpuLedger:
    """Thread CPU time of the window's parts during a run, by wrapping the Python entry points.

    Thread CPU (not wall time), so other load on the machine changes it little: reading and
    dispatching the worker's events, pushing data into the live charts (the repaint timer),
    painting each chart (pyqtgraph's GraphicsView.paintEvent, named by the chart), the dock's
    drawing and its scraping thread; the rest of the GUI thread (Qt's event loop, widgets,
    tables, labels) is what is left of the GUI thread's own CPU time.
    """

    def __init__(self) -> None:
        self.ms: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self.names: dict[int, str] = {}
        self.active = False
        self.imported: set[str] = set()
        self._modules: set[str] = set()
        self._threads0: dict[tuple[int, str], float] = {}
        self.thread_ms: dict[str, float] = {}

    def start(self) -> None:
        self._modules = set(sys.modules)
        self._threads0 = task_cpu_ms()
        self.active = True

    def stop(self) -> None:
        self.active = False
        self.imported = set(sys.modules) - self._modules
        after = task_cpu_ms()
        self.thread_ms = {
            f"{name} ({tid})": ms - self._threads0.get((tid, name), 0.0)
            for (tid, name), ms in after.items()
        }

    def wrap(self, owner: object, attr: str, label: str) -> None:
        original = getattr(owner, attr)

        @functools.wraps(original)
        def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
            if not self.active:
                return original(*args, **kwargs)
            c0 = time.thread_time_ns()
            try:
                return original(*args, **kwargs)
            finally:
                self.ms[label] += (time.thread_time_ns() - c0) / 1e6
                self.calls[label] += 1

        setattr(owner, attr, timed)

    def watch_paint(self) -> None:
        """Every chart's paint event, charged to the chart's name (set with `name`)."""
        import pyqtgraph as pg

        original = pg.GraphicsView.paintEvent
        ledger = self

        def paintEvent(view, ev):  # type: ignore[no-untyped-def]
            if not ledger.active:
                return original(view, ev)
            c0 = time.thread_time_ns()
            try:
                return original(view, ev)
            finally:
                label = "paint " + ledger.names.get(id(view), "other chart")
                ledger.ms[label] += (time.thread_time_ns() - c0) / 1e6
                ledger.calls[label] += 1

        pg.GraphicsView.paintEvent = paintEvent
        original_resize = pg.GraphicsView.resizeEvent

        def resizeEvent(view, ev):  # type: ignore[no-untyped-def]
            if ledger.active:  # a resized chart repaints its axes and re-bins the scatter
                ledger.calls["bench: chart resized " + ledger.names.get(id(view), "other")] += 1
            return original_resize(view, ev)

        pg.GraphicsView.resizeEvent = resizeEvent
        # Inside a chart's paint: its axes (with the grid) and its curves, by chart.
        for cls, part in ((pg.AxisItem, "axes"), (pg.PlotCurveItem, "curves")):
            self._wrap_item_paint(cls, part)

    def _wrap_item_paint(self, cls: type, part: str) -> None:
        original = cls.paint
        ledger = self

        def paint(item, *args):  # type: ignore[no-untyped-def]
            if not ledger.active:
                return original(item, *args)
            c0 = time.thread_time_ns()
            try:
                return original(item, *args)
            finally:
                view = item.scene().views()[0] if item.scene() and item.scene().views() else None
                label = f"  of which {part}: " + ledger.names.get(id(view), "other chart")
                ledger.ms[label] += (time.thread_time_ns() - c0) / 1e6
                ledger.calls[label] += 1

        cls.paint = paint

    def watch_gc(self) -> None:
        """Garbage collections during the run (a full one walks every object of the window)."""
        import gc

        starts: dict[int, int] = {}

        def on_gc(phase: str, info: dict) -> None:
            if not self.active:
                return
            if phase == "start":
                starts[info["generation"]] = time.thread_time_ns()
            elif info["generation"] in starts:
                label = f"bench: garbage collection gen {info['generation']}"
                self.gc_ms[label] += (time.thread_time_ns() - starts.pop(info["generation"])) / 1e6
                self.gc_calls[label] += 1

        self.gc_ms: defaultdict[str, float] = defaultdict(float)
        self.gc_calls: Counter[str] = Counter()
        gc.callbacks.append(on_gc)

    def name(self, label: str, *views: object) -> None:
        for view in views:
            self.names[id(view)] = label

    def report(
        self, gui_thread_ms: float, dock_thread_ms: float, process_ms: float, probe_ms: float = 0.0
    ) -> str:
        """By part; `probe_ms` is the stall probe's whole cost (its wake-ups in Qt's loop
        included, measured alone), so the "rest" row is the window's own."""
        rows = sorted(self.ms.items(), key=lambda kv: -kv[1])
        measured = sum(v for k, v in self.ms.items() if not k.startswith(("bench ", "  of which")))
        lines = [f"  CPU by part (ms, calls; GUI thread {gui_thread_ms:.0f} ms):"]
        lines += [f"    {k:<34} {v:8.0f} {self.calls[k]:6d}" for k, v in rows]
        own = sum(v for k, v in self.ms.items() if k.startswith("bench "))
        probe_rest = max(0.0, probe_ms - self.ms.get(PROBE_LABEL, 0.0))
        if probe_ms:
            lines.append(f"    {'bench stall probe wake-ups in Qt':<34} {probe_rest:8.0f}")
        rest = gui_thread_ms - measured - own - probe_rest
        lines.append(f"    {'rest of the GUI thread':<34} {rest:8.0f}")
        lines.append(f"    {'dock scraping thread':<34} {dock_thread_ms:8.0f}")
        other = process_ms - gui_thread_ms - dock_thread_ms
        lines.append(f"    {'other threads of the window':<34} {other:8.0f}")
        for k, v in sorted(getattr(self, "gc_ms", {}).items()):
            lines.append(f"    ({k[7:]:<32} {v:8.0f} {self.gc_calls[k]:6d}, any thread)")
        for k, n in sorted(self.calls.items()):
            if k.startswith("bench: chart resized"):
                lines.append(f"    ({k[7:]:<32} {n:6d} times)")
        for name, ms in sorted(self.thread_ms.items(), key=lambda kv: -kv[1])[:5]:
            lines.append(f"    (thread {name!r:<25} {ms:8.0f})")
        if self.imported:
            lines.append(
                f"    modules first imported during the run: {len(self.imported)}, e.g. "
                + ", ".join(sorted(self.imported)[:6])
            )
        return "\n".join(lines)


PROBE_LABEL = "bench stall probe (not the window)"


def task_cpu_ms() -> dict[tuple[int, str], float]:
    """CPU ms of each thread of this process, by (thread id, name), from /proc (Linux)."""
    out: dict[tuple[int, str], float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (task / "stat").read_text()
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2 :].split()
            out[(int(task.name), name)] = (int(fields[11]) + int(fields[12])) * 1e3 / tick
    return out


def thread_cpu_ms(name: str) -> float:
    """CPU time of the live Python thread called `name` (0 if there is none)."""
    for thread in threading.enumerate():
        if thread.name == name and thread.ident is not None:
            with contextlib.suppress(OSError):
                return time.clock_gettime(time.pthread_getcpuclockid(thread.ident)) * 1e3
    return 0.0


def run_sweep(panel, timeout_s: float, ledger: CpuLedger | None = None) -> float:  # type: ignore[no-untyped-def]
    """Press Run and spin a real Qt event loop until the worker is gone; returns wall time."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    panel.runningChanged.connect(lambda running: None if running else loop.quit())
    t0 = time.monotonic()
    gui0, dock0 = time.thread_time_ns(), thread_cpu_ms("metrics-dock")
    if ledger is not None:
        ledger.start()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not panel.run():
        raise SystemExit(f"the panel refused to run: {panel.status.text()}")
    pid = panel.worker._process.processId() if panel.worker._process else 0
    panel.worker_peak_mb = 0.0
    panel.frame_cpu_ms = []
    repaint = panel._repaint

    def timed_repaint(**kwargs: bool) -> None:  # thread CPU time of one repaint of the charts
        c0 = time.thread_time_ns()
        repaint(**kwargs)
        panel.frame_cpu_ms.append((time.thread_time_ns() - c0) / 1e6)

    panel.repaint_timer.timeout.disconnect()
    panel.repaint_timer.timeout.connect(timed_repaint)
    nice = getattr(panel, "bench_nice", 0)
    if nice:  # this (GUI) thread only; the worker was forked before, at normal priority
        os.setpriority(os.PRIO_PROCESS, 0, nice)

    def sample() -> None:
        with contextlib.suppress(OSError):  # the worker may have just exited
            panel.worker_peak_mb = max(panel.worker_peak_mb, rss_mb(pid)[1])
        if time.monotonic() - t0 > timeout_s:
            panel.cancel()

    sampler = QTimer()
    if ledger is not None:  # the bench's own work, not the window's
        holder = type("Sampler", (), {"sample": staticmethod(sample)})
        ledger.wrap(holder, "sample", "bench worker RSS sampler")
        sample = holder.sample
    sampler.timeout.connect(sample)
    sampler.start(250)
    profiler = None
    if getattr(panel, "bench_profile", None):
        import cProfile

        profiler = cProfile.Profile(time.thread_time)  # the GUI thread's CPU, not wall time
        profiler.enable()
    if panel.is_running():
        loop.exec()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(panel.bench_profile)
    sampler.stop()
    if nice:
        os.setpriority(os.PRIO_PROCESS, 0, 0)  # needs the privilege to raise it back
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    panel.gui_thread_ms = (time.thread_time_ns() - gui0) / 1e6
    panel.dock_thread_ms = thread_cpu_ms("metrics-dock") - dock0
    if ledger is not None:
        ledger.stop()
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    panel.gui_cpu_s = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
    panel.worker_cpu_s = kids1.ru_utime + kids1.ru_stime - kids0.ru_utime - kids0.ru_stime
    if panel.last_error:
        raise SystemExit(f"sweep failed: {panel.last_error}")
    return time.monotonic() - t0


def count_scrapes(dock) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Count the dock's own scrapes, those while a run is going apart ('run')."""
    counts: dict[str, object] = {"run": 0, "idle": 0, "during_run": False}
    scraper = dock._scraper
    real = scraper.scrape_now

    async def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        key = "run" if counts["during_run"] else "idle"
        counts[key] = int(counts[key]) + 1  # type: ignore[call-overload]
        return await real(*args, **kwargs)

    scraper.scrape_now = counted
    return counts


def wait_until(condition, timeout_s: float) -> None:  # type: ignore[no-untyped-def]
    """Spin the Qt event loop until `condition()` holds (or the timeout passes)."""
    from PySide6.QtCore import QEventLoop, QTimer

    end = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < end:
        loop = QEventLoop()
        QTimer.singleShot(50, loop.quit)
        loop.exec()


def evaluate(result_file: Path, truth: dict) -> dict[str, float]:
    """Match client requests (detailed arrays, in request order) to the server's log by id."""
    doc = json.loads(result_file.read_text())
    by_index = {int(rid.rsplit("-", 1)[1]): t for rid, t in truth.items()}
    gap_err: list[float] = []
    clean_err: list[float] = []  # gaps whose two tokens each came in a read of their own
    same_read = 0  # gaps of 0: two tokens of one stream in one read (one stamp for both)
    excess: list[float] = []
    client_itl: list[float] = []
    server_itl: list[float] = []
    matched = 0
    for i, (ttft, itls) in enumerate(zip(doc["ttfts"], doc["itls"], strict=True)):
        t = by_index.get(i)
        if t is None or not itls:
            continue
        writes = np.asarray(t["write_ns"], dtype=np.float64)
        s_gaps = np.diff(writes) / 1e6
        c_gaps = np.asarray(itls) * 1e3
        n = min(len(s_gaps), len(c_gaps))
        err = np.abs(c_gaps[:n] - s_gaps[:n])
        gap_err.extend(err.tolist())
        zero = c_gaps[:n] < 1e-6
        same_read += int(zero.sum())
        # a gap next to a zero one is stretched by the same shared stamp
        touched = zero | np.concatenate([zero[1:], [False]])
        clean_err.extend(err[~touched].tolist())
        client_itl.extend(c_gaps[:n].tolist())
        server_itl.extend(s_gaps[:n].tolist())
        excess.append(ttft * 1e3 - (writes[0] - t["recv_ns"]) / 1e6)
        matched += 1
    return {
        "requests": len(doc["ttfts"]),
        "matched": matched,
        "tokens": len(gap_err) + matched,
        "gap_err_p50_ms": pct(gap_err, 50),
        "gap_err_p99_ms": pct(gap_err, 99),
        "same_read_pct": 100 * same_read / len(gap_err) if gap_err else math.nan,
        "clean_gap_err_p99_ms": pct(clean_err, 99),
        "itl_p99_client_ms": pct(client_itl, 99),
        "itl_p99_server_ms": pct(server_itl, 99),
        "ttft_excess_mean_ms": float(np.mean(excess)) if excess else math.nan,
        "ttft_excess_p99_ms": pct(excess, 99),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--itl-ms", type=float, default=20.0, help="chunk server's token gap")
    parser.add_argument("--tokens", type=int, default=128, help="tokens per reply")
    parser.add_argument("--waves", type=int, default=4, help="requests per slot at conc 64")
    parser.add_argument("--skip-b", action="store_true", help="only the concurrency-64 run")
    parser.add_argument("--b-prompts", type=int, default=200)
    parser.add_argument(
        "--no-dock",
        action="store_true",
        help="without the Server metrics dock (by default it reads the server's /metrics at "
        "4 Hz during the run, as in the window)",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="lower the window's GUI thread to this nice value during the run (an experiment: "
        "raising it back needs privileges a desktop user rarely has)",
    )
    parser.add_argument(
        "--no-stall-probe",
        action="store_true",
        help="without the 5 ms stall-probe timer (it costs the process ~0.2 ms a tick): the "
        "window's CPU is then read directly, not less an estimate of the probe's share",
    )
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also run the same sweep headless (the CLI, no window) to separate the machine's "
        "own noise from what the window adds",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="write a cProfile of the GUI thread during the concurrency-64 run (thread CPU "
        "time) to FILE; the callees of QEventLoop.exec are the window's entry points",
    )
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.paths import CONFIG_ENV

    # Before any of the window's code reads settings; the worker processes inherit it.
    with tempfile.TemporaryDirectory(prefix="tpotbench-gui-fidelity-config-") as config:
        os.environ[CONFIG_ENV] = config
        measure(args)


def measure(args: argparse.Namespace) -> None:

    from PySide6.QtWidgets import QApplication

    ledger = CpuLedger()
    ledger.watch_paint()  # before any chart exists
    ledger.watch_gc()

    from app.commands.argv import build_run_config, sweep_command
    from app.commands.run_args import config_json
    from app.profiles import Target
    from app.ui.panels.sweep.panel import SweepPanel
    from app.ui.run_extras import RunExtras

    app = QApplication.instance() or QApplication([])
    from app.ui.app_setup import collect_on_gui_thread

    collect_on_gui_thread(app)  # as the window does: collections on the GUI thread, timed
    import asyncio

    import qasync

    # The dock reads /metrics with asyncio; on a qasync loop riding the Qt loops below.
    asyncio.set_event_loop(qasync.QEventLoop(app, already_running=True))
    out = Path(tempfile.mkdtemp(prefix="tpotbench-gui-fidelity-"))
    # The stall probe's own cost (200 wake-ups a second) is counted in the window's CPU: it is
    # measured alone first, before any window exists, so the window's share can be read
    # without it.
    app.processEvents()
    probe_tick_ms = StallProbe().cost_per_tick_ms()
    print(f"load before: {os.popen('uptime').read().strip()}")

    # 1. Concurrency 64 (default), 128 tokens at 20 ms, charts live.
    page = None if args.no_dock else metrics_page(out / "metrics.txt")
    server, url = start_chunk_server(args.itl_ms, args.tokens, page)
    dock = None
    if page is not None:
        from app.ui.panels.server_metrics.panel import ServerMetricsPanel

        dock = ServerMetricsPanel()
        dock.resize(420, 800)
        dock.show()
        # As in the window, the dock watches the endpoint from the moment it is selected, so
        # its first page (server kind, KV pool, the readout's first relayout) is before the run.
        dock.start(Target("chunk server", url, "chat", "bench"))
        wait_until(lambda: dock.sample_count() > 0, 10.0)
        dock.repaint_now()
        app.processEvents()
        ledger.name("dock", *dock._plots())
        ledger.wrap(dock, "_repaint", "dock data -> charts")
        dock._timer.timeout.disconnect()  # connected to the unwrapped method
        dock._timer.timeout.connect(dock._repaint)
        dock_scrapes = count_scrapes(dock)
    try:
        panel = SweepPanel(
            lambda: Target("chunk server", url, "chat", "bench"),
            # As the window: the worker reads /metrics for each point's file (with a dock).
            lambda: RunExtras(server_metrics=page is not None, flags=("--save-detailed",)),
        )
        panel.resize(1400, 850)
        panel.show()
        panel.form.results_root.setText(str(out))
        panel.form.rates.setText("inf")
        panel.form.concurrencies.setText(str(args.concurrency))
        panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
        panel.form.input_len.setValue(32)
        panel.form.output_len.setValue(args.tokens)
        panel.form.num_prompts.setValue(args.concurrency * args.waves)
        panel.form.label.setText("fid")
        if dock is not None:  # the window's links (PanelLinks): the run's samples, marks
            target = Target("chunk server", url, "chat", "bench")
            panel.runningChanged.connect(
                lambda running: dock.follow_run(target if running else None)
            )
            panel.runningChanged.connect(dock.set_running)
            panel.runningChanged.connect(
                lambda running: dock.mark("sweep", run_start=True) if running else None
            )
            panel.runningChanged.connect(lambda running: dock_scrapes.update(during_run=running))
            panel.pointStarted.connect(dock.mark)
            panel.serverMetrics.connect(dock.add_run_sample)
        panel.bench_nice = args.nice
        panel.bench_profile = args.profile
        ledger.name("live ITL scatter", panel.live.itl)
        ledger.name("live small charts", panel.live.tpot, panel.live.tok_s, panel.live.in_flight)
        ledger.name("sweep curves", *panel.curves.plots().values())
        ledger.wrap(panel.worker, "_read_stdout", "read + dispatch worker events")
        ledger.wrap(panel.live, "refresh", "live data -> charts (refresh)")
        ledger.wrap(panel.curves, "set_series", "sweep curves data -> charts")
        probe = StallProbe()
        ledger.wrap(probe, "_tick", PROBE_LABEL)
        probe.timer.timeout.disconnect()  # connected to the unwrapped method
        probe.timer.timeout.connect(probe._tick)
        if not args.no_stall_probe:
            probe.start()
        wall = run_sweep(panel, 300, ledger)
        probe.stop()
        with urllib.request.urlopen(f"{url}/truth") as resp:
            truth = json.loads(resp.read())
        assert panel.run_dir is not None
        result = next(panel.run_dir.glob("fid_rateinf_conc*.json"))
        fig = evaluate(result, truth)
        load = os.popen("uptime").read().strip()
        panel.grab().save(str(out / "gui_fidelity_c64.png"))
        print(
            f"\nconcurrency {args.concurrency}, {fig['requests']} requests "
            f"({fig['matched']} matched to the server log), {fig['tokens']} tokens, "
            f"{wall:.1f} s, charts live"
        )
        print(
            f"  CPU: window {panel.gui_cpu_s:.2f} s ({panel.gui_cpu_s / wall:.1%} of a core, "
            f"goal <= 10 %), worker {panel.worker_cpu_s:.1f} s; one repaint p50 "
            f"{pct(panel.frame_cpu_ms, 50):.2f} ms, p99 {pct(panel.frame_cpu_ms, 99):.2f} ms "
            f"CPU ({len(panel.frame_cpu_ms)} repaints)"
        )
        probe_s = probe_tick_ms * len(probe.lateness_ms) / 1e3
        own = panel.gui_cpu_s - probe_s
        if probe.lateness_ms:
            print(
                f"  of which the stall probe's own 5 ms timer ~{probe_s:.2f} s "
                f"({probe_tick_ms * 1e3:.0f} us a tick, measured alone): the window without "
                f"it ~{own:.2f} s ({own / wall:.1%} of a core)"
            )
        print(
            ledger.report(
                panel.gui_thread_ms, panel.dock_thread_ms, panel.gui_cpu_s * 1e3, probe_s * 1e3
            )
        )
        print(
            f"  per-token ITL error |client - server| p50 {fig['gap_err_p50_ms']:.3f} ms, "
            f"p99 {fig['gap_err_p99_ms']:.3f} ms (goal p99 < 1 ms); "
            f"{fig['same_read_pct']:.2f} % of gaps 0 (two tokens in one read, one kernel stamp), "
            f"p99 without them and their neighbours {fig['clean_gap_err_p99_ms']:.3f} ms"
        )
        print(
            f"  ITL p99 client {fig['itl_p99_client_ms']:.2f} ms vs server "
            f"{fig['itl_p99_server_ms']:.2f} ms; TTFT excess mean "
            f"{fig['ttft_excess_mean_ms']:.2f} ms, p99 {fig['ttft_excess_p99_ms']:.2f} ms"
        )
        print(stall_line(probe, " (goal p99 < 16 ms)"))
        if dock is not None:
            print(
                f"  Server metrics dock live: {dock.sample_count()} /metrics samples "
                f"(failures {dock._scraper.failures if dock._scraper else '?'}); its own "
                f"scrapes during the run: {dock_scrapes['run']} (the worker's samples shown)"
            )
            dock.stop()
            dock.close()
        print(f"  load: {load}")
        if args.baseline:
            spec = panel.build_spec()
            spec.result_dir = str(out / "headless")
            config = build_run_config(spec, Target("chunk server", url, "chat", "bench"))
            t0 = time.monotonic()
            subprocess.run(
                sweep_command(config),
                input=config_json(config) + "\n",
                text=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
            )
            with urllib.request.urlopen(f"{url}/truth") as resp:
                truth = json.loads(resp.read())
            base = evaluate(next((out / "headless").glob("fid_*.json")), truth)
            print(
                f"  headless baseline (same sweep, no window, {time.monotonic() - t0:.1f} s): "
                f"ITL error p50 {base['gap_err_p50_ms']:.3f} ms, p99 "
                f"{base['gap_err_p99_ms']:.3f} ms ({base['same_read_pct']:.2f} % gaps 0, p99 "
                f"without {base['clean_gap_err_p99_ms']:.3f} ms); TTFT excess mean "
                f"{base['ttft_excess_mean_ms']:.2f} ms"
            )
            print(f"  load: {os.popen('uptime').read().strip()}")
    finally:
        server.kill()
        server.wait()

    if args.skip_b:
        return
    # 2. Experiment B with 200 prompts per point; a fast server so it takes about a minute.
    server, url = start_chunk_server(2.0, 64)
    try:
        panel.close()
        panel = SweepPanel(lambda: Target("chunk server", url, "chat", "bench"))
        panel.resize(1400, 850)
        panel.show()
        panel.form.results_root.setText(str(out))
        panel.form.apply_preset("B")
        panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
        panel.form.input_len.setValue(32)
        panel.form.output_len.setValue(64)
        panel.form.num_prompts.setValue(args.b_prompts)
        if not args.no_stall_probe:
            probe.start()
        wall = run_sweep(panel, 900)
        probe.stop()
        app.processEvents()
        now, peak = rss_mb()
        load = os.popen("uptime").read().strip()
        panel.grab().save(str(out / "gui_fidelity_expB.png"))
        print(
            f"\nexperiment B (conc 1..128, {args.b_prompts} prompts per point, 64 tokens at "
            f"2 ms): {len(panel.points)} points, {panel.live.tokens.total_added} token gaps "
            f"charted, {wall:.1f} s"
        )
        print(
            f"  CPU: window {panel.gui_cpu_s:.1f} s ({panel.gui_cpu_s / wall:.0%} of a core), "
            f"worker {panel.worker_cpu_s:.1f} s"
        )
        print(
            f"  window RSS after {now:.0f} MB (peak {peak:.0f} MB); worker peak RSS "
            f"{panel.worker_peak_mb:.0f} MB (goal < 500 MB)"
        )
        print(stall_line(probe))
        print(f"  load: {load}")
        print(f"\nscreenshots and results in {out}")
    finally:
        server.kill()
        server.wait()
        panel.close()


if __name__ == "__main__":
    main()
