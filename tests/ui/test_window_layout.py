"""The default layout at 1400x900 and 1280x800: nothing squeezed, clipped or scrolled sideways."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtWidgets import QBoxLayout, QScrollArea

from app.bench.schema.point_doc import read_point_doc
from app.bench.sweep.contract import PointFinished
from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup import settings
from app.ui.app_setup_sim import SimulatorService
from app.ui.main_window import AppContext, MainWindow
from app.ui.window_state import default_size, dock_widths


def make_window(qtbot, width: int, height: int, store: QSettings | None = None) -> MainWindow:
    ctx = AppContext(ProfileStore(), KeyStore(), store or settings(), SimulatorService())
    win = MainWindow(ctx)
    qtbot.addWidget(win)
    win.resize(width, height)
    win.show()
    qtbot.waitExposed(win)
    # The default dock sizes are applied on the first event-loop turn after show().
    left, _right = dock_widths(win.width())
    qtbot.waitUntil(lambda: win.endpoints_dock.width() == left)
    return win


def scroll_of(win: MainWindow, panel) -> QScrollArea | None:
    for index in range(win.tabs.count()):
        page = win.tabs.widget(index)
        if isinstance(page, QScrollArea) and page.widget() is panel:
            return page
    return None


def test_dock_widths_and_first_run_size_by_hand() -> None:
    assert dock_widths(1400) == (294, 378)  # 21 % and 27 % of 1400
    assert dock_widths(1280) == (280, 346)  # 268.8 is raised to the 280 minimum
    assert dock_widths(2560) == (340, 440)  # capped
    assert default_size((1920, 1050)) == (1400, 900)
    assert default_size((1280, 770)) == (1272, 738)  # a small screen, less the frame
    assert default_size((1280, 688)) == (1272, 656)  # 1280x720 less a 32-pixel panel


@pytest.mark.parametrize(("width", "height"), [(1400, 900), (1280, 800)])
def test_default_layout_reads_well(qtbot, memory_keyring, width: int, height: int) -> None:
    win = make_window(qtbot, width, height)
    if win.sweep is None or win.roofline_dock is None or win.metrics_dock is None:
        pytest.skip("a panel is not in this tree")
    # Roofline and Server metrics share the right-hand column as tabs, each at full height.
    assert win.metrics_dock in win.tabifiedDockWidgets(win.roofline_dock)
    assert not win.roofline_dock.visibleRegion().isEmpty()
    assert win.roofline_dock.height() > height - 120
    win.metrics_dock.raise_()
    plots = (win.metrics.kv_plot, win.metrics.queue_plot, win.metrics.preempt_plot)

    def plots_have_room() -> None:  # once the raised dock is laid out
        assert all(p.isVisible() and p.height() >= 110 for p in plots)
        assert sum(p.height() for p in plots) > 530  # enough that the axis labels stay apart

    qtbot.waitUntil(plots_have_room)
    win.roofline_dock.raise_()

    # The Sweep tab fits its page: no sideways scrolling, settings in two columns.
    win.show_panel(win.sweep)

    def sweep_fits_its_page() -> None:  # once the tab and its scroll area are laid out
        page = win.tabs.currentWidget()
        assert win.sweep.isVisible()
        assert win.sweep.width() <= page.width()
        assert win.sweep.height() <= page.height()  # no vertical scroll either at these sizes
        area = scroll_of(win, win.sweep)
        if area is not None:
            assert not area.verticalScrollBar().isVisible()
            assert not area.horizontalScrollBar().isVisible()
        columns = win.sweep.settings_box
        assert columns._box.direction() == QBoxLayout.Direction.LeftToRight
        assert win.sweep.live.height() >= 300
        assert win.sweep.table.isVisible() and win.sweep.table.height() >= 100

    qtbot.waitUntil(sweep_fits_its_page)


def test_narrow_sweep_stacks_its_settings_and_the_toggle_hides_them(qtbot, memory_keyring) -> None:
    win = make_window(qtbot, 1400, 900)
    if win.sweep is None:
        pytest.skip("the sweep panel is not in this tree")
    sweep = win.sweep
    assert sweep.minimumSizeHint().width() < 520  # was 1115: the form no longer sits beside
    win.show_panel(sweep)
    sweep.settings_box.resize(400, sweep.settings_box.height())
    assert sweep.settings_box._box.direction() == QBoxLayout.Direction.TopToBottom
    sweep.settings_box.resize(700, sweep.settings_box.height())
    assert sweep.settings_box._box.direction() == QBoxLayout.Direction.LeftToRight
    before = sweep.tabs.height()
    sweep.settings_toggle.click()
    assert not sweep.settings_box.isVisible()
    qtbot.waitUntil(lambda: sweep.tabs.height() > before)  # the charts take the room
    sweep.settings_toggle.click()
    assert sweep.settings_box.isVisible()


def test_a_state_saved_by_the_old_layout_is_ignored(qtbot, memory_keyring) -> None:
    store = settings()
    old = make_window(qtbot, 1400, 900, store)
    # What the previous version stored: saveState() without a version number, docks stacked.
    old.splitDockWidget(old.roofline_dock, old.metrics_dock, Qt.Orientation.Vertical)
    state = old.saveState()
    old.close()  # saves its own (versioned) state, replaced below by the old one
    store.setValue("window/state", state)
    win = make_window(qtbot, 1400, 900, store)
    assert win.metrics_dock in win.tabifiedDockWidgets(win.roofline_dock)


def _fits(table) -> bool:
    """The TPOT P50 and P99 columns end inside the table's viewport (no sideways scroll)."""
    from app.ui.exports.tables import TABLE_COLUMNS

    keys = [key for key, _h, _d in TABLE_COLUMNS]
    offset = table.columnCount() - len(keys)  # Results has a Run column first
    header = table.horizontalHeader()
    col = offset + keys.index("p99_tpot_ms")
    right = header.sectionViewportPosition(col) + header.sectionSize(col)
    return 0 < right <= table.viewport().width()


def test_tpot_columns_are_in_view_at_1400x900(qtbot, memory_keyring, tmp_path) -> None:
    from app.bench.results.write import write_point_json

    doc = {"completed": 200, "failed": 0, "duration": 61.25, "request_rate": "inf",
           "max_concurrency": 128, "median_tpot_ms": 165.43, "p99_tpot_ms": 190.01,
           "median_ttft_ms": 1234.5, "p99_ttft_ms": 5678.9, "output_throughput": 1834.2,
           "request_throughput": 3.27, "p99_itl_ms": 312.25, "median_e2el_ms": 34567}  # fmt: skip
    root = tmp_path / "runs" / "expB-qwen2.5-7b-bf16-rtx3090-20261201-083000"
    write_point_json(root / "expB_rateinf_conc128.json", doc)
    win = make_window(qtbot, 1400, 900)
    win.show_panel(win.results)
    win.results.set_folder(tmp_path / "runs")
    win.results.show_runs([r.name for r in win.results.runs])
    assert win.results.table.rowCount() == 1
    qtbot.waitUntil(lambda: _fits(win.results.table))  # once the table has laid itself out
    win.show_panel(win.sweep)
    win.sweep._on_point_finished(
        PointFinished(0, str(root / "x.json"), read_point_doc(doc, strict=True))
    )
    qtbot.waitUntil(lambda: _fits(win.sweep.table))


def test_at_1280x720_a_run_gives_the_charts_the_room(qtbot, memory_keyring, tmp_path) -> None:
    win = make_window(qtbot, 1280, 720)
    sweep = win.sweep
    win.show_panel(sweep)
    assert sweep.settings_toggle.text() == "Hide sweep settings"
    win.editor.select("Local vLLM")  # an endpoint with a URL; the stand-in worker calls none
    sweep.form.results_root.setText(str(tmp_path))
    sweep.form.concurrencies.setText("2")
    assert sweep.run(argv=[sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert not sweep.settings_box.isVisible()  # folded so the live charts are in view
        assert sweep.settings_toggle.text() == "Show sweep settings"

        def charts_in_view() -> None:  # once the layout has given the charts the room
            for plot in (sweep.live.tpot, sweep.live.tok_s, sweep.live.in_flight):
                assert plot.height() >= 120  # was ~60 px: tick labels overprinted
                bottom = plot.mapTo(win, QPoint(0, plot.height())).y()
                assert bottom <= win.centralWidget().geometry().bottom()  # above the fold

        qtbot.waitUntil(charts_in_view)
        # The Rolling TPOT chart names P50/P99 in its title: no legend box over the curves.
        legend = sweep.live.tpot.getPlotItem().legend
        assert legend is None or not legend.items
    finally:
        sweep.cancel()
        qtbot.waitUntil(lambda: not sweep.is_running(), timeout=30_000)


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1400, 900)])
def test_the_roofline_dock_fits_its_column(qtbot, memory_keyring, width, height) -> None:
    """At 1280x720 the dock's chart ran past the window's right edge (its legend box wider
    than the chart, the KV-full label cut) and the tabs below it were elided."""
    win = make_window(qtbot, width, height)
    panel = win.roofline
    right = win.roofline_dock.mapTo(win, QPoint(win.roofline_dock.width(), 0)).x()
    assert right <= win.width()

    def inside() -> None:
        for widget in (panel.picker, panel.tabs, panel.batch_plot, panel.clear_button):
            edge = widget.mapTo(win, QPoint(widget.width(), 0)).x()
            assert widget.isVisible() and edge <= right, widget
        # Nothing drawn inside the chart runs past its plot area's right edge.
        plot = panel.batch_plot
        view = plot.getPlotItem().getViewBox().sceneBoundingRect()
        label = plot.kv_line.label
        if label.isVisible():
            assert label.sceneBoundingRect().right() <= view.right() + 1
        title = plot.getPlotItem().titleLabel.item.sceneBoundingRect()
        assert title.right() <= plot.sceneRect().right() + 1

    qtbot.waitUntil(inside)
    # The dock tabs below the column read in full (they were "Ro…").
    from PySide6.QtWidgets import QTabBar

    bars = [b for b in win.findChildren(QTabBar) if b.count() == 2 and b.isVisible()]
    docks = [b for b in bars if {b.tabText(i) for i in range(2)} == {"Roofline", "Server metrics"}]
    assert docks
    for bar in docks:
        for i in range(bar.count()):
            need = bar.fontMetrics().horizontalAdvance(bar.tabText(i))
            assert bar.tabRect(i).width() >= need, bar.tabText(i)
