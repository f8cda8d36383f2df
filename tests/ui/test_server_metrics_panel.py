"""Live server-metrics charts: samples in, curves and a status-bar readout out."""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Callable
from pathlib import Path

import httpx
import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent
from pytestqt.qtbot import QtBot

from app.profiles import Target
from app.sim.embedded import RunningSim
from app.ui.server_metrics_panel import ServerMetricsPanel


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
    assert curve(panel.kv_curve) == ([0.0, 1.0], [10.0, 45.0])  # percent on the chart
    assert curve(panel.running_curve)[1] == [4.0, 12.0]
    assert curve(panel.waiting_curve)[1] == [0.0, 3.0]
    assert curve(panel.preempt_curve)[1] == [0.0, 2.0]
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
    qtbot.waitUntil(lambda: len(curve(panel.running_curve)[0]) == 2, timeout=2_000)
    assert curve(panel.running_curve)[1] == [1.0, 2.0]
    waiting = curve(panel.waiting_curve)[1]
    assert waiting[0] == 0.0 and math.isnan(waiting[1])
    assert panel.status_text == "running 2"


def test_a_new_point_restarts_the_chart(qtbot: QtBot) -> None:
    panel = make_panel(qtbot)
    for t in (0.0, 1.0, 2.0):
        panel.add_sample({"t_s": t, "running": 5})
    panel.add_sample({"t_s": 0.5, "running": 9})  # the next point's first sample
    panel.repaint_now()
    assert curve(panel.running_curve) == ([0.5], [9.0])


def test_buffers_are_bounded_and_clear_empties(qtbot: QtBot) -> None:
    panel = make_panel(qtbot, capacity=5)
    for i in range(8):
        panel.add_sample({"t_s": float(i), "kv_cache_usage": i / 10, "running": i, "waiting": 0})
    assert panel.sample_count() == 5
    assert list(panel.data()[:, 0]) == [3.0, 4.0, 5.0, 6.0, 7.0]
    panel.repaint_now()
    assert curve(panel.running_curve)[1] == [3.0, 4.0, 5.0, 6.0, 7.0]
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
    assert "(vLLM (V1 metric names) · KV pool 84,896 tokens)" in panel.status_text
    qtbot.waitUntil(lambda: len(curve(panel.running_curve)[0]) == panel.sample_count())
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.grab().save(shot_path(tmp_path, "server_metrics_panel.png"))
    task = panel.stop()
    assert task is not None
    qtbot.waitUntil(task.done, timeout=5_000)
    assert not panel.scraping
    count = panel.sample_count()
    qtbot.wait(300)
    assert panel.sample_count() == count  # no scrapes after stop()


def test_destroying_the_panel_stops_its_scraper(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, sim: RunningSim
) -> None:
    panel = ServerMetricsPanel()
    panel.start(Target("sim", sim.base_url, "chat", "qwen2.5-7b"), interval_s=0.05)
    qtbot.waitUntil(lambda: panel.sample_count() >= 2, timeout=5_000)
    task = panel._task
    assert task is not None and not task.done()
    # How a closed window goes away in the app: a deferred delete, run by the event loop.
    panel.deleteLater()
    QCoreApplication.sendPostedEvents(panel, QEvent.Type.DeferredDelete)
    qtbot.waitUntil(task.done, timeout=3_000)
    assert task.cancelled()
