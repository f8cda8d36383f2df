"""The window's Server metrics dock: one timeline across a sweep, its points marked."""

from __future__ import annotations

import numpy as np

from app.ui.main_window import MainWindow
from tests.ui.test_main_window import ctx, window  # noqa: F401  (fixtures)


def test_a_sweep_is_one_timeline_with_its_points_marked(qtbot, window: MainWindow, tmp_path):  # noqa: F811
    metrics = window.metrics
    assert metrics is not None
    # The selected endpoint (the simulator) is read while idle, before anything runs.
    qtbot.waitUntil(lambda: metrics.sample_count() >= 1, timeout=15_000)
    sweep = window.sweep
    sweep.form.results_root.setText(str(tmp_path))
    sweep.form.dataset.setCurrentIndex(sweep.form.dataset.findData("random"))
    sweep.form.input_len.setValue(32)
    sweep.form.output_len.setValue(24)
    sweep.form.num_prompts.setValue(8)
    sweep.form.rates.setText("inf")
    sweep.form.concurrencies.setText("2, 4")
    window.show_panel(sweep)
    assert sweep.run()
    assert metrics._poll.running  # 4 Hz while the sweep runs
    qtbot.waitUntil(lambda: not sweep.is_running(), timeout=90_000)
    assert sweep.last_error == "" and len(sweep.points) == 2
    assert not metrics._poll.running

    marks = metrics.marks()
    assert [label for _t, label in marks] == ["sweep", "c=2", "c=4"]
    data = metrics.data()
    t = data[:, 0]
    assert np.all(np.diff(t) > 0)  # one clock: nothing restarted at the second point
    assert t[0] < marks[0][0]  # the idle samples before the sweep are still there
    first, second = marks[1][0], marks[2][0]
    # Both points have samples on the timeline, and the server ran requests in each.
    in_first = data[(t >= first) & (t < second)]
    in_second = data[t >= second]
    assert len(in_first) >= 1 and len(in_second) >= 1
    assert np.nanmax(data[t >= first, 2]) >= 1
    # The result files still get the worker's own series, as before.
    block = sweep.points[0].blocks.server_metrics
    assert block is not None and block.series is not None and len(block.series["t_s"]) >= 2


def test_rolling_tpot_floor_follows_the_running_batch(qtbot, window: MainWindow, tmp_path):  # noqa: F811
    metrics, sweep, roofline = window.metrics, window.sweep, window.roofline
    assert metrics is not None and roofline is not None
    qtbot.waitUntil(lambda: metrics.sample_count() >= 1, timeout=15_000)
    window.links.live_timer.setInterval(200)
    sweep.form.results_root.setText(str(tmp_path))
    sweep.form.dataset.setCurrentIndex(sweep.form.dataset.findData("random"))
    sweep.form.input_len.setValue(32)
    sweep.form.output_len.setValue(48)
    sweep.form.num_prompts.setValue(16)
    sweep.form.rates.setText("inf")
    sweep.form.concurrencies.setText("2, 8")
    assert sweep.run()
    qtbot.waitUntil(lambda: not sweep.is_running(), timeout=90_000)
    assert sweep.last_error == ""
    floor = sweep.live.floor.view()
    assert len(floor) >= 2
    # Each floor value is the roofline floor of a batch the server reported running.
    scenario = roofline.scenario()
    by_batch = {b: scenario.floor(b).seconds * 1000.0 for b in range(1, 9)}
    batches = set()
    for value in floor[:, 1]:
        match = [b for b, ms in by_batch.items() if abs(ms - value) < 1e-9]
        assert match, value
        batches.add(match[0])
    assert len(batches) >= 2  # it moved with the batch
    assert "/metrics" in sweep.live.floor_source
    # The chart draws it, and the roofline panel shows the live point at a batch above 1.
    x, _y = sweep.live._floor.getData()
    assert x is not None and len(x) >= 2
    assert roofline._live_ms is not None and roofline._live_batch >= 1


def test_stopping_the_scrape_thread_leaves_the_loop_to_its_own_thread() -> None:
    import asyncio
    import threading

    from app.ui.plots.server_timeline import ScrapeThread

    started = threading.Event()
    closed_cleanly = threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            closed_cleanly.set()  # cancelled on its own loop, its cleanup ran

    for _ in range(20):  # the teardown race needed many tries when it existed
        thread = ScrapeThread()
        callers: list[int] = []
        thread.start(forever())
        assert started.wait(5)
        started.clear()
        assert thread._future is not None
        thread._future.add_done_callback(lambda _f, out=callers: out.append(threading.get_ident()))
        thread.stop().result(timeout=5)
        assert closed_cleanly.wait(5)
        closed_cleanly.clear()
        # The coroutine's future is settled on the loop's thread, while the loop is open:
        # settled on the caller's, a callback reached the loop after it had closed.
        assert callers and callers[0] != threading.get_ident()
        assert thread._future.cancelled()
        thread.stop().result(timeout=5)  # again, after the close: nothing to do, no error
