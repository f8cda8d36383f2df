"""A finished point joins the Results tab from its `point_finished` event (path and result
less the per-request arrays), and the tab then shows exactly what a fresh read of the folder
shows: runs, names, table cells, curves, distributions, other tools' figures, a comparison and
the exports."""

from __future__ import annotations

import contextlib
import gc
import json
import subprocess
import sys
import threading
import weakref
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject

from app.bench.metrics.definitions import TOOLS
from app.bench.results.file_cache import PointFileCache
from app.bench.schema.point_doc import PointDoc
from app.bench.sweep.contract import PointFinished
from app.bench.sweep.event_decode import decode
from app.ui.panels.results.panel import ResultsPanel
from app.ui.panels.results.runs import FolderListing
from app.ui.plots.declutter import overlapping
from app.ui.plots.drawing_queue import drawing_queue
from tests.ui.panels.results.test_panel import VLLM_RATE4


def sweep_events(sim_url: str, folder: Path, label: str, conc: str) -> list[PointFinished]:
    """A real `tpotbench sweep --events jsonl` into `folder`; its point_finished events."""
    done = subprocess.run(
        [
            *(sys.executable, "-m", "app", "sweep", "--base-url", sim_url, "--events", "jsonl"),
            *("--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "8"),
            *("--num-prompts", "4", "--max-concurrency", conc, "--label", label),
            *("--result-dir", str(folder), "--save-detailed", "--server-metrics"),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    events = [decode(line) for line in done.stdout.splitlines() if line.strip()]
    return [e for e in events if isinstance(e, PointFinished)]


def shown(panel: ResultsPanel, tmp: Path) -> dict[str, Any]:
    """Everything the tab shows for the runs it shows (and each point's distributions, each
    tool's table, a comparison of the first two runs, the three exports)."""
    tree = [
        [panel.tree.topLevelItem(i).text(c) for c in range(3)]
        + [panel.tree.topLevelItem(i).toolTip(0)]
        for i in range(panel.tree.topLevelItemCount())
    ]
    table = panel.table
    cells = [
        [
            (it.text(), it.toolTip(), it.background().color().name(), it.font().italic())
            if (it := table.item(r, c)) is not None
            else None
            for c in range(table.columnCount())
        ]
        for r in range(table.rowCount())
    ]
    hidden = [table.isColumnHidden(c) for c in range(table.columnCount())]
    curves = {
        key: [(item.name(), *(list(a) for a in item.getData())) for item in plot.listDataItems()]
        for key, plot in panel.curves.plots().items()
    }
    distributions = []
    for row in range(table.rowCount()):
        table.clearSelection()
        table.selectRow(row)
        distributions.append(table.selected_samples())
    tools = {}
    for index, tool in enumerate(TOOLS):
        if tool == "vllm":
            continue  # vLLM's definitions: the points table above
        panel.definitions.setCurrentIndex(index)
        t = panel.tool_table
        tools[tool] = [
            [t.item(r, c).text() if t.item(r, c) else None for c in range(t.columnCount())]
            for r in range(t.rowCount())
        ]
    panel.definitions.setCurrentIndex(0)
    names = [r.name for r in panel.runs]
    panel.compare.set_runs(panel.runs)
    panel.compare.pick(names[0], names[1])
    panel.compare.run_compare()
    c = panel.compare.table
    compared = [[c.item(r, k).text() for k in range(c.columnCount())] for r in range(c.rowCount())]
    exports = {}
    for suffix in (".csv", ".json", ".md"):
        exports[suffix] = panel.export_data(tmp / f"export{suffix}").read_text(encoding="utf-8")
    if exports[".json"]:  # the export's own date line is not the point's
        exports[".json"] = {k: v for k, v in json.loads(exports[".json"]).items() if k != "date"}
    return {
        "shown": [r.name for r in panel.shown],
        "selected": [i.text(0) for i in panel.tree.selectedItems()],
        "tree": tree,
        "message": panel.message.text(),
        "cells": cells,
        "hidden": hidden,
        "curves": curves,
        "capacity": (panel.capacity_box.isVisibleTo(panel), panel.capacity.text()),
        "distributions": distributions,
        "tools": tools,
        "compare": (panel.compare.method.text(), compared),
        "exports": exports,
    }


@pytest.fixture
def history(tmp_path: Path, sim) -> Path:
    """A results folder with a run of ours, a vLLM run and a broken file."""
    root = tmp_path / "results"
    old = root / "vllm-old"
    old.mkdir(parents=True)
    (old / "openai-chat-4.0qps-concurrency16-qwen2.5-7b.json").write_text(json.dumps(VLLM_RATE4))
    (root / "broken.json").write_text('{"completed": 3, "duration": ')
    sweep_events(sim.base_url, root / "local-bf16", "bf16", "2")
    return root


@pytest.mark.parametrize("on_screen", [True, False], ids=["on-screen", "out-of-sight"])
def test_a_point_added_from_its_event_shows_as_a_fresh_read_of_the_folder(
    qtbot, history: Path, sim, tmp_path: Path, on_screen: bool
) -> None:
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    if on_screen:
        panel.show()
    panel.set_folder(history)
    panel.show_runs([r.name for r in panel.runs])
    panel._select(panel.shown)
    assert [r.name for r in panel.shown] == ["local-bf16", "vllm-old"]
    parsed = panel.file_cache.parsed
    # A point joins a shown run; a new run folder (made by the sweep) gets two; another label
    # joins the shown vLLM folder, whose runs are then named folder/label (as a read of the
    # folder names them) and the one shown under the folder's name is gone.
    events = sweep_events(sim.base_url, history / "local-bf16", "bf16", "1")
    events += sweep_events(sim.base_url, history / "new-run", "fresh", "1,2")
    events += sweep_events(sim.base_url, history / "vllm-old", "other", "1")
    assert len(events) == 4
    drawings = []
    set_series = panel.curves.set_series
    panel.curves.set_series = lambda series, **how: (
        drawings.append(series),
        set_series(series, **how),
    )
    for event in events:
        assert panel.add_point(event.path, event.summary)
    assert panel.file_cache.parsed == parsed  # no file read for the new points
    assert [(r.name, len(r.points)) for r in panel.runs] == [
        ("local-bf16", 2),
        ("new-run", 2),
        ("vllm-old/qwen2.5-7b", 1),
        ("vllm-old/other", 1),
    ]
    assert [r.name for r in panel.shown] == ["local-bf16"]
    assert len(panel.errors) == 1  # the broken file, still reported

    def table_runs() -> list[str]:
        return [panel.table.item(r, 0).text() for r in range(panel.table.rowCount())]

    # Drawn when the tab is next shown (out of sight), or once the event loop is free (on
    # screen: the four points in one drawing), not before.
    assert table_runs() == ["local-bf16", "vllm-old"]
    assert panel.drawing_due is on_screen
    if not on_screen:
        panel.show()
    qtbot.waitUntil(lambda: not panel.drawing_due)
    assert table_runs() == ["local-bf16", "local-bf16"]
    assert len(drawings) == 1  # one drawing for the burst of four points

    from_events = shown(panel, tmp_path)
    fresh = ResultsPanel()
    qtbot.addWidget(fresh)
    fresh.set_folder(history)
    fresh.show_runs(["local-bf16"])
    fresh._select(fresh.shown)
    assert shown(fresh, tmp_path) == from_events
    panel.refresh()  # the same panel re-reading the folder through its cache
    assert shown(panel, tmp_path) == from_events
    # The per-request data of the new points were read once each, when first asked for (the
    # distributions and other tools' figures of the shown run, the comparison with new-run).
    assert panel.file_cache.parsed == parsed + 3
    # Every run shown: the new ones as a fresh read shows them.
    for view in (panel, fresh):
        view.show_runs([r.name for r in view.runs])
        view._select(view.shown)
    assert shown(panel, tmp_path) == shown(fresh, tmp_path)


def test_a_point_outside_the_folder_shown_is_left_to_a_refresh(qtbot, tmp_path: Path, sim) -> None:
    shown_root = tmp_path / "shown"
    shown_root.mkdir()
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(shown_root)
    [event] = sweep_events(sim.base_url, tmp_path / "elsewhere", "x", "1")
    assert not panel.add_point(event.path, event.summary)
    assert panel.runs == []
    # Too deep for a listing of the root, or not a result file's name: not listed either.
    deep = shown_root / "a" / "b" / "c"
    deep.mkdir(parents=True)
    copy = deep / Path(str(event.path)).name
    copy.write_bytes(Path(str(event.path)).read_bytes())
    assert not panel.add_point(copy, event.summary)
    assert panel.runs == []


def test_the_first_run_in_a_folder_that_did_not_exist_is_shown(qtbot, tmp_path: Path, sim) -> None:
    root = tmp_path / "not-yet"
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(root)
    assert panel.errors  # "... is not a folder."
    [event] = sweep_events(sim.base_url, root / "first", "x", "1")
    assert panel.add_point(event.path, event.summary)
    assert [(r.name, len(r.points)) for r in panel.runs] == [("first", 1)]
    assert panel.errors == []


def test_the_window_reads_a_folder_on_a_thread_and_takes_points_finished_meanwhile(
    qtbot, history: Path, sim, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.folder.setText(str(history))
    # The read held once the folder is listed, until a point has finished meanwhile (its file
    # not in the listing); which threads parse files noted.
    listed, release = threading.Event(), threading.Event()
    readers: set[int] = set()
    scan, read = FolderListing.scan.__func__, PointFileCache._read  # type: ignore[attr-defined]

    def held_scan(cls, root):
        listing = scan(cls, root)
        listed.set()
        assert release.wait(60)
        return listing

    def noted_read(self, path):
        readers.add(threading.get_ident())
        return read(self, path)

    monkeypatch.setattr(FolderListing, "scan", classmethod(held_scan))
    monkeypatch.setattr(PointFileCache, "_read", noted_read)
    was_enabled = gc.isenabled()
    panel.reload_button.click()  # F5, Enter in the folder field, Browse…: the same way
    assert panel.scanning and "Reading" in panel.message.text()
    assert listed.wait(30)
    [event] = sweep_events(sim.base_url, history / "new-run", "fresh", "1")
    assert panel.add_point(event.path, event.summary)
    release.set()
    qtbot.waitUntil(lambda: not panel.scanning, timeout=30_000)
    assert threading.get_ident() not in readers and readers
    assert gc.isenabled() is was_enabled  # paused while the files were parsed, then as it was
    assert [(r.name, len(r.points)) for r in panel.runs] == [
        ("local-bf16", 1),
        ("new-run", 1),
        ("vllm-old", 1),
    ]
    fresh = ResultsPanel()
    qtbot.addWidget(fresh)
    fresh.set_folder(history)  # a programmatic call reads at once
    assert [(r.name, [p.path for p in r.points]) for r in fresh.runs] == [
        (r.name, [p.path for p in r.points]) for r in panel.runs
    ]
    assert panel.errors == fresh.errors and panel.message.text() == fresh.message.text()


def charts(panel: ResultsPanel, qtbot) -> tuple[dict[str, Any], list[float]]:
    """What the shown run's charts draw once their labels are placed: each chart's data
    items (data, stacking, visibility) and every label (text, colour, anchor, shown or left
    out, stacking), the Pareto chart's in the order drawn; and, apart, each label's centre in
    its chart's data units with the chart's span (x, y, x span, y span): see same_places."""
    curves = panel.curves
    declutters = [*curves.declutter.values(), curves.pareto.declutter]
    qtbot.waitUntil(lambda: not panel.drawing_due and not any(d.pending for d in declutters))
    places: list[tuple[float, float, float, float]] = []

    def label(t, plot) -> tuple[Any, ...]:
        view = plot.getPlotItem().getViewBox()
        centre = view.mapSceneToView(t.sceneBoundingRect().center())
        (x0, x1), (y0, y1) = view.viewRange()
        places.append((centre.x(), centre.y(), x1 - x0, y1 - y0))
        return (t.toPlainText(), t.color.name(), tuple(t.anchor), t.isVisible(), t.zValue())

    out: dict[str, Any] = {}
    for key, plot in curves.charts().items():
        out[key] = [
            (item.name(), item.zValue(), item.isVisible(), *(list(a) for a in item.getData()))
            for item in plot.listDataItems()
        ]
        declutter = curves.pareto.declutter if key == "pareto" else curves.declutter[plot]
        out[key + " marks"] = [label(t, plot) for t in declutter._labels] + [declutter.hidden]
    out["pareto labels"] = [label(t, curves.pareto) for t in curves.pareto.texts]
    # What sits over what: the chart's items in Qt's stacking order.
    roles = {id(v): k for k, v in curves.pareto.data_items.items()}
    stacked = curves.pareto.getPlotItem().getViewBox().childGroup.childItems()
    out["pareto stacking"] = [
        roles.get(id(i)) or (i.toPlainText() if hasattr(i, "toPlainText") else type(i).__name__)
        for i in stacked
    ]
    return out, places


def same_places(
    places: list[tuple[float, float, float, float]],
    fresh: list[tuple[float, float, float, float]],
) -> bool:
    """Whether each label sits where the fresh panel's does, within 2% of the chart's span.
    Compared in data units, not as a share of the plot area: pyqtgraph's axes keep the widest
    tick text they ever showed (until 10 px narrower), and whether one panel showed a wider
    one on its way depends on when it was painted. A plot area a few pixels narrower gives
    the Pareto chart, whose range makes room for its labels, a range that starts elsewhere:
    each label's share of it differed by up to 0.03 with every label in the same place."""
    return len(places) == len(fresh) and all(
        abs(x - fx) <= 0.02 * fw and abs(y - fy) <= 0.02 * fh
        for (x, y, _w, _h), (fx, fy, fw, fh) in zip(places, fresh, strict=True)
    )


def read_afresh(qtbot, root: Path, run: str) -> ResultsPanel:
    """A new panel, on screen as the window shows it, that read `root` and shows `run`."""
    fresh = ResultsPanel()
    qtbot.addWidget(fresh)
    fresh.resize(1400, 900)
    fresh.show()
    qtbot.waitExposed(fresh)
    fresh.set_folder(root)
    fresh.show_runs([run])
    fresh._select(fresh.shown)
    return fresh


def cells(panel: ResultsPanel) -> list[list[str]]:
    t = panel.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


class PaintWatch(QObject):
    """Notes, at each paint of a chart, its labels seen overlapping (a placement in slices
    paints between two slices) and how many paints there were."""

    def __init__(self, panel: ResultsPanel) -> None:
        super().__init__()
        curves = panel.curves
        self.labels = {
            plot.viewport(): (
                curves.pareto.declutter if plot is curves.pareto else curves.declutter[plot]
            )
            for plot in curves.charts().values()
        }
        self.paints = 0
        self.overlaps: list[tuple[str, str]] = []
        for viewport in self.labels:
            viewport.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and watched in self.labels:
            self.paints += 1
            self.overlaps += overlapping(self.labels[watched]._labels)
        return False


def test_points_joining_the_shown_run_draw_its_charts_as_a_fresh_read_does(
    qtbot, history: Path, sim
) -> None:
    """The charts are updated in place at each point (label items kept, table rows kept):
    after several points, one before the run's first load, what they draw and where their
    labels sit equal a panel that read the folder afresh."""
    panel = read_afresh(qtbot, history, "local-bf16")
    charts(panel, qtbot)
    events = sweep_events(sim.base_url, history / "local-bf16", "bf16", "1,3,4")
    assert len(events) == 3
    # Last load first, as a capacity search may visit them: each joins between or before the
    # rows and labels already drawn.
    # The table after each: a fresh read's rows (the folder holds all three files already)
    # of the loads joined so far, in its order.
    every = cells(read_afresh(qtbot, history, "local-bf16"))
    joined = {"2"}
    watch = PaintWatch(panel)
    for event in reversed(events):
        assert panel.add_point(event.path, event.summary)
        charts(panel, qtbot)  # each drawn and placed in turn, as during a sweep
        assert isinstance(event.summary, PointDoc)
        joined.add(str(event.summary.vllm.max_concurrency))
        assert cells(panel) == [row for row in every if row[2] in joined]
    assert len(panel.curves.pareto.texts) == 4 and panel.table.rowCount() == 4
    fresh = read_afresh(qtbot, history, "local-bf16")
    drawn, places = charts(panel, qtbot)
    fresh_drawn, fresh_places = charts(fresh, qtbot)
    assert drawn == fresh_drawn
    assert same_places(places, fresh_places), (places, fresh_places)
    assert shown(panel, tmp_path := history.parent) == shown(fresh, tmp_path)
    # Each chart was painted on a turn of its own; once drawn, every one paints again. No
    # paint between two turns showed labels over each other.
    assert all(c.updatesEnabled() for c in panel.curves.charts().values())
    assert watch.paints > 0 and watch.overlaps == []


def test_a_point_joining_mid_drawing_supersedes_it_and_a_hidden_tab_loses_nothing(
    qtbot, history: Path, sim
) -> None:
    """A point that joins while the last point's drawing is under way (its stages waiting in
    the window's drawing queue) takes its place: the old stages are dropped, one drawing of
    both points follows. The tab hidden meanwhile (the Sweep tab picked) still ends it: every
    chart paints again, and they draw what a fresh read of the folder draws."""
    panel = read_afresh(qtbot, history, "local-bf16")
    charts(panel, qtbot)
    first, second = sweep_events(sim.base_url, history / "local-bf16", "bf16", "1,3")
    drawings: list[int] = []
    panel.runsShown.connect(lambda _names: drawings.append(1))
    assert panel.add_point(first.path, first.summary)
    qtbot.waitUntil(lambda: bool(panel._waiting))  # drawn, its stages and paints to come
    assert panel.drawing_due and drawing_queue().waiting(panel)
    assert panel.add_point(second.path, second.summary)
    # The first drawing's stages dropped: the panel's one piece waiting is the new drawing.
    assert [piece for owner, piece in drawing_queue()._pieces if owner is panel] == [
        panel._draw_joined
    ]
    assert len(drawings) == 1
    panel.hide()
    qtbot.waitUntil(lambda: not panel.drawing_due)
    assert len(drawings) == 2
    assert all(c.updatesEnabled() for c in panel.curves.charts().values())
    panel.show()
    qtbot.waitExposed(panel)
    fresh = read_afresh(qtbot, history, "local-bf16")
    # The same items, data, label texts and which labels are shown. (Where the labels sit is
    # not compared: placed out of sight, they moved up to 4 % of the plot area from a fresh
    # read's, a difference the staged drawing had before this queue too, left for later.)
    assert charts(panel, qtbot)[0] == charts(fresh, qtbot)[0]


def test_points_joined_out_of_sight_are_drawn_in_pieces_when_the_tab_comes_back(
    qtbot, history: Path, sim
) -> None:
    """Points that joined the shown run while the tab was out of sight are drawn when it is
    shown again as points joining on screen are: not in the show (one hold of the window as
    long as the whole drawing), but in the window's drawing queue, one piece a turn, the
    charts showing their last drawing until their turn. The end equals a fresh read's, and
    no paint meanwhile showed labels over each other."""
    panel = read_afresh(qtbot, history, "local-bf16")
    charts(panel, qtbot)
    panel.hide()
    events = sweep_events(sim.base_url, history / "local-bf16", "bf16", "1,3")
    for event in events:
        assert panel.add_point(event.path, event.summary)
    assert not panel.drawing_due  # out of sight: nothing drawn
    before = cells(panel)
    watch = PaintWatch(panel)
    panel.show()
    # The show only posted the drawing: the table still shows the run without the new points.
    assert cells(panel) == before
    assert [piece for owner, piece in drawing_queue()._pieces if owner is panel] == [
        panel._draw_joined
    ]
    drawn, places = charts(panel, qtbot)
    fresh = read_afresh(qtbot, history, "local-bf16")
    fresh_drawn, fresh_places = charts(fresh, qtbot)
    assert cells(panel) == cells(fresh) and len(cells(panel)) == len(before) + 2
    assert drawn == fresh_drawn
    assert same_places(places, fresh_places), (places, fresh_places)
    assert all(c.updatesEnabled() for c in panel.curves.charts().values())
    assert watch.paints > 0 and watch.overlaps == []


def test_a_folder_read_holds_the_windows_collector() -> None:
    """While a folder is parsed, the window's collector (its timer on the GUI thread) does
    not collect: the youngest generation then holds every object parsed so far."""
    from app.ui.app_setup import GuiThreadCollector
    from app.ui.panels.results.panel import _collector_paused
    from tests.ui.test_app_setup import collected_while

    during, after = collected_while(GuiThreadCollector(), _collector_paused(lambda: 0))
    assert during == [] and after != []


def test_a_folder_read_leaves_the_windows_collector_off() -> None:
    # The window turns automatic collection off for good (app_setup.GuiThreadCollector: only
    # the GUI thread collects); a folder read that turned it back on let any thread collect.
    from app.ui.panels.results.panel import _collector_paused

    was_enabled = gc.isenabled()  # the session's: off once a window test installed the collector
    try:
        gc.disable()
        with _collector_paused(lambda: 0):
            assert not gc.isenabled()
        assert not gc.isenabled()
        gc.enable()
        with _collector_paused(lambda: 0):
            assert not gc.isenabled()
        assert gc.isenabled()
    finally:
        (gc.enable if was_enabled else gc.disable)()


class _Cycle:
    """Garbage that only the cyclic collector frees (it refers to itself)."""

    def __init__(self) -> None:
        self.me = self


def vllm_run(root: Path) -> None:
    """Under `root`, a vLLM run of three points (vllm-old)."""
    run = root / "vllm-old"
    run.mkdir(parents=True)
    for rate in (1, 2, 4):
        name = f"openai-chat-{rate}.0qps-concurrency16-qwen2.5-7b.json"
        (run / name).write_text(json.dumps({**VLLM_RATE4, "request_rate": rate}))


def test_garbage_made_before_a_large_folder_read_is_freed_after_it(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of FREEZE_AT files or more freezes what is alive at its end (gc.freeze): cyclic
    garbage made before the read must not be alive then, or it is never freed."""
    from app.ui.panels.results import panel as panel_module

    vllm_run(tmp_path / "results")
    monkeypatch.setattr(panel_module, "FREEZE_AT", 2)
    # The read's end (after its freeze) noted: this thread waits for it without running the
    # event loop (where the window's collector would collect).
    read_done = threading.Event()
    paused = panel_module._collector_paused

    @contextlib.contextmanager
    def noted(parsed, **how):
        with paused(parsed, **how):
            yield
        read_done.set()

    monkeypatch.setattr(panel_module, "_collector_paused", noted)
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.folder.setText(str(tmp_path / "results"))
    was_enabled = gc.isenabled()
    gc.disable()  # no collection but the ones the read makes (the test's own thread waits)
    try:
        garbage = _Cycle()
        alive = weakref.ref(garbage)
        del garbage
        panel.reload_button.click()
        assert read_done.wait(60)  # the read froze what was alive at its end
        qtbot.waitUntil(lambda: not panel.scanning, timeout=30_000)
        assert [(r.name, len(r.points)) for r in panel.runs] == [("vllm-old", 3)]
        gc.collect()
        assert alive() is None, "garbage made before the read was frozen for good"
    finally:
        gc.unfreeze()  # what this test froze goes back to the collector
        (gc.enable if was_enabled else gc.disable)()


def test_a_reload_neither_collects_nor_freezes(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collection before a read (on the GUI thread, a full pass over every object not
    frozen: 130-210 ms with 2,000 files after a sweep's end thawed the heap) is for the freeze
    at the end of a read that parses FREEZE_AT files or more. A Reload of the folder the panel
    holds parses only what changed: it skips both. A first read still does both."""
    from app.ui.app_setup import held_collections
    from app.ui.panels.results import panel as panel_module

    vllm_run(tmp_path / "results")
    monkeypatch.setattr(panel_module, "FREEZE_AT", 2)
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.folder.setText(str(tmp_path / "results"))
    full: list[str] = []  # full passes started on this (the GUI) thread

    def watch(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(threading.current_thread().name)

    gc.callbacks.append(watch)
    try:
        # The window's collector held: any full pass seen is the read's own.
        with held_collections():
            for reload in (False, True):
                full.clear()
                gc.unfreeze()  # as the Sweep tab does at a sweep's end
                panel.reload_button.click()
                qtbot.waitUntil(lambda: not panel.scanning, timeout=30_000)
                assert [(r.name, len(r.points)) for r in panel.runs] == [("vllm-old", 3)]
                assert full == ([] if reload else [threading.main_thread().name])
                assert (gc.get_freeze_count() > 0) is not reload
    finally:
        gc.callbacks.remove(watch)
        gc.unfreeze()  # what this test froze goes back to the collector
