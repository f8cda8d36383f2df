"""pytest plugin for the engine tier: the run behaves as on a machine without Qt.

Importing PySide6, shiboken6, pyqtgraph or qasync raises ModuleNotFoundError, and pytest-qt is not
loaded (it would import PySide6 when configured). Load it on the command line, before anything can
import Qt:

    python -m pytest -p tests.qt_absent --ignore=tests/ui --ignore=tests/packaging tests

One process with Qt blocked costs nothing in CI; a second virtualenv without PySide6 would cost an
install on every fresh machine and prove the same thing for code run in this process.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

import pytest

BLOCKED = ("PySide6", "shiboken6", "pyqtgraph", "qasync", "pytestqt")
# pytest-qt's settings in pyproject.toml; declared here so pytest does not call them unknown.
PYTEST_QT_INI = ("qt_api", "qt_log_level_fail", "qt_log_ignore", "qt_log_format")


class _NoQt(importlib.abc.MetaPathFinder):
    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(
                f"No module named {fullname!r} (Qt is blocked in this tier: tests/qt_absent.py)",
                name=fullname,
            )
        return None


_already = sorted(name for name in sys.modules if name.split(".")[0] in BLOCKED)
if _already:
    raise pytest.UsageError(
        f"tests.qt_absent loaded after Qt was imported ({', '.join(_already[:3])}): "
        "pass -p tests.qt_absent before other plugins"
    )
sys.meta_path.insert(0, _NoQt())


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    # Runs when `-p tests.qt_absent` registers this module, before pytest loads the installed
    # plugins: a blocked name is skipped there.
    pluginmanager.set_blocked("pytest-qt")


def pytest_addoption(parser: pytest.Parser) -> None:
    for name in PYTEST_QT_INI:
        parser.addini(name, "pytest-qt setting (pytest-qt is not loaded in the Qt-free tier)")


def pytest_report_header() -> str:
    return "Qt blocked (tests/qt_absent.py): PySide6, shiboken6, pyqtgraph and qasync raise"
