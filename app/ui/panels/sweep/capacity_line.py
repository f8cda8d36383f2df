"""The capacity search's answer above the Sweep tab's charts: each point's verdict while the
search runs, then the boundary, the failing SLO and the why (the knees in the tooltip)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt

from app.bench.schema.search_doc import SearchDoc, SearchPoint
from app.ui.panels.sweep.layout import WrappedLabel
from app.ui.plots.capacity import capacity_text, load_text


class CapacityLine(WrappedLabel):
    """Hidden until a search reports; re-rendered in place on a language change."""

    def __init__(self) -> None:
        super().__init__("")
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setVisible(False)
        self._source: Callable[[], tuple[str, str]] | None = None

    def reset(self) -> None:
        self._source = None
        self.setVisible(False)

    def search_value(self, value: SearchPoint, low: float | None, high: float | None) -> None:
        """One search point's verdict; low/high: the capacity bracket so far (None: open)."""

        def text() -> tuple[str, str]:
            verdict = {
                "pass": self.tr("meets every SLO"),
                "fail": self.tr("fails"),
                "marginal": self.tr("is marginal"),
            }.get(value.decision, value.decision)
            line = self.tr("Search: {0}: {1}").format(
                load_text("concurrency", float(value.value)), verdict
            )
            failed = ", ".join(value.failed)
            if failed:
                line += f" ({failed})"
            if low is not None and high is not None:
                line += " · " + self.tr("capacity between {0} and {1}").format(
                    f"{low:g}", f"{high:g}"
                )
            return line, ""

        self._source = text
        self.refresh()

    def search_finished(self, doc: SearchDoc) -> None:
        self._source = lambda: (capacity_text(doc, knees=False), capacity_text(doc))
        self.refresh()

    def refresh(self) -> None:
        if self._source is None:
            return
        text, tip = self._source()
        self.setText(text)
        self.setToolTip(tip)
        self.setVisible(True)
