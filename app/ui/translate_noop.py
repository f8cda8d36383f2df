"""`QT_TRANSLATE_NOOP` typed as what it is: it returns its message unchanged.

PySide6's stub declares `(context: object, message: object) -> object`, so every literal marked
for translation would be an `object` to mypy. The name stays `QT_TRANSLATE_NOOP` because
pyside6-lupdate finds the strings to extract by that name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from PySide6.QtCore import QT_TRANSLATE_NOOP as _QT_TRANSLATE_NOOP

# cast: the stub's return type is wrong (Qt returns the message argument itself).
QT_TRANSLATE_NOOP = cast("Callable[[str, str], str]", _QT_TRANSLATE_NOOP)
