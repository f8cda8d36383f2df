"""One streaming request with a live per-token latency chart and big TTFT/TPOT readouts."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt, QTime, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.bench.failures import fix_for, title_for
from app.paths import cli_command
from app.profiles import Target
from app.ui.theme import accent
from app.ui.worker import KEY_ENV, SweepSpec, SweepWorker

log = logging.getLogger(__name__)

DEFAULT_PROMPT = "Explain in three sentences why LLM decoding is limited by memory bandwidth."
REDRAW_MS = 33  # ~30 Hz: token arrival never paints, this timer does


def metric_tooltips() -> dict[str, str]:
    """What each readout means, with the names GuideLLM and AIPerf use for the same number."""
    return {
        "ttft": QCoreApplication.translate(
            "ProbePanel",
            "Time to first token: from sending the request to the first chunk that carries "
            "generated text. Includes queueing, prefill and the network.\n"
            "GuideLLM: time_to_first_token_ms. AIPerf: Time to First Token (TTFT).",
        ),
        "tpot": QCoreApplication.translate(
            "ProbePanel",
            "Time per output token, excluding the first: (end-to-end latency − TTFT) ÷ "
            "(output tokens − 1), as vllm bench serve computes it.\n"
            "GuideLLM calls this inter_token_latency_ms (its time_per_output_token_ms includes "
            "the first token). AIPerf: Inter Token Latency (ITL).",
        ),
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
        "itl": QCoreApplication.translate(
            "ProbePanel",
            "Inter-token latency: the gap before each chunk that carries generated text. "
            "A chunk with several tokens is one gap.\n"
            "GuideLLM does not keep per-chunk gaps. AIPerf: Inter Chunk Latency (ICL).",
        ),
    }


@dataclass
class ProbeOutcome:
    """A finished probe in the units the panel shows (ms), plus its per-chunk gaps."""

    ok: bool
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    tok_s: float | None = None
    e2el_ms: float = 0.0
    output_tokens: int = 0
    tokens_source: str = "usage"
    t_s: np.ndarray = field(default_factory=lambda: np.empty(0))
    itl_ms: np.ndarray = field(default_factory=lambda: np.empty(0))
    text: str = ""
    error_kind: str | None = None
    message: str = ""


def outcome_from_summary(
    summary: dict[str, Any], t_s: np.ndarray, itl_ms: np.ndarray
) -> ProbeOutcome:
    """The probe worker's point_finished summary as an outcome."""
    ok = bool(summary.get("ok"))
    outcome = ProbeOutcome(
        ok=ok,
        ttft_ms=_num(summary.get("ttft_ms")),
        tpot_ms=_num(summary.get("tpot_ms")),
        tok_s=_num(summary.get("output_tok_s")),
        e2el_ms=_num(summary.get("e2el_ms")) or 0.0,
        output_tokens=int(summary.get("output_tokens") or 0),
        tokens_source=str(summary.get("output_tokens_source") or "usage"),
        t_s=t_s,
        itl_ms=itl_ms,
        text=str(summary.get("generated_text") or summary.get("text") or ""),
        error_kind=summary.get("error_kind"),
    )
    if not ok:
        outcome.message = failure_message(outcome.error_kind or "", str(summary.get("error") or ""))
    return outcome


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def failure_message(kind: str, detail: str) -> str:
    """What happened, then what to do: two short lines, never a traceback."""
    if kind == "http_401":
        fix = QCoreApplication.translate(
            "ProbePanel", "Enter a valid API key for this endpoint in the editor on the left."
        )
    elif kind:
        fix = fix_for(kind)
    else:
        fix = ""
    what = f"{title_for(kind)}: {detail}" if kind else detail
    return f"{what}\n{fix}".strip()


def probe_argv(target: Target, prompt: str, max_tokens: int) -> list[str]:
    """`tpotbench probe --events jsonl` for this target; the key travels only in KEY_ENV."""
    argv = [
        *cli_command(),  # a frozen bundle runs itself, not `python -m app`
        "probe",
        "--events",
        "jsonl",
        "--base-url",
        target.base_url,
        "--backend",
        "openai-chat" if target.api == "chat" else "openai",
        "--prompt",
        prompt,
        "--max-tokens",
        str(max_tokens),
    ]
    if target.model:
        argv += ["--model", target.model]
    if target.api_key:
        argv += ["--api-key-env", KEY_ENV]
    if not target.verify_tls:
        argv.append("--insecure")
    for name, value in target.headers.items():
        argv += ["--header", f"{name}={value}"]
    return argv


@dataclass
class ProbeHistoryEntry:
    """A finished probe kept for this session (never written to disk from here)."""

    when: str
    profile: str
    outcome: ProbeOutcome


class Readout(QFrame):
    """A caption above a large number."""

    def __init__(self, caption: str, tooltip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setToolTip(tooltip)
        self.caption = QLabel(caption)
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


class LiveSeries:
    """Gaps between token chunks as they arrive (batched by the worker), read at redraw time."""

    def __init__(self, capacity: int = 512) -> None:
        self._x = np.empty(capacity)
        self._y = np.empty(capacity)
        self.count = 0
        self.text = ""
        self.dirty = False

    def extend(self, t_s: np.ndarray, itl_ms: np.ndarray) -> None:
        n = len(t_s)
        while self.count + n > len(self._x):
            self._x = np.concatenate([self._x, np.empty(len(self._x))])
            self._y = np.concatenate([self._y, np.empty(len(self._y))])
        self._x[self.count : self.count + n] = t_s
        self._y[self.count : self.count + n] = itl_ms
        self.count += n
        self.dirty = True

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(seconds since the request was sent at each gap's end, gap in ms)."""
        return self._x[: self.count], self._y[: self.count]


class ProbePanel(QWidget):
    """Prompt, Run/Stop, live ITL chart, readouts, streamed text and the session's probes.

    Signals:
        runningChanged(bool): a probe started or ended.
        probeFinished(dict): {"ttft_ms", "tpot_ms", "output_tokens", "tok_s", "ok"} per probe.
    """

    runningChanged = Signal(bool)
    probeFinished = Signal(dict)

    def __init__(
        self, target_provider: Callable[[], Target], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._target_provider = target_provider
        self.history: list[ProbeHistoryEntry] = []
        self.live = LiveSeries()
        tips = metric_tooltips()

        self.prompt = QPlainTextEdit(DEFAULT_PROMPT)
        self.prompt.setObjectName("probePrompt")
        self.prompt.setMaximumHeight(70)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(1, 32768)
        self.max_tokens.setValue(256)
        self.max_tokens.setToolTip(self.tr("The request's max_tokens"))
        self.run_button = QPushButton(self.tr("Run"))
        self.run_button.setToolTip(self.tr("Send one streaming request (Ctrl+R)"))
        self.run_button.clicked.connect(self.start)
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setToolTip(self.tr("Cancel the request (Esc)"))
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)

        controls = QHBoxLayout()
        controls.addWidget(QLabel(self.tr("Max tokens")))
        controls.addWidget(self.max_tokens)
        controls.addStretch(1)
        controls.addWidget(self.run_button)
        controls.addWidget(self.stop_button)

        self.ttft = Readout(self.tr("TTFT (ms)"), tips["ttft"])
        self.tpot = Readout(self.tr("TPOT (ms)"), tips["tpot"])
        self.tps = Readout(self.tr("Output tok/s"), tips["tps"])
        self.tokens = Readout(self.tr("Output tokens"), tips["tokens"])
        readouts = QGridLayout()
        for column, readout in enumerate((self.ttft, self.tpot, self.tps, self.tokens)):
            readouts.addWidget(readout, 0, column)

        self.status = QLabel()
        self.status.setObjectName("probeStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.plot = pg.PlotWidget()
        self.plot.setObjectName("probeChart")
        self.plot.setToolTip(tips["itl"])
        self.plot.setMinimumHeight(160)
        item = self.plot.getPlotItem()
        item.setLabel("left", self.tr("Inter-token latency"), units="ms")
        item.setLabel("bottom", self.tr("Time since request sent"), units="s")
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setClipToView(True)
        item.setDownsampling(auto=True, mode="peak")
        # Created once; the timer only feeds it new arrays.
        # Created once; the timer only feeds it new arrays. No symbols and no antialiasing while
        # streaming: every millisecond spent painting here delays the next token's timestamp.
        self.curve = item.plot([], [], pen=pg.mkPen(accent(), width=1.5), antialias=False)
        item.disableAutoRange()
        self._x_max = 1.0
        self._y_max = 50.0
        item.setRange(xRange=(0, self._x_max), yRange=(0, self._y_max), padding=0)
        self.tpot_line = pg.InfiniteLine(
            angle=0, movable=False, pen=pg.mkPen(accent(), style=Qt.PenStyle.DashLine)
        )
        self.tpot_line.setVisible(False)
        item.addItem(self.tpot_line)

        self.text = QPlainTextEdit()
        self.text.setObjectName("probeText")
        self.text.setReadOnly(True)
        # Shown only once a probe returns its reply text (the engine's summary may omit it).
        self.text.setVisible(False)
        self.history_list = QListWidget()
        self.history_list.setObjectName("probeHistory")
        self.history_list.setToolTip(
            self.tr("Earlier probes in this session; click one to show it")
        )
        self.history_list.currentRowChanged.connect(self._show_history)
        self.history_list.setWordWrap(True)  # a one-line entry is wider than the list

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
        layout.addLayout(readouts)
        layout.addWidget(self.status)
        layout.addWidget(body, 1)

        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self.redraw)

        # The request runs in a `tpotbench probe` process: its clock is never late because this
        # window is painting (see probe_argv and the measurement in the report).
        self.worker = SweepWorker(self, cancel_grace_ms=300)
        self.worker.tokens.connect(self._on_tokens)
        self.worker.pointFinished.connect(self._on_point_finished)
        self.worker.errorMessage.connect(self._on_error)
        self.worker.stopped.connect(self._on_stopped)
        self._target: Target | None = None
        self._summary: dict | None = None
        self._error = ""
        self._stopping = False

    # ---- running ----

    @property
    def running(self) -> bool:
        return self.worker.is_running()

    def start(self) -> None:
        if self.running:
            return
        prompt = self.prompt.toPlainText().strip()
        if not prompt:
            self._say(self.tr("Type a prompt first."), error=True)
            return
        target = self._target_provider()
        if not target.base_url:
            self._say(
                self.tr("The endpoint has no URL yet (the simulator is still starting)."),
                error=True,
            )
            return
        self._clear_live()
        self._target = target
        self._summary = None
        self._error = ""
        self._say(self.tr("Streaming from {url} …").format(url=target.base_url))
        self._set_running(True)
        self._timer.start()
        self.worker.start(
            SweepSpec(), target, argv=probe_argv(target, prompt, self.max_tokens.value())
        )

    def stop(self) -> None:
        if self.running:
            self._stopping = True
            self.worker.cancel()

    def _on_tokens(self, event: dict) -> None:
        self.live.extend(event["t_s"], event["itl_ms"])

    def _on_point_finished(self, event: dict) -> None:
        self._summary = event.get("summary") or {}

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
            self.live.text = outcome.text
            self.live.dirty = True
            self.redraw()
            self._fit_range(x, y)
            self._finish(self._target, outcome)
        elif stopping:
            self._say(self.tr("Stopped."))
        else:
            self._say(
                self._error or self.tr("The probe ended without a result."),
                error=True,
            )
        self._set_running(False)

    def _finish(self, target: Target | None, outcome: ProbeOutcome) -> None:
        entry = ProbeHistoryEntry(
            QTime.currentTime().toString("HH:mm:ss"),
            target.profile_name if target else "",
            outcome,
        )
        self.history.append(entry)
        item = QListWidgetItem(self._history_label(entry))
        item.setToolTip(item.text())
        self.history_list.blockSignals(True)
        self.history_list.addItem(item)
        self.history_list.setCurrentItem(item)
        self.history_list.blockSignals(False)
        self._show_outcome(outcome)
        self.probeFinished.emit(
            {
                "ok": outcome.ok,
                "ttft_ms": outcome.ttft_ms,
                "tpot_ms": outcome.tpot_ms,
                "output_tokens": outcome.output_tokens,
                "tok_s": outcome.tok_s,
            }
        )

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
        x, y = live.arrays()
        self.curve.setData(x, y)
        self._grow_range(x, y)
        if live.text and live.text != self.text.toPlainText():
            self.text.setPlainText(live.text)
        self.text.setVisible(bool(live.text))

    def _grow_range(self, x: np.ndarray, y: np.ndarray) -> None:
        """Widen the axes in steps: re-ranging every frame relayouts the axes every frame."""
        if not len(x):
            return
        x_last = float(x[-1])
        y_top = float(np.nanmax(y))
        changed = False
        while x_last > self._x_max:
            self._x_max *= 1.5
            changed = True
        while y_top > self._y_max:
            self._y_max *= 2
            changed = True
        if changed:
            self.plot.getPlotItem().setRange(
                xRange=(0, self._x_max), yRange=(0, self._y_max), padding=0
            )

    def _fit_range(self, x: np.ndarray, y: np.ndarray) -> None:
        self._x_max = max(1.0, float(x[-1]) * 1.02) if len(x) else 1.0
        self._y_max = max(10.0, float(np.nanmax(y)) * 1.1) if len(y) else 50.0
        self.plot.getPlotItem().setRange(
            xRange=(0, self._x_max), yRange=(0, self._y_max), padding=0
        )

    def _clear_live(self) -> None:
        self.live = LiveSeries(max(64, self.max_tokens.value() + 8))
        self.curve.setData([], [])
        self._x_max, self._y_max = 1.0, 50.0
        self.plot.getPlotItem().setRange(xRange=(0, 1.0), yRange=(0, 50.0), padding=0)
        self.tpot_line.setVisible(False)
        self.text.clear()
        for readout in (self.ttft, self.tpot, self.tps, self.tokens):
            readout.set("–")

    def _show_outcome(self, outcome: ProbeOutcome) -> None:
        self.ttft.set(_fmt(outcome.ttft_ms, 1))
        self.tpot.set(_fmt(outcome.tpot_ms, 2))
        self.tps.set(_fmt(outcome.tok_s, 1))
        self.tokens.set(str(outcome.output_tokens) if outcome.output_tokens else "–")
        if outcome.tpot_ms is not None:
            self.tpot_line.setValue(outcome.tpot_ms)
            self.tpot_line.setVisible(True)
        if outcome.ok:
            note = ""
            if outcome.tokens_source != "usage":
                note = self.tr(" Token count estimated: the server sent no usage.")
            self._say(
                self.tr("Done: {n} tokens in {s:.2f} s.").format(
                    n=outcome.output_tokens, s=outcome.e2el_ms / 1000
                )
                + note
            )
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
        self._fit_range(*series.arrays())
        self._show_outcome(outcome)

    def _history_label(self, entry: ProbeHistoryEntry) -> str:
        o = entry.outcome
        if not o.ok:
            return self.tr("{when}  {profile}: failed ({kind})").format(
                when=entry.when, profile=entry.profile, kind=o.error_kind or "?"
            )
        return self.tr("{when}  {profile}: TTFT {ttft} ms · TPOT {tpot} ms · {n} tok").format(
            when=entry.when,
            profile=entry.profile,
            ttft=_fmt(o.ttft_ms, 0),
            tpot=_fmt(o.tpot_ms, 1),
            n=o.output_tokens,
        )

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #c62828;" if error else "")


def _fmt(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"
