"""Every string the window shows has a Chinese translation, and the shipped .qm is built from
the .ts in the tree (resources/i18n/update.sh refreshes both)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
I18N = ROOT / "resources" / "i18n"


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} not found next to {sys.executable}: it ships with PySide6-Essentials")
    return found


def test_every_ui_string_is_translated(tmp_path: Path) -> None:
    ts = tmp_path / "tpotbench_zh_CN.ts"
    shutil.copy(I18N / "tpotbench_zh_CN.ts", ts)
    sources = sorted(str(p) for p in (ROOT / "app").rglob("*.py"))
    subprocess.run(
        [_tool("pyside6-lupdate"), "-locations", "none", "-no-obsolete", *sources, "-ts", str(ts)],
        check=True,
        capture_output=True,
    )
    text = ts.read_text(encoding="utf-8")
    untranslated = text.count('type="unfinished"')
    assert untranslated == 0, (
        f"{untranslated} UI string(s) have no Chinese translation: run resources/i18n/update.sh "
        "and fill the entries marked unfinished"
    )
    assert text == (I18N / "tpotbench_zh_CN.ts").read_text(encoding="utf-8"), (
        "the .ts is not what resources/i18n/update.sh makes from app/: run it"
    )


def test_the_shipped_qm_is_built_from_the_ts(tmp_path: Path) -> None:
    qm = tmp_path / "out.qm"
    subprocess.run(
        [_tool("pyside6-lrelease"), str(I18N / "tpotbench_zh_CN.ts"), "-qm", str(qm)],
        check=True,
        capture_output=True,
    )
    assert qm.read_bytes() == (I18N / "tpotbench_zh_CN.qm").read_bytes(), (
        "resources/i18n/tpotbench_zh_CN.qm is stale: run resources/i18n/update.sh"
    )
