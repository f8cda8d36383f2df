"""sweep.csv: one summary row per point."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from app.bench.results.point_result import SUMMARY_COLUMNS, PointResult
from app.bench.results.write import atomic_write_text


def sweep_csv_text(points: Sequence[PointResult]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(SUMMARY_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for point in points:
        writer.writerow({k: ("" if v is None else v) for k, v in point.summary_row().items()})
    return buffer.getvalue()


def write_sweep_csv(path: str | Path, points: Sequence[PointResult]) -> Path:
    """sweep.csv: one summary row per point, rewritten atomically after every point."""
    atomic_write_text(Path(path), sweep_csv_text(points))
    return Path(path)


def refresh_sweep_csv(path: Path, points: Sequence[PointResult]) -> str | None:
    """Rewrite sweep.csv after a point; None when done, else one line saying it could not
    be, and what became of the old one. A sweep.csv that no longer matches the folder's
    points is removed when the folder still allows that (a full disk does): a missing summary
    misleads no one, a stale one does."""
    try:
        write_sweep_csv(path, points)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        try:
            path.unlink(missing_ok=True)
        except OSError:
            return f"cannot write {path} ({reason}); it lists only the points before this one"
        return f"cannot write {path} ({reason}); the old one is removed as out of date"
    return None
