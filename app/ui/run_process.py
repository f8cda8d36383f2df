"""Runs `tpotbench sweep|search --config -` (the run's RunConfig as JSON on its stdin) or
`tpotbench probe --events jsonl` as a child process and turns its events into Qt signals.

The engine stamps every token in its own process, so nothing the window paints can delay a
timestamp; this side only reads lines and forwards them.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import (
    QCoreApplication,
    QMetaMethod,
    QObject,
    QProcess,
    QProcessEnvironment,
    QTimer,
    Signal,
)

from app.bench.schema.run_config import RunConfig
from app.bench.sweep.contract import EVENT_CLASSES, EventError, RunError, RunFinished
from app.bench.sweep.event_decode import decode
from app.commands.argv import KEY_ENV, sweep_command
from app.commands.run_args import config_json
from app.profiles import Target

# Variables the engine would fall back to; removed so a key meant for another endpoint never leaks.
_FALLBACK_KEY_ENVS = ("OPENAI_API_KEY", "API_KEY")
MAX_LINE_BYTES = 64 * 1024 * 1024


def signal_name(kind: str) -> str:
    """The RunProcess signal that carries events of `kind`: its camelCase ("point_finished" ->
    pointFinished), so an event's signal follows from its class (an `error` is errorMessage)."""
    head, *rest = kind.split("_")
    return head + "".join(word.title() for word in rest)


# Every kind but `error`, whose sentence goes out as errorMessage(str).
_TYPE_PREFIX = b'{"type":"'
_SIGNALS = {cls.kind: signal_name(cls.kind) for cls in EVENT_CLASSES if cls is not RunError}


class RunProcess(QObject):
    """Owns one worker process: a `tpotbench sweep`/`search` (start) or a probe (start_probe).

    Signals:
        runStarted, pointStarted, tokens, progress, request, pointFinished, serverMetrics,
        runFinished, searchValue, searchFinished: the engine's events, each the typed object
        of app.bench.sweep.contract (RunStarted, PointStarted, Tokens, ...); one per event
        class, named after its `kind` (signal_name), which is how _dispatch finds it.
        errorMessage(str): a readable one-line problem (an engine `error` event, a worker that
            could not start or died). The sweep's finished points are already on disk.
        stopped(): the process is gone; emitted exactly once per start().
    """

    runStarted = Signal(object)
    pointStarted = Signal(object)
    tokens = Signal(object)
    progress = Signal(object)
    request = Signal(object)
    pointFinished = Signal(object)
    serverMetrics = Signal(object)
    runFinished = Signal(object)
    searchValue = Signal(object)
    searchFinished = Signal(object)
    errorMessage = Signal(str)
    stopped = Signal()

    def __init__(self, parent: QObject | None = None, *, cancel_grace_ms: int = 15_000) -> None:
        super().__init__(parent)
        self.cancel_grace_ms = cancel_grace_ms
        self._process: QProcess | None = None
        self._stderr_tail: deque[str] = deque(maxlen=20)
        self._buffer = b""
        self._run_finished = False
        self._cancelling = False
        self._terminated = False  # the grace period ran out once: the next step is kill()
        self._error_reported = False
        self._result_dir = ""
        self._kill_timer = QTimer(self)
        self._kill_timer.setSingleShot(True)
        self._kill_timer.timeout.connect(self._escalate)
        self.bad_lines = 0
        self.unread_lines = 0  # events of a kind nothing is connected to, not decoded
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    def is_running(self) -> bool:
        return self._process is not None

    def start(
        self, config: RunConfig, target: Target, *, argv: Sequence[str] | None = None
    ) -> None:
        """Start a sweep or search: the config goes on the worker's stdin, its key only in
        the worker's environment (from `target`); `argv` overrides the command line (tests,
        benchmarks)."""
        command = list(argv) if argv is not None else sweep_command(config)
        stdin = (config_json(config) + "\n").encode("utf-8")
        self._launch(command, target, result_dir=config.output.result_dir, stdin=stdin)

    def start_probe(self, target: Target, argv: Sequence[str]) -> None:
        """Start a probe: one request, its own command line, nothing saved to a folder."""
        self._launch(list(argv), target, result_dir="")

    def _launch(
        self, command: list[str], target: Target, *, result_dir: str, stdin: bytes = b""
    ) -> None:
        if self._process is not None:
            raise RuntimeError("a sweep is already running")
        env = QProcessEnvironment.systemEnvironment()
        for name in (*_FALLBACK_KEY_ENVS, KEY_ENV):
            env.remove(name)
        if target.api_key:
            env.insert(KEY_ENV, target.api_key)
        env.insert("PYTHONUNBUFFERED", "1")
        env.insert("PYTHONIOENCODING", "utf-8")
        # The worker must import `app` from the same place as the window (a checkout or a bundle).
        root = str(Path(__file__).resolve().parents[2])
        env.insert("PYTHONPATH", os.pathsep.join(p for p in (root, env.value("PYTHONPATH")) if p))
        self._stderr_tail.clear()
        self._buffer = b""
        self._run_finished = self._cancelling = self._error_reported = False
        self._result_dir = result_dir
        self.bad_lines = self.unread_lines = 0
        proc = QProcess(self)
        proc.setProcessEnvironment(env)
        proc.readyReadStandardOutput.connect(self._read_stdout)
        proc.readyReadStandardError.connect(self._read_stderr)
        proc.finished.connect(self._on_finished)
        proc.errorOccurred.connect(self._on_error)
        self._process = proc
        proc.start(command[0], command[1:])
        if stdin:  # queued by Qt until the process has started; "cancel" lines come after it
            proc.write(stdin)

    def cancel(self) -> None:
        """Ask the engine to stop (it saves finished points); force it after the grace period."""
        proc = self._process
        if proc is None or self._cancelling:
            return
        self._cancelling = True
        if proc.state() == QProcess.ProcessState.Running:
            proc.write(b"cancel\n")
        self._kill_timer.start(self.cancel_grace_ms)

    def shutdown(self, wait_ms: int = 8_000) -> None:
        """Blocking stop for app exit: ask the engine to cancel (it saves the point in progress),
        wait up to `wait_ms`, then kill it; never leaves an orphan worker behind."""
        proc = self._process
        if proc is None:
            return
        self._cancelling = True
        if proc.state() == QProcess.ProcessState.Running:
            proc.write(b"cancel\n")
            if not proc.waitForFinished(wait_ms):
                proc.kill()
                proc.waitForFinished(2_000)
        if self._process is not None:  # finished() was not delivered: clean up here
            self._on_finished(proc.exitCode(), proc.exitStatus())

    def _escalate(self) -> None:
        proc = self._process
        if proc is None:
            return
        if not self._terminated:
            self._terminated = True
            proc.terminate()
            self._kill_timer.start(3_000)
        else:
            proc.kill()

    def _read_stdout(self) -> None:
        proc = self._process
        if proc is None:
            return
        self._buffer += bytes(proc.readAllStandardOutput().data())
        *lines, self._buffer = self._buffer.split(b"\n")
        if len(self._buffer) > MAX_LINE_BYTES:  # a runaway line: drop it rather than grow
            self._buffer = b""
            self.bad_lines += 1
        for raw in lines:
            self._dispatch(raw)

    def _dispatch(self, raw: bytes) -> None:
        if not raw.strip():
            return
        if not self._wanted(raw):
            self.unread_lines += 1
            return
        try:
            event = decode(raw)
        except EventError:
            self.bad_lines += 1
            self._stderr_tail.append(raw.decode("utf-8", "replace")[:300])
            return
        if isinstance(event, RunFinished):
            self._run_finished = True
        if isinstance(event, RunError):
            self._error_reported = True
            self.errorMessage.emit(event.message or "The sweep failed.")
            return
        getattr(self, _SIGNALS[event.kind]).emit(event)  # unknown types are refused by decode

    def _wanted(self, raw: bytes) -> bool:
        """False for an event nobody listens to (a probe has no use for request events):
        decoding it would be work for nothing. The kind is read from the line's start, where
        the writer always puts "type"; anything else is decoded, and refused there if bad."""
        if not raw.startswith(_TYPE_PREFIX):
            return True
        kind = raw[len(_TYPE_PREFIX) : raw.find(b'"', len(_TYPE_PREFIX))].decode("ascii", "replace")
        name = _SIGNALS.get(kind)
        if name is None or kind == RunFinished.kind:  # run_finished also ends the run here
            return True
        return self.isSignalConnected(QMetaMethod.fromSignal(getattr(self, name)))

    def _read_stderr(self) -> None:
        proc = self._process
        if proc is None:
            return
        text = bytes(proc.readAllStandardError().data()).decode("utf-8", "replace")
        for line in text.replace("\r", "\n").splitlines():
            if line.strip():
                self._stderr_tail.append(line.strip()[:300])

    def _last_problem(self) -> str:
        for line in reversed(self._stderr_tail):
            if not line.startswith(("Traceback", "  ")):
                return line
        return ""

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart and self._process is not None:
            self._report(
                self.tr("The benchmark worker could not start ({0}).").format(
                    self._process.errorString()
                )
            )
            self._cleanup()

    def _report(self, message: str) -> None:
        if not self._error_reported:
            self._error_reported = True
            self.errorMessage.emit(message)

    def _on_finished(self, exit_code: int, status: QProcess.ExitStatus) -> None:
        proc = self._process
        if proc is None:
            return
        self._read_stdout()
        if self._buffer.strip():
            self._dispatch(self._buffer)
            self._buffer = b""
        self._read_stderr()
        if not self._run_finished and not self._cancelling:
            detail = self._last_problem()
            if status == QProcess.ExitStatus.CrashExit:
                message = self.tr("The benchmark worker crashed.")
            else:
                message = self.tr("The benchmark worker stopped with exit code {0}.").format(
                    exit_code
                )
            if detail:
                message += " " + detail
            if self._result_dir:
                message += " " + self.tr("Finished points are saved in {0}.").format(
                    self._result_dir
                )
            self._report(message)
        elif self._cancelling and not self._run_finished:
            # Cancelled and forced to stop: tell the panel the run is over (points kept on disk).
            self.runFinished.emit(RunFinished(True, (), None))
        self._cleanup()

    def _cleanup(self) -> None:
        self._kill_timer.stop()
        self._terminated = False
        proc, self._process = self._process, None
        if proc is not None:
            proc.deleteLater()
            self.stopped.emit()
