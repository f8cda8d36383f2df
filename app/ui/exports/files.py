"""Save-dialog helpers for exports: the chosen filter's extension, and the last folder used."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSettings

from app.bench.results.write import NotRegularFile, atomic_write_bytes, atomic_write_text
from app.ui.results_root import default_results_root

FOLDER_KEY = "export/folder"


def data_filters() -> list[str]:
    return [
        QCoreApplication.translate("Exports", "CSV (*.csv)"),
        QCoreApplication.translate("Exports", "JSON (*.json)"),
        QCoreApplication.translate("Exports", "Markdown table (*.md)"),
    ]


def chart_filters() -> list[str]:
    return [
        QCoreApplication.translate("Exports", "PNG (*.png)"),
        QCoreApplication.translate("Exports", "SVG (*.svg)"),
    ]


def filter_suffixes(name_filter: str) -> list[str]:
    """'JSON (*.json)' -> ['.json']; 'Markdown (*.md *.markdown)' -> ['.md', '.markdown']."""
    return [f".{ext.lower()}" for ext in re.findall(r"\*\.(\w+)", name_filter)]


def with_filter_suffix(path: str | Path, chosen: str, filters: list[str]) -> Path:
    """The file name the user meant: a name without one of the offered extensions gets the
    chosen filter's (Qt's own dialog on Linux does not add it); a typed one is kept."""
    target = Path(path)
    offered = {s for f in filters for s in filter_suffixes(f)}
    if target.suffix.lower() in offered:
        return target
    suffixes = filter_suffixes(chosen) or filter_suffixes(filters[0])
    return target.with_name(target.name + suffixes[0])


def last_folder(settings: QSettings) -> Path:
    """Where the previous export went (if it still exists), else the results folder."""
    saved = settings.value(FOLDER_KEY)
    if isinstance(saved, str) and saved and Path(saved).is_dir():
        return Path(saved)
    root = default_results_root()
    return root if root.is_dir() else Path.home()


def remember_folder(settings: QSettings, target: Path) -> None:
    settings.setValue(FOLDER_KEY, str(target.parent))
    settings.sync()


def write_export(path: Path, content: str | bytes) -> Path:
    """Write an exported file as `tpotbench report` writes its outputs: a temp file renamed
    into place, a symlink written through (the link stays), a folder, FIFO or device refused
    (one sentence in the window's language), never replaced by a file."""
    try:
        if isinstance(content, str):
            atomic_write_text(path, content)
        else:
            atomic_write_bytes(path, content)
    except NotRegularFile:
        raise OSError(
            QCoreApplication.translate(
                "Exports",
                "{0} is not a regular file (a folder, FIFO or device): choose a file name.",
            ).format(path)
        ) from None
    return path
