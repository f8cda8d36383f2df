"""Run ▸ Check this machine: `tpotbench selftest --jsonl` in a child process (the measurement
must not share the window's thread), each step shown as it finishes, then the ceiling per mode.

Signals:
    finishedResult(SelftestResult): the self-test's result (machine, ceiling per mode).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QProcess, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.bench.selftest.output import SelftestResult, StepLine, read_line
from app.paths import cli_command


class SelftestDialog(QDialog):
    finishedResult = Signal(object)

    def __init__(self, parent: QWidget | None = None, extra_args: Sequence[str] = ()) -> None:
        super().__init__(parent)
        self.extra_args = list(extra_args)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setVisible(False)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.outcome = QLabel()
        self.outcome.setWordWrap(True)
        self.buttons = QDialogButtonBox()
        self.start_button = QPushButton()
        self.start_button.clicked.connect(self.start)
        self.buttons.addButton(self.start_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.intro, self.progress, self.log, self.outcome, self.buttons):
            layout.addWidget(widget)
        self.process = QProcess(self)
        self.process.readyReadStandardOutput.connect(self._read)
        self.process.finished.connect(self._finished)
        self._buffer = b""
        self.doc: SelftestResult | None = None
        self.resize(820, 460)
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Check this machine"))
        self.intro.setText(
            self.tr(
                "Measures the client's own ceiling here: the most streams it times faithfully "
                "against a local server that logs when it sent each token (median TTFT excess "
                "≤ 1 ms, gap error p99 ≤ 0.5 ms), in one process and with 2 load workers. "
                "About a minute; the result is saved for this machine and sweeps past it warn."
            )
        )
        self.start_button.setText(self.tr("Start"))

    def start(self) -> None:
        if self.process.state() != QProcess.ProcessState.NotRunning:
            return
        self.log.clear()
        self.outcome.clear()
        self.doc = None
        self._buffer = b""
        command = [*cli_command(), "selftest", "--jsonl", *self.extra_args]
        self.progress.setVisible(True)
        self.start_button.setEnabled(False)
        self.process.start(command[0], command[1:])

    def _mode(self, workers: int) -> str:
        return (
            self.tr("in one process") if workers == 0 else self.tr("{n} workers").format(n=workers)
        )

    def _read(self) -> None:
        self._buffer += bytes(self.process.readAllStandardOutput().data())
        *lines, self._buffer = self._buffer.split(b"\n")
        for raw in lines:
            try:
                line = read_line(raw)
            except ValueError:  # a line of another build's shape: not shown, as a stray print
                continue
            if isinstance(line, StepLine):
                self._show_step(line)
            elif isinstance(line, SelftestResult):
                self.doc = line

    def _show_step(self, line: StepLine) -> None:
        step = line.step
        verdict = self.tr("within the limits") if not line.broken else self.tr("over")
        self.log.appendPlainText(
            self.tr(
                "{mode}: {n} streams — TTFT excess p50 {ttft} ms, gap error p99 {gap} ms, "
                "CPU {cpu} ms per 1k tokens: {verdict}"
            ).format(
                mode=self._mode(line.workers),
                n=step.streams,
                ttft=_ms(step.ttft_excess_ms),
                gap=_ms(step.gap_error_p99_ms),
                cpu=_ms(step.cpu_ms_per_1k, 0),
                verdict=verdict,
            )
        )

    def _finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        self._read()
        self.progress.setVisible(False)
        self.start_button.setEnabled(True)
        if code != 0 or self.doc is None:
            error = bytes(self.process.readAllStandardError().data()).decode(errors="replace")
            self.outcome.setText(
                self.tr("The self-test failed: {error}").format(error=error.strip()[-300:])
            )
            return
        self.outcome.setText("\n".join(self.ceiling_lines(self.doc)))
        self.finishedResult.emit(self.doc)

    def ceiling_lines(self, doc: SelftestResult) -> list[str]:
        """One sentence per mode: the ceiling (a lower bound when nothing failed) and its CPU."""
        lines = []
        for key, entry in doc.results.items():
            mode = self._mode(int(key))
            if not entry.streams:
                lines.append(
                    self.tr("{mode}: not enough evidence — even 1 stream broke the limits.").format(
                        mode=mode
                    )
                )
                continue
            text = (
                self.tr("{mode}: ceiling at least {n} streams")
                if entry.at_least
                else self.tr("{mode}: ceiling {n} streams")
            ).format(mode=mode, n=entry.streams)
            if entry.cpu_ms_per_1k is not None:
                text += self.tr(" ({cpu} ms CPU per 1k tokens)").format(
                    cpu=_ms(entry.cpu_ms_per_1k, 0)
                )
            lines.append(text)
        return lines


def _ms(value: float | None, decimals: int = 2) -> str:
    """A figure, or a dash where the step had none (NaN in memory, null on the line)."""
    return "–" if value is None or not math.isfinite(value) else f"{value:.{decimals}f}"
