"""The shareable HTML report: one self-contained file from result files, for the CLI
(`tpotbench report DIR --html FILE`) and the window (File > Export report). No Qt here."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from app.bench.results import PointResult, atomic_write_text
from app.report.document import render
from app.report.model import report_points
from app.report.text import LANGUAGES


def render_report(
    points: Sequence[PointResult], lang: str = "en", now: datetime | None = None
) -> str:
    """The report's HTML for these points, in 'en' or 'zh_CN'."""
    if lang not in LANGUAGES:
        raise ValueError(f"report language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    return render(report_points(points, lang), lang, now)


def write_report(path: str | Path, points: Sequence[PointResult], lang: str = "en") -> Path:
    """Render and write atomically (a reader never sees half a report)."""
    atomic_write_text(Path(path), render_report(points, lang))
    return Path(path)


__all__ = ["LANGUAGES", "render_report", "write_report"]
