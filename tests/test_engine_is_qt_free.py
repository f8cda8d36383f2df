"""The engine imports and runs with Qt absent: every module of app.bench, app.sim, app.roofline,
app.commands and app.report is imported in a fresh interpreter where importing PySide6,
shiboken6, pyqtgraph or qasync raises (as napari checks its model packages)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ("app.bench", "app.sim", "app.roofline", "app.commands", "app.report")

_SCRIPT = textwrap.dedent(
    """
    import importlib, importlib.abc, pkgutil, sys

    BLOCKED = ("PySide6", "shiboken6", "pyqtgraph", "qasync")

    class NoQt(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} imported by the engine")
            return None

    sys.meta_path.insert(0, NoQt())
    imported = []
    for top in sys.argv[1:]:
        package = importlib.import_module(top)
        imported.append(top)
        for info in pkgutil.walk_packages(package.__path__, top + "."):
            importlib.import_module(info.name)
            imported.append(info.name)
    for extra in ("app.cli", "app.profiles", "app.secrets", "app.paths"):
        importlib.import_module(extra)
        imported.append(extra)
    print(len(imported))
    """
)


def test_every_engine_module_imports_without_qt() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, *ENGINE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.strip()) > 40  # the walk really found the engine's modules
