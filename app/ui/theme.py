"""Light or dark, following the system colour scheme; plots repainted to match."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget


def is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme()
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    # Unknown (no platform theme): judge by the palette the platform gave us.
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def plot_colors() -> tuple[QColor, QColor]:
    """(background, foreground) for pyqtgraph plots, taken from the current palette."""
    palette = QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)


def accent() -> QColor:
    return QColor("#4fa3ff") if is_dark() else QColor("#1565c0")


def apply_plot_theme(root: QWidget | None = None) -> None:
    """Set pyqtgraph's defaults for new plots and recolour every existing plot under root."""
    background, foreground = plot_colors()
    pg.setConfigOptions(background=background, foreground=foreground, antialias=True)
    if root is None:
        return
    plots = root.findChildren(pg.PlotWidget)
    if isinstance(root, pg.PlotWidget):
        plots.append(root)
    for plot in plots:
        plot.setBackground(background)
        for axis_name in ("left", "bottom", "right", "top"):
            axis = plot.getPlotItem().getAxis(axis_name)
            axis.setPen(foreground)
            axis.setTextPen(foreground)


def follow_system(app: QApplication, on_change: object = None) -> None:
    """Apply the theme now and again whenever the system switches light/dark."""
    app.setStyle("Fusion")  # the one style that honours both palettes on every platform
    apply_plot_theme()

    def changed(*_: object) -> None:
        app.setPalette(app.style().standardPalette())
        for window in app.topLevelWidgets():
            apply_plot_theme(window)
        if callable(on_change):
            on_change()

    QGuiApplication.styleHints().colorSchemeChanged.connect(changed)
