"""A test's point as the window holds it: the row built from a result document by the same
reader a sweep's `point_finished` event goes through (app.ui.panels.sweep.run_model), so a
test's hand-written points take the window's one path."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.bench.results.point_row import PointRow, point_row
from app.bench.results.read import point_from_doc
from app.bench.schema.point_doc import read_point_doc


def row_of(document: Mapping[str, Any], path: str | None = None) -> PointRow:
    """The row of a result document (vLLM's keys, the statistics, our `tpotbench` block)."""
    doc = read_point_doc(document, strict=False)
    return point_row(point_from_doc(doc, Path(path) if path else None))
