"""Export files are written whole and with the process umask (they hold no secret)."""

from __future__ import annotations

import os
from pathlib import Path

from app.ui.exports.tables import runs_json, write_text_atomic


def test_exports_follow_the_umask_and_leave_no_temp_file(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = write_text_atomic(tmp_path / "table.csv", "a,b\n1,2\n")
        os.umask(0o027)
        narrow = write_text_atomic(tmp_path / "table.md", "| a |\n")
    finally:
        os.umask(old)
    assert target.read_text(encoding="utf-8") == "a,b\n1,2\n"
    assert target.stat().st_mode & 0o777 == 0o644
    assert narrow.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv", "table.md"]


def test_the_json_export_says_completeness_and_load_warnings_as_the_file_does() -> None:
    """A point that could not reach its concurrency (4 prompts for 8 streams), cut short by a
    cancel: the export carries its completeness with the table's words and its warning as
    the point file's tpotbench.load_warnings entry."""
    import json

    from app.ui.plots.sweep_curves import Series
    from tests.ui.rows import row_of

    doc = {"completed": 3, "failed": 0, "num_prompts": 4, "duration": 2.0, "request_rate": "inf",
           "max_concurrency": 8, "max_concurrent_requests": 3, "median_tpot_ms": 19.7,
           "tpotbench": {"cancelled": True}}  # fmt: skip
    [point] = json.loads(runs_json([Series("run", [row_of(doc)])]))["runs"][0]["points"]
    assert point["completeness"] == {
        "state": "cancelled",
        "ran": 3,
        "planned": 4,
        "reason": None,
        "text": "cancelled after 3 of 4",
    }
    assert point["load_warnings"] == [
        {
            "kind": "concurrency_not_reached",
            "template": "concurrency_prompts",
            "value": 3,
            "limit": 8,
            "unit": "requests",
            "params": {"target": 8, "prompts": 4, "peak": 3},
            "text": point["load_warnings"][0]["text"],
        }
    ]
    assert "8" in point["load_warnings"][0]["text"]
