"""The "Check connection" panel: the doctor's ordered checklist with a fix for each problem."""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.bench.doctor.run import CHECK_IDS, Check, DoctorReport, DoctorTarget, diagnose
from app.ui.panels.doctor.messages import translate_check
from app.ui.retranslate import Message, TextSource, is_language_change

# Okabe-Ito colours: distinguishable with colour-blindness, readable on light and dark.
_STYLE = {
    "ok": ("✔", "#009E73"),
    "warn": ("⚠", "#E69F00"),
    "fail": ("✖", "#D55E00"),
    "skip": ("–", "#999999"),
    "pending": ("○", "#999999"),
    "running": ("…", "#0072B2"),
}


def status_words() -> dict[str, str]:
    """The status shown beside each check, in the UI language."""
    return {
        "ok": QCoreApplication.translate("DoctorPanel", "passed"),
        "warn": QCoreApplication.translate("DoctorPanel", "warning"),
        "fail": QCoreApplication.translate("DoctorPanel", "failed"),
        "skip": QCoreApplication.translate("DoctorPanel", "skipped"),
        "pending": QCoreApplication.translate("DoctorPanel", "not run"),
        "running": QCoreApplication.translate("DoctorPanel", "checking"),
    }


def check_explanations() -> dict[str, str]:
    """What each check looks at, one line in the UI language."""
    return {
        "reachable": QCoreApplication.translate(
            "DoctorPanel", "Does the host answer at all: DNS, connection, TLS, time-out."
        ),
        "auth": QCoreApplication.translate(
            "DoctorPanel", "Is the API key sent and accepted (401/403 means no)."
        ),
        "path": QCoreApplication.translate(
            "DoctorPanel", "Is the URL right: with or without /v1, /api versus /api/v1 (404/405)."
        ),
        "model": QCoreApplication.translate(
            "DoctorPanel", "Does the server serve the model id you entered."
        ),
        "body": QCoreApplication.translate(
            "DoctorPanel", "Does a reply contain 'choices' (chat versus completions endpoint)."
        ),
        "streaming": QCoreApplication.translate(
            "DoctorPanel", "Do tokens stream as SSE chunks, end with [DONE] and report usage."
        ),
        "metrics": QCoreApplication.translate(
            "DoctorPanel", "Is /metrics readable: which server it is and its KV-cache size."
        ),
    }


class _Row:
    """One check's line: icon, title and status word, what it checks, detail and the fix.

    Everything is in the UI language: the engine's detail and fix sentences are translated
    from their templates (doctor_messages); "Copy report" keeps the engine's English.
    """

    def __init__(self, grid: QGridLayout, row: int, title: str, explanation: str) -> None:
        self.check: Check | None = None  # the last result, re-translated on a language change
        self.note: TextSource = ""
        self.icon = QLabel()
        self.icon.setFixedWidth(22)
        self.icon.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        self.title_text = title
        self.title = QLabel()
        self.title.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.title.setToolTip(explanation)
        self.explanation = QLabel(explanation)
        self.explanation.setWordWrap(True)
        muted = self.explanation.palette()
        muted.setColor(
            QPalette.ColorRole.WindowText, muted.color(QPalette.ColorRole.PlaceholderText)
        )
        self.explanation.setPalette(muted)
        self.detail = QLabel()
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fix = QLabel()
        self.fix.setWordWrap(True)
        self.fix.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text = QVBoxLayout()
        text.setSpacing(2)
        text.addWidget(self.explanation)
        text.addWidget(self.detail)
        text.addWidget(self.fix)
        top = Qt.AlignmentFlag.AlignTop
        grid.addWidget(self.icon, row, 0, top)
        grid.addWidget(self.title, row, 1, top)
        grid.addLayout(text, row, 2, top)
        self.status = "pending"
        self.set("pending", "")

    def show_check(self, check: Check) -> None:
        self.check = check
        detail, fix = translate_check(check)
        label = QCoreApplication.translate("DoctorPanel", "Fix:")
        self.set(check.status, detail, fix, label)
        self.check = check

    def retranslate(self, title: str, explanation: str) -> None:
        self.title_text = title
        self.title.setToolTip(explanation)
        self.explanation.setText(explanation)
        if self.check is not None:
            self.show_check(self.check)
        else:
            self.set(self.status, self.note)

    def set(self, status: str, detail: TextSource, fix: str = "", fix_label: str = "") -> None:
        self.check = None
        self.note = detail
        detail = detail() if callable(detail) else detail
        self.status = status
        glyph, colour = _STYLE[status]
        self.icon.setText(f"<span style='color:{colour}; font-size:14pt'>{glyph}</span>")
        word = html.escape(status_words()[status])
        self.title.setText(
            f"<b>{html.escape(self.title_text)}</b><br><span style='color:{colour}'>{word}</span>"
        )
        self.detail.setText(detail)
        self.detail.setVisible(bool(detail))
        self.fix.setText(f"<i>{fix_label} {fix}</i>" if fix else "")
        self.fix.setVisible(bool(fix))


class DoctorPanel(QWidget):
    """Runs the doctor against the current target and shows each check as it is decided.

    Signals:
        finished(object): the DoctorReport (None if it could not run).
        runningChanged(bool): a check run started or ended.
    """

    finished = Signal(object)
    runningChanged = Signal(bool)

    def __init__(
        self,
        target_provider: Callable[[], Any],
        parent: QWidget | None = None,
        key_source: Callable[[], str] | None = None,
    ) -> None:
        """`key_source` says where the key in the target came from (report.PROFILE_SOURCE or
        TYPED_SOURCE); None: from the profile when the target names one."""
        super().__init__(parent)
        self._target_provider = target_provider
        self._key_source = key_source
        self._task: asyncio.Task[None] | None = None
        # A closure over the set, not over self: it runs while the C++ object is going away.
        tasks: set[asyncio.Task[None]] = set()
        self._tasks = tasks
        self.destroyed.connect(lambda *_: [t.cancel() for t in list(tasks)])
        self.report: DoctorReport | None = None
        self.timeout_s = 5.0

        self.button = QPushButton()
        self.button.clicked.connect(self._toggle)
        self.copy_button = QPushButton()
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self._copy)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary_text = Message(lambda text, _error: self.summary.setText(text))
        self.summary_text.set(
            lambda: self.tr("Checks the endpoint in the order the field guide advises: reachable, "
                            "key, path, model, response body, streaming, server metrics.")
        )  # fmt: skip

        titles = self._titles()
        box = QFrame()
        box.setFrameShape(QFrame.Shape.StyledPanel)
        grid = QGridLayout(box)
        grid.setColumnStretch(2, 1)
        grid.setVerticalSpacing(10)
        explanations = check_explanations()
        self.rows = {
            cid: _Row(grid, i, titles[cid], explanations[cid]) for i, cid in enumerate(CHECK_IDS)
        }

        buttons = QHBoxLayout()
        buttons.addWidget(self.button)
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.summary)
        layout.addWidget(box)
        layout.addStretch(1)
        self.retranslate()

    def _titles(self) -> dict[str, str]:
        return {
            "reachable": self.tr("Server reachable"),
            "auth": self.tr("API key"),
            "path": self.tr("URL path"),
            "model": self.tr("Model"),
            "body": self.tr("Response body"),
            "streaming": self.tr("Streaming"),
            "metrics": self.tr("Server metrics"),
        }

    def retranslate(self) -> None:
        """Titles, explanations, the results shown and the summary in the UI language."""
        self.button.setText(self.tr("Cancel") if self.running else self.tr("Check connection"))
        self.copy_button.setText(self.tr("Copy report"))
        titles = self._titles()
        explanations = check_explanations()
        for cid, row in self.rows.items():
            row.retranslate(titles[cid], explanations[cid])
        self.summary_text.refresh()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    # -- running -----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The running check (a handle to cancel or await)."""
        return self._task

    def start(self) -> None:
        """Run the checks on the current asyncio (qasync) loop."""
        if self.running:
            return
        self.report = None
        self.copy_button.setEnabled(False)
        for row in self.rows.values():
            row.set("pending", "")
        self._task = asyncio.ensure_future(self._run())
        self._tasks.add(self._task)
        self._task.add_done_callback(self._tasks.discard)
        self.button.setText(self.tr("Cancel"))
        self.runningChanged.emit(True)

    def cancel(self) -> None:
        if self.running and self._task is not None:
            self._task.cancel()

    def _toggle(self) -> None:
        if self.running:
            self.cancel()
        else:
            self.start()

    async def _run(self) -> None:
        result: DoctorReport | None = None
        try:
            target = DoctorTarget.from_target(self._target_provider())
            if self._key_source is not None and target.api_key:
                target.key_source = self._key_source()
            url = target.base_url
            self.summary_text.set(lambda: self.tr("Checking {0} …").format(url))
            self.rows["reachable"].set("running", lambda: self.tr("checking…"))
            report = await diagnose(target, timeout_s=self.timeout_s, on_check=self._on_check)
        except asyncio.CancelledError:
            if not shiboken6.isValid(self):
                raise  # the panel was destroyed mid-check: nothing left to show
            for row in self.rows.values():
                if row.status in ("pending", "running"):
                    row.set("skip", lambda: self.tr("cancelled"))
            self.summary_text.set(lambda: self.tr("Check cancelled."))
        except Exception as exc:  # a bad URL, a missing profile: say it, don't crash the window
            problem = str(exc)
            self.summary_text.set(
                lambda: self.tr("Cannot check this endpoint: {0}").format(problem)
            )
            for row in self.rows.values():
                row.set("pending", "")
        else:
            self.report = report
            result = report
            self.summary_text.set(lambda: self._verdict(report))
            self.copy_button.setEnabled(True)
        self.button.setText(self.tr("Check connection"))
        self.runningChanged.emit(False)
        self.finished.emit(result)

    def _on_check(self, check: Check) -> None:
        self.rows[check.id].show_check(check)
        following = CHECK_IDS.index(check.id) + 1
        if following < len(CHECK_IDS) and self.rows[CHECK_IDS[following]].status == "pending":
            self.rows[CHECK_IDS[following]].set("running", lambda: self.tr("checking…"))

    def _verdict(self, report: DoctorReport) -> str:
        failed = [c for c in report.checks if c.status == "fail"]
        warned = [c for c in report.checks if c.status == "warn"]
        if failed:
            text = self.tr("{0} check(s) failed; start with the first one.").format(len(failed))
        elif warned:
            text = self.tr("Works, with {0} warning(s).").format(len(warned))
        else:
            text = self.tr("All checks passed.")
        return f"{text}  {report.resolved_url}"

    def _copy(self) -> None:
        if self.report is not None:
            text = self.report.json_text()
            QGuiApplication.clipboard().setText(text)

    def statuses(self) -> dict[str, str]:
        return {cid: row.status for cid, row in self.rows.items()}
