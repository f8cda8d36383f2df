"""The window's links during real runs against the simulator: a finished point joins the Results
tab from its event (no folder read), the Server metrics dock shows the sweep's own /metrics
samples instead of reading that /metrics too, and every event kind the window decodes reaches
something that uses it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PySide6.QtCore import SIGNAL

from app.bench.sweep import event_decode
from app.ui import run_process
from app.ui.main_window import MainWindow

# The RunProcess signal each event kind is emitted on (an `error` event is errorMessage).
SIGNALS = {
    "run_started": "runStarted",
    "point_started": "pointStarted",
    "tokens": "tokens",
    "progress": "progress",
    "request": "request",
    "point_finished": "pointFinished",
    "server_metrics": "serverMetrics",
    "run_finished": "runFinished",
    "search_value": "searchValue",
    "search_finished": "searchFinished",
}


def receivers(obj: object, name: str) -> int:
    return obj.receivers(SIGNAL(f"{name}(PyObject)"))  # type: ignore[attr-defined]


def test_a_sweep_and_a_search_reach_the_results_tab_and_the_dock_through_their_events(
    qtbot, sim_window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = sim_window
    sweep, results, dock = window.sweep, window.results, window.metrics
    root = tmp_path / "results"
    root.mkdir()
    results.set_folder(root)
    sweep.form.results_root.setText(str(root))
    # The dock reads the simulator's /metrics itself while nothing runs: its scrapes counted.
    qtbot.waitUntil(lambda: dock.scraping and dock.sample_count() > 0, timeout=15_000)
    scraper = dock._scraper
    assert scraper is not None
    scrapes: list[str] = []
    real_scrape = scraper.scrape_now

    async def counted(*args, **kwargs):  # on the dock's thread
        # Counted by the dock's own state when the scrape starts, not by the test's slot on
        # runningChanged: that slot runs after the window's, so a scrape the dock begins as
        # soon as the run ends (the window's slot woke it) would count as "during the run".
        scrapes.append("run" if dock.fed_by_run else "idle")
        return await real_scrape(*args, **kwargs)

    scraper.scrape_now = counted  # type: ignore[method-assign]
    # The window's slot on runningChanged runs first: by the test's the dock follows the run.
    followed: list[bool] = []
    sweep.runningChanged.connect(lambda on: followed.append(dock.fed_by_run) if on else None)
    kinds: list[str] = []

    def decode(raw: bytes | str):  # every event the window decodes, by kind
        event = event_decode.decode(raw)
        kinds.append(event.kind)
        return event

    monkeypatch.setattr(run_process, "decode", decode)

    # 1. A sweep of two points.
    sweep.form.apply_preset("demo")
    sweep.form.results_root.setText(str(root))
    sweep.form.concurrencies.setText("1, 4")
    sweep.form.num_prompts.setValue(8)
    sweep.form.output_len.setValue(64)
    parsed = results.file_cache.parsed
    samples = dock.sample_count()
    with qtbot.waitSignal(sweep.runningChanged, timeout=120_000, check_params_cb=lambda r: not r):
        assert sweep.run(), sweep.status.text()
    assert not sweep.last_error
    # Both points on the Results tab, from their events: no file was read for them.
    assert [(r.name, len(r.points)) for r in results.runs] == [(sweep.run_dir.name, 2)]
    assert results.file_cache.parsed == parsed
    # The dock showed the sweep's samples and did not read that /metrics itself meanwhile (at
    # most a scrape that began as the run did); its own pace was 4 a second before.
    assert dock.sample_count() > samples
    assert followed == [True]
    assert scrapes.count("run") <= 1, scrapes
    # Once the run is over the dock reads the endpoint itself again.
    qtbot.waitUntil(lambda: "idle" in scrapes[-1:], timeout=15_000)

    # 2. A capacity search (its search_value and search_finished events).
    sweep._context_provider = lambda: dataclasses.replace(
        window.links.run_context(), flags=("--min-prompts", "4", "--prompts-per-unit", "1")
    )
    sweep.form.apply_preset("capacity")
    sweep.form.results_root.setText(str(root))
    sweep.form.dataset.setCurrentIndex(sweep.form.dataset.findData("random"))
    sweep.form.input_len.setValue(16)
    sweep.form.output_len.setValue(12)
    sweep.form.ignore_eos.setChecked(True)
    sweep.form.concurrencies.setText("1, 4")
    sweep.form.slo_summary.set_slos(["tpot:p99:26"])
    sweep.form.num_prompts.setValue(8)
    with qtbot.waitSignal(sweep.runningChanged, timeout=180_000, check_params_cb=lambda r: not r):
        assert sweep.run(), sweep.status.text()
    assert sweep.search_doc is not None, sweep.last_error
    assert results.file_cache.parsed == parsed
    names = {r.name: len(r.points) for r in results.runs}
    assert names[sweep.run_dir.name] == len(list(sweep.run_dir.glob("*_conc*.json")))

    # Every kind decoded had a receiver that uses it; a signal forwarded by the sweep panel
    # (its serverMetrics) counts only if the forwarded one has a receiver too.
    assert set(kinds) == set(SIGNALS), set(SIGNALS) ^ set(kinds)
    worker = sweep.worker
    for kind in set(kinds):
        name = SIGNALS[kind]
        assert receivers(worker, name) >= 1, kind
        if hasattr(sweep, name) and name != "pointFinished":  # a forwarded signal
            assert receivers(sweep, name) >= 1, kind


def test_a_sweep_against_another_endpoint_leaves_the_dock_reading_its_own(
    qtbot, sim_window: MainWindow, make_sim
) -> None:
    window = sim_window
    dock = window.metrics
    qtbot.waitUntil(lambda: dock.scraping, timeout=15_000)
    other = make_sim()
    watched = window.current_target()
    dock.follow_run(dataclasses.replace(watched, base_url=other.base_url))
    assert not dock.fed_by_run and not dock._poll.paused
    dock.follow_run(watched)
    assert dock.fed_by_run and dock._poll.paused
    # The user's pause is kept apart from the run's: unpausing during the run keeps the dock
    # fed by the run, and the run's end leaves the user's pause as it was.
    dock.set_paused(True)
    dock.set_paused(False)
    assert dock._poll.paused
    dock.follow_run(None)
    assert not dock._poll.paused and not dock.paused
