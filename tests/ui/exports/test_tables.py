"""Export files are written whole and with the process umask (they hold no secret)."""

from __future__ import annotations

import os
from pathlib import Path

from app.ui.exports.tables import write_text_atomic


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
