"""The default layout at 1400x900 and 1280x800: nothing squeezed, clipped or scrolled sideways."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QBoxLayout, QScrollArea

from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup import settings
from app.ui.app_setup_sim import SimulatorService
from app.ui.main_window import AppContext, MainWindow, default_size, dock_widths


def make_window(qtbot, width: int, height: int, store: QSettings | None = None) -> MainWindow:
    ctx = AppContext(ProfileStore(), KeyStore(), store or settings(), SimulatorService())
    win = MainWindow(ctx)
    qtbot.addWidget(win)
    win.resize(width, height)
    win.show()
    qtbot.waitExposed(win)
    qtbot.wait(50)  # the default dock sizes are applied on the first event-loop turn
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
    assert default_size((1280, 770)) == (1216, 708)  # 95 % x 92 % of a small screen


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
    qtbot.wait(20)
    plots = (win.metrics.kv_plot, win.metrics.queue_plot, win.metrics.preempt_plot)
    assert all(p.height() >= 110 for p in plots)
    assert sum(p.height() for p in plots) > 530  # enough that the axis labels stay apart
    win.roofline_dock.raise_()

    # The Sweep tab fits its page: no sideways scrolling, settings in two columns.
    win.show_panel(win.sweep)
    qtbot.wait(20)
    page = win.tabs.currentWidget()
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
    qtbot.wait(20)
    assert not sweep.settings_box.isVisible()
    assert sweep.tabs.height() > before  # the charts take the room
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
