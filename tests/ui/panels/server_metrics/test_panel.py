"""Live server-metrics charts: samples in, curves and a status-bar readout out."""

from __future__ import annotations

import asyncio
import math
import os
import socket
from collections.abc import Callable
from pathlib import Path

import httpx
import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from pytestqt.qtbot import QtBot

from app.bench.sweep.contract import ServerMetrics
from app.profiles import Target
from app.sim.embedded import RunningSim
from app.ui.panels.server_metrics.panel import ServerMetricsPanel
from app.ui.plots.server_timeline import (
    BACKOFF_AFTER,
    BACKOFF_INTERVAL_S,
    IDLE_INTERVAL_S,
    RUN_INTERVAL_S,
)


def shot_path(tmp_path: Path, name: str) -> str:
    """Screenshots go to $TPOTBENCH_SHOTS_DIR when set (to look at them), else the test's dir."""
    return os.path.join(os.environ.get("TPOTBENCH_SHOTS_DIR") or str(tmp_path), name)


def make_panel(qtbot: QtBot, **kw: int) -> ServerMetricsPanel:
    panel = ServerMetricsPanel(**kw)
    qtbot.addWidget(panel)
    panel.resize(760, 620)
    return panel


def curve(c: object) -> tuple[list[float], list[float]]:
    """The data a curve was given (getData() would return only the part clipped to view)."""
    x, y = c.xData, c.yData  # type: ignore[attr-defined]
    return ([] if x is None else list(x)), ([] if y is None else list(y))


def test_add_sample_updates_charts_and_status(qtbot: QtBot) -> None:
    panel = make_panel(qtbot)
    texts: list[str] = []
    panel.statusTextChanged.connect(texts.append)
    panel.set_server("vllm", 84_896)
    panel.add_sample({"t_s": 0.0, "kv_cache_usage": 0.10, "running": 4, "waiting": 0,
                      "preemptions": 0})  # fmt: skip
    panel.add_sample({"t_s": 1.0, "kv_cache_usage": 0.45, "running": 12, "waiting": 3,
                      "preemptions": 2})  # fmt: skip
    assert curve(panel.kv_curve) == ([], [])  # nothing is drawn on arrival, only on the timer
    panel.repaint_now()
    # Percent on the chart; each sample held until the next (steps, no ramps between samples).
    assert curve(panel.kv_curve) == ([0.0, 1.0, 1.0], [10.0, 10.0, 45.0])
    assert curve(panel.running_curve)[1] == [4.0, 4.0, 12.0]
    assert curve(panel.waiting_curve)[1] == [0.0, 0.0, 3.0]
    assert curve(panel.preempt_curve)[1] == [0.0, 0.0, 2.0]
    expected = (
        "KV 45% · running 12 · waiting 3 · preemptions 2 "
        "(vLLM (V1 metric names) · KV pool 84,896 tokens)"
    )
    assert panel.status_text == expected
    assert texts[-1] == expected
    assert panel.property("statusText") == expected


def test_timer_repaints_and_missing_values_are_gaps(qtbot: QtBot) -> None:
    panel = make_panel(qtbot, repaint_ms=20)
    panel.add_sample({"t_s": 0.0, "running": 1, "waiting": 0})  # llama.cpp-like: no preemptions
    panel.add_sample({"t_s": 1.0, "kv_cache_usage": None, "running": 2, "waiting": None})
    panel.add_sample({"running": 3})  # no time: ignored
    qtbot.waitUntil(lambda: len(curve(panel.running_curve)[0]) == 3, timeout=2_000)
    assert curve(panel.running_curve)[1] == [1.0, 1.0, 2.0]
    waiting = curve(panel.waiting_curve)[1]
    assert waiting[:2] == [0.0, 0.0] and math.isnan(waiting[2])
    assert panel.status_text == "running 2"


def test_one_timeline_with_marked_boundaries(qtbot: QtBot) -> None:
    panel = make_panel(qtbot)
    panel.mark("sweep", run_start=True)
    for t in (0.0, 1.0, 2.0):
        panel.add_sample({"t_s": t, "running": 5})
    panel.mark("c=8")
    panel.add_sample({"t_s": 0.5, "running": 9})  # from another clock: not this timeline's
    panel.add_sample({"t_s": 3.0, "running": 8})
    panel.repaint_now()
    # Nothing restarts: the samples before the boundary stay on the chart.
    assert curve(panel.running_curve)[0] == [0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    assert [label for _t, label in panel.marks()] == ["sweep", "c=8"]
    assert panel.marks()[1][0] == 2.0  # at the timeline's latest time (no scraper running)


def test_mark_labels_are_whole_and_clear_of_any_legend(qtbot: QtBot) -> None:
    panel = make_panel(qtbot)
    panel.add_sample({"t_s": 0.0, "kv_cache_usage": 0.1, "running": 1})
    panel.mark("sweep", run_start=True)  # at the chart's left edge
    panel.mark("c=1")
    for t in range(1, 40):
        panel.add_sample({"t_s": float(t), "kv_cache_usage": 0.2, "running": 2})
    panel.show()
    qtbot.waitExposed(panel)
    panel.repaint_now()
    panel.grab()  # a paint places the labels
    box = panel.kv_plot.getPlotItem().getViewBox().sceneBoundingRect()
    legend = panel.kv_plot.getPlotItem().legend
    labels = [lines[0].label for _t, _l, lines in panel.charts._marks]
    assert [label.toPlainText() for label in labels] == ["sweep", "c=1"]
    for label in labels:
        rect = label.sceneBoundingRect()
        assert box.contains(rect), (label.toPlainText(), rect, box)  # not cut at the edge
        if legend is not None and legend.isVisible():
            assert not rect.intersects(legend.sceneBoundingRect()), label.toPlainText()


def test_buffers_are_bounded_and_clear_empties(qtbot: QtBot) -> None:
    panel = make_panel(qtbot, capacity=5)
    for i in range(8):
        panel.add_sample({"t_s": float(i), "kv_cache_usage": i / 10, "running": i, "waiting": 0})
    assert panel.sample_count() == 5
    assert list(panel.data()[:, 0]) == [3.0, 4.0, 5.0, 6.0, 7.0]
    panel.repaint_now()
    assert curve(panel.running_curve)[1][::2] == [3.0, 4.0, 5.0, 6.0, 7.0]
    panel.clear()
    panel.repaint_now()
    assert panel.sample_count() == 0
    assert curve(panel.running_curve) == ([], [])
    assert panel.status_text == ""


def test_own_scraper_follows_the_simulator(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    make_sim: Callable[..., RunningSim],
    tmp_path: Path,
) -> None:
    sim = make_sim()
    panel = make_panel(qtbot, repaint_ms=50)
    target = Target("sim", sim.base_url, "chat", "qwen2.5-7b")
    panel.start(target, interval_s=0.1)
    body = {"model": "qwen2.5-7b", "prompt": "hello", "max_tokens": 30, "ignore_eos": True}

    async def load() -> list[int]:
        async with httpx.AsyncClient(timeout=30) as client:
            url = sim.root_url + "/v1/completions"
            replies = await asyncio.gather(*(client.post(url, json=body) for _ in range(8)))
        return [r.status_code for r in replies]

    qtbot.waitUntil(lambda: panel.sample_count() >= 1, timeout=5_000)
    traffic = asyncio.ensure_future(load())
    qtbot.waitUntil(traffic.done, timeout=20_000)
    assert traffic.result() == [200] * 8
    qtbot.waitUntil(lambda: panel.data()[-1, 2] == 0, timeout=5_000)
    assert panel.scraping
    running = panel.data()[:, 2]
    assert np.nanmax(running) == 8
    task = panel.stop()
    assert task is not None
    qtbot.waitUntil(task.done, timeout=5_000)
    assert not panel.scraping
    count = panel.sample_count()
    # The scraping thread has ended: deliver every sample it queued before it did.
    QCoreApplication.sendPostedEvents()
    assert panel.sample_count() == count  # no samples after stop(), queued ones included
    qtbot.waitUntil(lambda: len(curve(panel.running_curve)[0]) == 2 * count - 1)
    assert "(vLLM (V1 metric names) · KV pool 84,896 tokens)" in panel.status_text
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.grab().save(shot_path(tmp_path, "server_metrics_panel.png"))


def test_destroying_the_panel_stops_its_scraper(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, sim: RunningSim
) -> None:
    panel = ServerMetricsPanel()
    panel.start(Target("sim", sim.base_url, "chat", "qwen2.5-7b"), interval_s=0.05)
    qtbot.waitUntil(lambda: panel.sample_count() >= 2, timeout=5_000)
    thread = panel._thread
    assert thread is not None and not thread.finished.done()
    # How a closed window goes away in the app: a deferred delete, run by the event loop.
    panel.deleteLater()
    QCoreApplication.sendPostedEvents(panel, QEvent.Type.DeferredDelete)
    qtbot.waitUntil(thread.finished.done, timeout=5_000)
    assert thread.loop.is_closed()


def test_dock_reads_metrics_while_idle_faster_during_a_run_and_pauses(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, sim: RunningSim
) -> None:
    panel = make_panel(qtbot, repaint_ms=50)
    panel.start(Target("sim", sim.base_url, "chat", "qwen2.5-7b"))  # the app's pace: 2 s idle
    assert panel._poll.interval(0) == IDLE_INTERVAL_S
    # Idle, nothing running on the server: the dock still has samples (a baseline, then 2 s).
    qtbot.waitUntil(lambda: panel.sample_count() >= 2, timeout=15_000)
    assert panel.data()[-1, 2] == 0
    assert "running 0" in panel.message.text()
    # A run: 4 samples a second; a few arrive long before the idle pace would bring one more.
    panel.set_running(True)
    assert panel._poll.interval(0) == RUN_INTERVAL_S
    count = panel.sample_count()
    qtbot.waitUntil(lambda: panel.sample_count() >= count + 4, timeout=15_000)
    t = panel.data()[:, 0]
    assert np.all(np.diff(t) > 0)  # one clock
    # Paused: no more scrapes, the charts keep what they have.
    panel.pause_button.click()
    assert panel.paused and "Paused" in panel.message.text()
    count = panel.sample_count()
    # A window for a scrape that should not happen (4 would at the run's pace): a busy machine
    # can only shorten it, never fail the test.
    qtbot.wait(1_000)
    assert panel.sample_count() <= count + 1  # at most the scrape already in flight
    panel.set_paused(False)
    qtbot.waitUntil(lambda: panel.sample_count() >= count + 2, timeout=15_000)
    qtbot.waitUntil(panel.stop().done, timeout=5_000)


def test_an_endpoint_without_metrics_backs_off_and_says_so(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    panel = make_panel(qtbot)
    panel.start(Target("none", "http://127.0.0.1:9", "chat", "m"), interval_s=0.05)
    qtbot.waitUntil(lambda: "No /metrics at this endpoint" in panel.message.text(), timeout=10_000)
    qtbot.waitUntil(lambda: panel._scraper.failures >= BACKOFF_AFTER, timeout=10_000)
    assert panel._poll.interval(panel._scraper.failures) == BACKOFF_INTERVAL_S
    assert panel.sample_count() == 0
    qtbot.waitUntil(panel.stop().done, timeout=5_000)


def test_a_shorter_readout_does_not_resize_the_charts(qtbot: QtBot) -> None:
    panel = make_panel(qtbot)
    panel.resize(330, 700)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_server("vllm", 84_896)
    resizes: list[int] = []
    plot = panel.kv_plot

    def sample(t: float, running: float) -> None:
        panel.add_sample({"t_s": t, "kv_cache_usage": 1.0, "running": running, "waiting": running,
                          "preemptions": running})  # fmt: skip
        panel.repaint_now()
        QCoreApplication.processEvents()

    original = type(plot).resizeEvent

    def counted(event: object) -> None:
        resizes.append(plot.height())
        original(plot, event)

    sample(0.0, 123_456_789_012)  # a long readout: several lines
    label = panel.message
    qtbot.waitUntil(lambda: label.height() == label.heightForWidth(label.width()))
    plot.resizeEvent = counted  # type: ignore[method-assign]
    for n in range(1, 6):  # short and long by turns: fewer lines, then more again
        sample(float(n), 1 if n % 2 else 123_456_789_012)
    assert resizes == []  # the charts kept their height: no whole repaint of them


def test_a_long_session_hands_the_curves_only_what_is_in_view(qtbot: QtBot) -> None:
    panel = make_panel(qtbot)
    for n in range(5000):  # almost three hours idle, a sample every 2 s
        panel.add_sample({"t_s": 2.0 * n, "kv_cache_usage": 0.01 * (n % 7), "running": n % 5,
                          "waiting": 0, "preemptions": 0})  # fmt: skip
    panel.repaint_now()
    (left, right), _y = panel.kv_plot.getPlotItem().getViewBox().viewRange()
    assert left <= 9998.0 - 600 and right >= 9998.0  # the last ten minutes are in view
    x, y = curve(panel.running_curve)
    assert len(x) < 2 * 2 * (right - left) / 2.0 + 4  # two spans of samples, as held steps
    assert x[0] <= left - (right - left)  # one span more to the left, for a drag
    # In view, the same held steps as from the whole ring.
    rows = panel.data()
    whole_x = np.repeat(rows[:, 0], 2)[1:]
    whole_y = np.repeat(rows[:, 2], 2)[:-1]
    seen = whole_x >= left
    assert x[-int(seen.sum()) :] == whole_x[seen].tolist()
    assert y[-int(seen.sum()) :] == whole_y[seen].tolist()


def test_a_run_sample_is_placed_from_its_points_start_however_late_it_arrives(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep's samples carry seconds since their point's start: each is drawn that long
    after the point's mark, not from whenever the point's first sample happened to arrive."""
    with socket.socket() as s:  # a port nothing listens on: the own scraper finds nothing
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    target = Target("none", f"http://127.0.0.1:{port}", "chat", "qwen2.5-7b")
    panel = make_panel(qtbot)
    panel.start(target)
    panel.follow_run(target)
    assert panel.fed_by_run
    clock = [10.0]
    monkeypatch.setattr(panel, "now_s", lambda: clock[0])

    def sample(t_s: float, running: float) -> ServerMetrics:
        return ServerMetrics(
            t_s=t_s, kv_cache_usage=0.1, running=running, waiting=0.0, preemptions=0.0
        )

    panel.mark("c=1")  # the point starts at 10 s on the dock's clock
    clock[0] = 13.0  # its first sample arrives 3 s late (the window was busy)
    panel.add_run_sample(sample(0.5, 1))
    clock[0] = 13.1
    panel.add_run_sample(sample(1.0, 1))
    clock[0] = 20.0
    panel.mark("c=4")
    clock[0] = 20.3
    panel.add_run_sample(sample(0.2, 4))
    # A sample stamped ahead of the dock's clock is drawn now, not in the future (the dock's
    # own samples after the run must come later on the same timeline).
    panel.add_run_sample(sample(0.9, 4))
    assert [round(float(t), 6) for t in panel.data()[:, 0]] == [10.5, 11.0, 20.2, 20.3]
    assert [t for t, _label in panel.marks()] == [10.0, 20.0]
