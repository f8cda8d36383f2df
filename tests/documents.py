"""What a point's result file holds, as JSON: for tests that check the file itself (the
window and the report read the typed PointResult instead)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.bench.results.point_result import PointResult


def document(where: PointResult | str | Path) -> dict[str, Any]:
    """The result document of a point's file (or of a file's path)."""
    path = where.path if isinstance(where, PointResult) else where
    assert path is not None, "a point read from a file"
    doc: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return doc
