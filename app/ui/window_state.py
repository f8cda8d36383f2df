"""What the window remembers between sessions: geometry, docks, tab, endpoint, probe settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QScrollArea, QWidget

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

# Saved with the dock state; bump it when the default dock arrangement changes.
LAYOUT_VERSION = 2


# What a window manager adds around the client area: borders and a title bar.
FRAME = (8, 32)


def default_size(available: tuple[int, int]) -> tuple[int, int]:
    """First-run window size: 1400x900, or the whole of a smaller screen (a 1280x720 laptop
    needs every pixel: at 95 % the Roofline dock was cut at the right)."""
    width, height = available
    return min(1400, width - FRAME[0]), min(900, height - FRAME[1])


def fits(size: tuple[int, int], available: tuple[int, int]) -> bool:
    return size[0] + FRAME[0] <= available[0] and size[1] + FRAME[1] <= available[1]


def dock_widths(window_width: int) -> tuple[int, int]:
    """Endpoints and Roofline dock widths; the tabs in the middle get the rest."""
    left = min(340, max(280, round(window_width * 0.21)))
    right = min(440, max(340, round(window_width * 0.27)))
    return left, right


def inner(widget: QWidget | None) -> QWidget:
    """The panel inside a tab (tabs wrap tall panels in a scroll area); `widget` is a tab's
    (QTabWidget.widget(i) for an i below count(), so never None)."""
    assert widget is not None
    content = widget.widget() if isinstance(widget, QScrollArea) else widget
    return content if content is not None else widget


def restore_state(window: MainWindow) -> None:
    s = window.ctx.settings
    geometry = s.value("window/geometry")
    available = window.screen().availableGeometry().size().toTuple()
    # A geometry saved on a larger screen (or one Qt cannot restore) gives way to one that fits.
    restored = geometry is not None and window.restoreGeometry(geometry)
    if not restored or not fits(window.size().toTuple(), available):
        window.resize(*default_size(available))
    state = s.value("window/state")
    # A state saved by an older layout would bring its dock arrangement back: ignore it.
    if state is None or not window.restoreState(state, LAYOUT_VERSION):
        # Dock sizes only stick once the window is laid out, so after the first show.
        QTimer.singleShot(0, lambda: default_dock_sizes(window))
    tab = s.value("window/tab")
    if isinstance(tab, str):
        for index in range(window.tabs.count()):
            if inner(window.tabs.widget(index)).objectName() == tab:
                window.tabs.setCurrentIndex(index)
    profile = s.value("endpoints/selected")
    if isinstance(profile, str) and window.ctx.store.get(profile) is not None:
        window.editor.select(profile)
    else:
        window.editor.select(window.ctx.store.simulator().name)
    max_tokens = s.value("probe/max_tokens")
    if max_tokens is not None:
        window.probe.max_tokens.setValue(int(max_tokens))
    prompt = s.value("probe/prompt")
    if isinstance(prompt, str) and prompt:
        window.probe.prompt.setPlainText(prompt)


def default_dock_sizes(window: MainWindow) -> None:
    left, right = dock_widths(window.width())
    window.resizeDocks([window.endpoints_dock], [left], Qt.Orientation.Horizontal)
    window.resizeDocks([window.roofline_dock], [right], Qt.Orientation.Horizontal)


def save_state(window: MainWindow) -> None:
    s = window.ctx.settings
    s.setValue("window/geometry", window.saveGeometry())
    s.setValue("window/state", window.saveState(LAYOUT_VERSION))
    s.setValue("window/tab", window.current_panel().objectName())
    s.setValue("endpoints/selected", window.editor.current_name())
    s.setValue("probe/max_tokens", window.probe.max_tokens.value())
    # The default prompt is not saved: it follows the UI language.
    prompt = "" if window.probe.prompt_is_default() else window.probe.prompt.toPlainText()
    s.setValue("probe/prompt", prompt)
    s.sync()
