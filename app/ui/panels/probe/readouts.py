"""The Probe tab's four big numbers: TTFT, TPOT, output tok/s and output tokens."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from app.ui.panels.probe.outcome import ProbeOutcome


def fmt(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


class Readout(QFrame):
    """A caption above a large number."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.caption = QLabel()
        self.value = QLabel("–")
        font = QFont(self.value.font())
        font.setPointSizeF(font.pointSizeF() * 2.0)
        font.setBold(True)
        self.value.setFont(font)
        self.value.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.caption)
        layout.addWidget(self.value)

    def set(self, text: str) -> None:
        self.value.setText(text)


class Readouts(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.ttft, self.tpot, self.tps, self.tokens = (Readout() for _ in range(4))
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)  # laid out as the panel's own row
        for column, readout in enumerate(self.all()):
            grid.addWidget(readout, 0, column)

    def all(self) -> tuple[Readout, Readout, Readout, Readout]:
        return self.ttft, self.tpot, self.tps, self.tokens

    def retranslate(self, tips: dict[str, str]) -> None:
        for readout, caption, tip in (
            (self.ttft, self.tr("TTFT (ms)"), tips["ttft"]),
            (self.tpot, self.tr("TPOT (ms)"), tips["tpot"]),
            (self.tps, self.tr("Output tok/s"), tips["tps"]),
            (self.tokens, self.tr("Output tokens"), tips["tokens"]),
        ):
            readout.caption.setText(caption)
            readout.setToolTip(tip)

    def clear(self) -> None:
        for readout in self.all():
            readout.set("–")

    def show_so_far(
        self, ttft_ms: float, tpot_ms: float | None, tok_s: float | None, chunks: int
    ) -> None:
        self.ttft.set(fmt(ttft_ms, 1))  # exact: the first chunk's arrival
        # Tokens counted from chunks until the server's usage arrives: marked as provisional.
        self.tpot.set("–" if tpot_ms is None else "≈" + fmt(tpot_ms, 2))
        self.tps.set("–" if tok_s is None else "≈" + fmt(tok_s, 1))
        self.tokens.set(f"≈{chunks}")

    def show_outcome(self, outcome: ProbeOutcome) -> None:
        self.ttft.set(fmt(outcome.ttft_ms, 1))
        self.tpot.set(fmt(outcome.tpot_ms, 2))
        self.tps.set(fmt(outcome.tok_s, 1))
        self.tokens.set(str(outcome.output_tokens) if outcome.output_tokens else "–")
