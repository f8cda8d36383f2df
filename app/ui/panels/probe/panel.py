"""One streaming request with a live per-token latency chart and big TTFT/TPOT readouts."""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTime, QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.bench.schema.probe_summary import ProbeSummary
from app.bench.sweep.contract import PointFinished, Tokens
from app.commands.argv import probe_argv
from app.profiles import Target
from app.ui.exports.tooltips import metric_tooltips
from app.ui.panels.probe.chart import ProbeChart
from app.ui.panels.probe.history import ProbeHistory
from app.ui.panels.probe.outcome import (
    LiveSeries,
    ProbeHistoryEntry,
    ProbeOutcome,
    outcome_from_summary,
    worker_error_message,
)
from app.ui.panels.probe.readouts import Readouts
from app.ui.retranslate import Message, is_language_change
from app.ui.run_process import RunProcess
from app.ui.translate_noop import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)

DEFAULT_PROMPT = QT_TRANSLATE_NOOP(
    "ProbePanel", "Explain in three sentences why LLM decoding is limited by memory bandwidth."
)


def default_prompt() -> str:
    """The probe's first prompt, in the UI language."""
    return QCoreApplication.translate("ProbePanel", DEFAULT_PROMPT)


def is_default_prompt(text: str) -> bool:
    """True for the default prompt in any language (a language switch may replace it)."""
    return text.strip() in (DEFAULT_PROMPT, default_prompt())


REDRAW_MS = 33  # ~30 Hz: token arrival never paints, this timer does


def readout_tooltips() -> dict[str, str]:
    """What each readout means: TTFT, TPOT and ITL in the words of the sweep's table (one text
    per metric), and the two figures only a single request has."""
    return {
        **metric_tooltips(),
        "tps": QCoreApplication.translate(
            "ProbePanel",
            "Output tokens per second for this request: output tokens ÷ end-to-end latency "
            "(vllm bench serve's output throughput for one request).\n"
            "GuideLLM: output_tokens_per_second. AIPerf's Output Token Throughput Per User is "
            "1 ÷ ITL instead (decode speed only, without TTFT).",
        ),
        "tokens": QCoreApplication.translate(
            "ProbePanel",
            "Output tokens as reported by the server's usage field (completion_tokens), never "
            "counted from stream chunks.\n"
            "GuideLLM: output_tokens. AIPerf: Output Sequence Length (OSL).",
        ),
    }


class ProbePanel(QWidget):
    """Prompt, Run/Stop, live ITL chart, readouts, streamed text and the session's probes.

    The readouts fill while the reply streams: TTFT at the first chunk, TPOT, tok/s and the
    token count (marked ≈, counted from chunks) with every batch, replaced by the final
    figures (tokens from the server's usage) when the request ends.

    Signals:
        runningChanged(bool): a probe started or ended.
        probeFinished(ProbeOutcome): a probe's outcome (ok, TTFT, TPOT, tokens, tok/s).
    """

    runningChanged = Signal(bool)
    probeFinished = Signal(object)

    def __init__(
        self, target_provider: Callable[[], Target], parent: QWidget | None = None
    ) -> None:
        # Long but flat: the widgets in the order they appear; one layout read top to bottom.
        super().__init__(parent)
        self._target_provider = target_provider
        self.live = LiveSeries()
        self._shown_text = 0  # characters of live.text already in the text box

        self._shown_default = default_prompt()  # replaced on a language switch if untouched
        self.prompt = QPlainTextEdit(self._shown_default)
        self.prompt.setObjectName("probePrompt")
        self.prompt.setMaximumHeight(70)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(1, 32768)
        self.max_tokens.setValue(256)
        self.run_button = QPushButton()
        self.run_button.clicked.connect(self.start)
        self.stop_button = QPushButton()
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)

        self.max_tokens_label = QLabel()
        controls = QHBoxLayout()
        controls.addWidget(self.max_tokens_label)
        controls.addWidget(self.max_tokens)
        controls.addStretch(1)
        controls.addWidget(self.run_button)
        controls.addWidget(self.stop_button)

        self.readouts = Readouts()

        self.status = QLabel()
        self.status.setObjectName("probeStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = Message(self._show_status)

        self.plot = ProbeChart()

        self.text = QPlainTextEdit()
        self.text.setObjectName("probeText")
        self.text.setReadOnly(True)
        # Shown once the reply's first text arrives.
        self.text.setVisible(False)
        self.history_list = ProbeHistory()
        self.history = self.history_list.entries  # the same list, for readers of the panel
        self.history_list.currentRowChanged.connect(self._show_history)

        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(self.text)
        lower.addWidget(self.history_list)
        lower.setSizes([600, 300])
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(self.plot)
        body.addWidget(lower)
        body.setSizes([480, 140])
        body.setStretchFactor(0, 3)

        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addLayout(controls)
        layout.addWidget(self.readouts)
        layout.addWidget(self.status)
        layout.addWidget(body, 1)

        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self.redraw)

        # The request runs in a `tpotbench probe` process: its clock is never late because this
        # window is painting (see probe_argv and the measurement in the report).
        self.worker = RunProcess(self, cancel_grace_ms=300)
        self.worker.tokens.connect(self._on_tokens)
        self.worker.pointFinished.connect(self._on_point_finished)
        self.worker.errorMessage.connect(self._on_error)
        self.worker.stopped.connect(self._on_stopped)
        self._target: Target | None = None
        self._summary: ProbeSummary | None = None
        self._error = ""
        self._stopping = False
        self.retranslate()

    def retranslate(self) -> None:
        """Every fixed string, the status line and the history in the UI language."""
        tips = readout_tooltips()
        if self.prompt_is_default():
            self._shown_default = default_prompt()
            self.prompt.setPlainText(self._shown_default)
        self.max_tokens.setToolTip(self.tr("The request's max_tokens"))
        self.max_tokens_label.setText(self.tr("Max tokens"))
        self.run_button.setText(self.tr("Run"))
        self.run_button.setToolTip(self.tr("Send one streaming request (Ctrl+R)"))
        self.stop_button.setText(self.tr("Stop"))
        self.stop_button.setToolTip(self.tr("Cancel the request (Esc)"))
        self.readouts.retranslate(tips)
        self.plot.retranslate(tips["itl"])
        self.history_list.retranslate()
        self.message.refresh()

    def prompt_is_default(self) -> bool:
        """The prompt is the default one (in whichever language it was shown)."""
        text = self.prompt.toPlainText().strip()
        return text == self._shown_default.strip() or is_default_prompt(text)

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    # ---- running ----

    @property
    def running(self) -> bool:
        return self.worker.is_running()

    def start(self) -> None:
        if self.running:
            return
        prompt = self.prompt.toPlainText().strip()
        if not prompt:
            self._say(lambda: self.tr("Type a prompt first."), error=True)
            return
        try:
            target = self._target_provider()
        except ValueError as exc:  # the endpoint form cannot be used as it stands
            self._say(str(exc), error=True)
            return
        if not target.base_url:
            self._say(
                lambda: self.tr("The endpoint has no URL yet (the simulator is still starting)."),
                error=True,
            )
            return
        self._clear_live()
        self._target = target
        self._summary = None
        self._error = ""
        url = target.base_url
        self._say(lambda: self.tr("Streaming from {url} …").format(url=url))
        self._set_running(True)
        self._timer.start()
        self.worker.start_probe(target, probe_argv(target, prompt, self.max_tokens.value()))

    def stop(self) -> None:
        if self.running:
            self._stopping = True
            self.worker.cancel()

    def _on_tokens(self, event: Tokens) -> None:
        self.live.add_event(event)

    def _on_point_finished(self, event: PointFinished) -> None:
        if isinstance(event.summary, ProbeSummary):
            self._summary = event.summary

    def _on_error(self, message: str) -> None:
        self._error = message

    def _on_stopped(self) -> None:
        """The worker is gone: show its result, or why there is none."""
        self._timer.stop()
        self.redraw()
        stopping, self._stopping = self._stopping, False
        if self._summary is not None:
            x, y = self.live.arrays()
            outcome = outcome_from_summary(self._summary, x.copy(), y.copy())
            if outcome.text:
                self.live.text = outcome.text
            outcome.text = self.live.text
            self.live.dirty = True
            self.redraw()
            self.plot.fit(x, y)
            self._finish(self._target, outcome)
        elif stopping:
            self._say(lambda: self.tr("Stopped."))
        else:
            error = self._error
            self._say(
                lambda: (
                    worker_error_message(error)
                    if error
                    else self.tr("The probe ended without a result.")
                ),
                error=True,
            )
        self._set_running(False)

    def _finish(self, target: Target | None, outcome: ProbeOutcome) -> None:
        entry = ProbeHistoryEntry(
            QTime.currentTime().toString("HH:mm:ss"),
            target.profile_name if target else "",
            outcome,
        )
        self.history_list.add(entry)
        self._show_outcome(outcome)
        self.probeFinished.emit(outcome)

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.runningChanged.emit(running)

    # ---- drawing ----

    def redraw(self) -> None:
        live = self.live
        if not live.dirty:
            return
        live.dirty = False
        self.plot.show_data(*live.arrays())
        self._show_text(live.text)
        if self.running:
            self._show_so_far()

    def _show_text(self, text: str) -> None:
        """Append what streamed in since the last frame (never re-set the whole reply)."""
        if not text.startswith(self.text.toPlainText()[: self._shown_text]):
            self.text.clear()
            self._shown_text = 0
        if len(text) > self._shown_text:
            cursor = self.text.textCursor()
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text[self._shown_text :])
            self._shown_text = len(text)
        self.text.setVisible(bool(text))

    def _show_so_far(self) -> None:
        ttft_ms, tpot_ms, tok_s, chunks = self.live.so_far()
        if ttft_ms is None:
            return
        self.readouts.show_so_far(ttft_ms, tpot_ms, tok_s, chunks)

    def _clear_live(self) -> None:
        self.live = LiveSeries(max(64, self.max_tokens.value() + 8))
        self.plot.reset()
        self.text.clear()
        self._shown_text = 0
        self.text.setVisible(False)
        self.readouts.clear()

    def _show_outcome(self, outcome: ProbeOutcome) -> None:
        self.readouts.show_outcome(outcome)
        self.plot.show_tpot(outcome.tpot_ms)
        if outcome.ok:

            def done() -> str:
                note = ""
                if outcome.tokens_source != "usage":
                    note = self.tr(" Token count estimated: the server sent no usage.")
                return (
                    self.tr("Done: {n} tokens in {s:.2f} s.").format(
                        n=outcome.output_tokens, s=outcome.e2el_ms / 1000
                    )
                    + note
                )

            self._say(done)
        else:
            self._say(outcome.message, error=True)

    def _show_history(self, row: int) -> None:
        if row < 0 or row >= len(self.history) or self.running:
            return
        outcome = self.history[row].outcome
        series = LiveSeries(max(64, len(outcome.t_s)))
        series.extend(outcome.t_s, outcome.itl_ms)
        series.text = outcome.text
        self.live = series
        self.redraw()
        self.plot.fit(*series.arrays())
        self._show_outcome(outcome)

    def _say(self, text: str | Callable[[], str], error: bool = False) -> None:
        self.message.set(text, error)

    def _show_status(self, text: str, error: bool) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #c62828;" if error else "")
