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
