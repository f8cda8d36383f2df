"""File > Export report…: the shareable HTML report (app.report) of the runs open in the Results
tab, else of the last sweep, written in the window's current language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QLocale, QSettings
from PySide6.QtWidgets import QFileDialog, QWidget

from app.bench.results.point_result import PointResult
from app.bench.results.read import ResultFileError, load_results
from app.report import find_searches, write_report

SETTINGS_KEY = "export/report_dir"  # the folder the last report went to


def ui_language() -> str:
    """The report language that matches the window: Translations.install sets the default
    locale whenever the UI language is switched."""
    return "zh_CN" if QLocale().language() == QLocale.Language.Chinese else "en"


def html_path(chosen: str | Path) -> Path:
    """The chosen name, with .html added when the user typed none (the dialog's filter says
    HTML; a name without it would not open in a browser on a double click)."""
    path = Path(chosen)
    return path if path.suffix.lower() in (".html", ".htm") else path.with_name(path.name + ".html")


def _sweep_points(sweep: Any) -> tuple[list[PointResult], Path | None]:
    run_dir = getattr(sweep, "run_dir", None)
    if not run_dir or not Path(run_dir).is_dir():
        return [], None
    try:
        return load_results([run_dir]), Path(run_dir)
    except ResultFileError:
        return [], Path(run_dir)


def report_source(
    results: Any, sweep: Any, prefer_sweep: bool = False
) -> tuple[list[PointResult], Path | None]:
    """The points to report and the folder they came from: the runs shown in the Results tab,
    else every result file of the last sweep's folder (first, when the Sweep tab is the one
    in front). ([], None) when there is neither."""
    if prefer_sweep:
        points, folder = _sweep_points(sweep)
        if points:
            return points, folder
    shown = list(getattr(results, "shown", None) or [])
    if shown:
        points = [p for run in shown for p in run.points]
        return points, Path(shown[0].folder)
    return _sweep_points(sweep)


def export_to(path: str | Path, points: list[PointResult], folder: Path | None = None) -> Path:
    """Write the report; a capacity search summary in `folder` goes in with the points."""
    searches, _unreadable = find_searches([folder] if folder else [])
    return write_report(html_path(path), points, ui_language(), searches)


def export_report(
    parent: QWidget, results: Any, sweep: Any, settings: QSettings, prefer_sweep: bool = False
) -> str:
    """Ask where, write the report, and return the sentence for the status bar."""
    points, folder = report_source(results, sweep, prefer_sweep)
    if not points:
        return QCoreApplication.translate(
            "ReportExport", "Nothing to report yet: open a run in the Results tab, or run a sweep."
        )
    start = str(settings.value(SETTINGS_KEY, "") or "") or str(folder or Path.home())
    name = (folder.name if folder else "report") + ".html"
    chosen, _ = QFileDialog.getSaveFileName(
        parent,
        QCoreApplication.translate("ReportExport", "Export report"),
        str(Path(start) / name),
        QCoreApplication.translate("ReportExport", "HTML report (*.html)"),
    )
    if not chosen:
        return ""
    try:
        written = export_to(chosen, points, folder)
    except (OSError, ValueError) as exc:
        return QCoreApplication.translate(
            "ReportExport", "Could not write the report to {0}: {1}"
        ).format(chosen, exc)
    settings.setValue(SETTINGS_KEY, str(written.parent))
    return QCoreApplication.translate(
        "ReportExport", "Report of {0} point(s) written to {1}."
    ).format(len(points), written)
