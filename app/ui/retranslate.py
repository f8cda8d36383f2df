"""Text that follows the UI language: View > Language retranslates every widget in place.

Installing a translator makes Qt send `QEvent.LanguageChange` to every widget. A panel answers
in `changeEvent` by calling its `retranslate()`, which sets its fixed strings again; a message
that holds values (a status line, a history entry) is kept as the function that makes it, so it
can be made again in the new language. Nothing is rebuilt, so no state is lost.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent

TextSource = Callable[[], str] | str


def is_language_change(event: QEvent) -> bool:
    return event.type() == QEvent.Type.LanguageChange


def text_of(source: TextSource) -> str:
    """The text a TextSource makes now, in the UI language."""
    return source() if callable(source) else str(source)


class Message:
    """A label's current message, re-made in the UI language on `refresh()`.

    `show(text, error)` is how the owner displays it (text and colour).
    """

    def __init__(self, show: Callable[[str, bool], None]) -> None:
        self._show = show
        self._make: Callable[[], str] | None = None
        self.error = False

    def set(self, source: TextSource, error: bool = False) -> None:
        self._make = source if callable(source) else (lambda: str(source))
        self.error = error
        self.refresh()

    def clear(self) -> None:
        self.set("")

    def text(self) -> str:
        return self._make() if self._make is not None else ""

    def refresh(self) -> None:
        if self._make is not None:
            self._show(self._make(), self.error)
