"""Charts as image files: a plot as PNG or SVG, and the sweep curves of runs redrawn at a fixed
size for export."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice, QRect, Qt
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication

from app.ui.exports.files import write_export
from app.ui.plots.chart import cache_axes
from app.ui.plots.sweep_curves import Series, SweepCurves


def export_plot(plot: Any, path: str | os.PathLike[str]) -> Path:
    """Save a laid-out PlotWidget as PNG (what is on screen) or SVG (vector), by extension."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(
            QCoreApplication.translate(
                "ResultsPanel", "Choose a .png or .svg file name (got {0})."
            ).format(target.name)
        )
    # Drawn into memory, then written by the project's safe writer (a symlink written
    # through, a FIFO or device refused), never by Qt straight onto whatever the name is.
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if suffix == ".png":
        if not plot.grab().save(buffer, "PNG"):
            raise OSError(f"could not draw {target.name}")
    else:
        # QSvgGenerator rather than pyqtgraph's SVGExporter, whose path rewriting fails on the
        # path data Qt 6.11 writes (ValueError in SVGExporter.correctCoordinates).
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(plot.size())
        # At the generator's default 72 dpi against the screen's 96, Qt scaled some items
        # (axes, grid) and not others (curves): the curves sat offset and past the plot box.
        generator.setResolution(plot.logicalDpiX())
        generator.setViewBox(QRect(0, 0, plot.width(), plot.height()))
        # Markers are stamped from a pixmap atlas on screen; an SVG got the whole atlas squeezed
        # into each marker's box. In export mode pyqtgraph draws each marker as a path.
        items = [i for i in plot.scene().items() if hasattr(i, "setExportMode")]
        painter = QPainter(generator)
        try:
            for item in items:
                item.setExportMode(True, {"painter": painter, "antialias": True})
            plot.render(painter)
        finally:
            for item in items:
                item.setExportMode(False)
            painter.end()
    buffer.close()
    write_export(target, bytes(data.data()))
    return target


def curve_paths(path: str | os.PathLike[str], keys: Sequence[str]) -> list[Path]:
    """The files an export to `path` writes: PATHSTEM_KEY with its extension, one per chart."""
    base = Path(path)
    return [base.with_name(f"{base.stem}_{key}{base.suffix}") for key in keys]


def export_curves(
    series: Sequence[Series],
    path: str | os.PathLike[str],
    caption: str = "",
    size: tuple[int, int] = (900, 600),
) -> list[Path]:
    """Each sweep chart as PATHSTEM_throughput/_tpot/_ttft/_pareto(.png|.svg), drawn at `size`, with
    `caption` (run, model, GPU, date) under each title; returns the files written.

    The charts are redrawn in a hidden window of a fixed size, so an export looks the same
    whatever the size of the panel on screen (or whether it was ever shown).
    """
    base = Path(path)
    if base.suffix.lower() not in (".png", ".svg"):
        raise ValueError(
            QCoreApplication.translate(
                "ResultsPanel", "Choose a .png or .svg file name (got {0})."
            ).format(base.name)
        )
    curves = SweepCurves()
    for plot in curves.charts().values():
        cache_axes(plot, cached=False)  # an SVG's axes as lines and text, not a pixmap
    curves.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    try:
        layout = curves.layout()
        assert layout is not None  # SweepCurves lays its charts out when made
        layout.setSpacing(0)
        curves.resize(size[0] * 2, size[1] * 2)
        curves.show()
        curves.caption = caption
        curves.runs_in_titles = True  # each file stands alone: it names its runs
        curves.set_series(series)
        QApplication.processEvents()
        charts = curves.charts()
        return [
            export_plot(plot, target)
            for plot, target in zip(charts.values(), curve_paths(base, list(charts)), strict=True)
        ]
    finally:
        curves.close()
        curves.deleteLater()
