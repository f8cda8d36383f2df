"""The QApplication: names, high-DPI, logging to a file, settings, and the crash dialog."""

from __future__ import annotations

import contextlib
import gc
import logging
import logging.handlers
import os
import sys
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import platformdirs
from PySide6.QtCore import QCoreApplication, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from app.paths import CONFIG_ENV, resources_dir

APP_NAME = "tpotbench"
DISPLAY_NAME = "TPOT Bench"
DESKTOP_ID = "io.github.tpotbench.TPOTBench"
LOG_ENV = "TPOTBENCH_LOG_DIR"

log = logging.getLogger(__name__)


def log_dir() -> Path:
    override = os.environ.get(LOG_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def setup_logging() -> Path:
    """Send the app's log records to a rotating file and return its path."""
    directory = log_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "tpotbench.log"
    root = logging.getLogger()
    for handler in root.handlers:
        if getattr(handler, "baseFilename", None) == str(path):
            return path
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path


def settings() -> QSettings:
    """QSettings for window state and last choices (never keys). Honours TPOTBENCH_CONFIG_DIR."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return QSettings(str(Path(override) / "settings.ini"), QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, APP_NAME, APP_NAME)


def create_application(argv: list[str] | None = None) -> QApplication:
    """Create (or reuse) the QApplication with the app's names, icon and DPI policy."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        app = existing
    else:
        # Fractional scale factors (125 %, 150 %) render sharp instead of rounding to 1x or 2x.
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
            Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
        )
        app = QApplication(argv if argv is not None else [sys.argv[0]])
    QCoreApplication.setOrganizationName(APP_NAME)
    QCoreApplication.setApplicationName(APP_NAME)
    QGuiApplication.setApplicationDisplayName(DISPLAY_NAME)
    QGuiApplication.setDesktopFileName(DESKTOP_ID)
    icon = resources_dir() / "icons" / "app" / "tpotbench.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    collect_on_gui_thread(app)
    return app


class GuiThreadCollector(QObject):
    """Python's cyclic garbage collector, run on the GUI thread only.

    Automatic collection starts in whichever thread happens to allocate. Unreachable cycles
    often hold Qt wrappers (every pyqtgraph plot is a web of them), and a collection on another
    thread (a simulator, an executor, the helper that waits for the simulator child) finalises
    them there: shiboken destroys plain QObjects on that thread with the interpreter lock
    released and queues QWidgets back to the GUI thread as pending calls, which then run at
    any bytecode boundary. That crashed (SIGSEGV in QApplication.topLevelWidgets) and
    deadlocked (the GIL against Qt's signal-slot mutex, "Garbage-collecting" in pyqtgraph's
    itemChange) the window tests. So automatic collection is switched off and a timer collects,
    with the interpreter's own thresholds, on the GUI thread at the top of the event loop.
    """

    def __init__(self, parent: QObject | None = None, interval_ms: int = 500) -> None:
        super().__init__(parent)
        self._threshold = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)

    def install(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()

    def uninstall(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()

    def check(self) -> None:
        """Collect the generations whose counts passed their thresholds, as gc would (not
        while collections are held: held_collections)."""
        if _holds:
            return
        g0, g1, g2 = gc.get_count()
        t0, t1, t2 = self._threshold
        if g0 > t0:
            generation = 0
            if g1 > t1:
                generation = 2 if g2 > t2 else 1
            gc.collect(generation)


def freeze_long_lived() -> None:
    """Collect, then put what survives out of the collector's reach (gc.freeze): called once
    the window is built, whose modules, widgets and charts live as long as it does. A full
    pass walks every object not frozen, and the window just built was most of them: 40-90 ms
    of the GUI thread in each folder read's collection (ResultsPanel._scan_in_background)
    and in each full pass of the GuiThreadCollector. Collected first, so no garbage is frozen;
    an object frozen here that dies later in a cycle waits for the next thaw (the Sweep tab
    thaws the heap at a sweep's end)."""
    gc.collect()
    gc.freeze()


_holds_lock = threading.Lock()
_holds = 0  # work under way that asked for no collection by the GUI thread's timer


@contextlib.contextmanager
def held_collections() -> Iterator[None]:
    """No collection by the GuiThreadCollector meanwhile (entered from any thread). For work
    that makes millions of objects on another thread (a folder read parsing thousands of
    files): they pile up in the youngest generation, and a collection of it on the GUI thread
    walked every one of them (a 60-73 ms hold at each timer tick of a 2,000-file read)."""
    global _holds
    with _holds_lock:
        _holds += 1
    try:
        yield
    finally:
        with _holds_lock:
            _holds -= 1


def collect_on_gui_thread(app: QCoreApplication) -> GuiThreadCollector:
    """Install a GuiThreadCollector owned by `app` (once); returns it."""
    existing = app.findChild(GuiThreadCollector)
    if existing is not None:
        return existing
    collector = GuiThreadCollector(app)
    collector.install()
    return collector


class CrashHandler:
    """sys.excepthook replacement: logs the traceback and shows a dialog naming the log file."""

    def __init__(self, log_path: Path, interactive: bool = True) -> None:
        self.log_path = log_path
        self.interactive = interactive
        self._showing = False
        self.count = 0

    def __call__(
        self,
        exc_type: type[BaseException],
        exc: BaseException,
        tb: TracebackType | None,
    ) -> None:
        self.count += 1
        log.error("unexpected error", exc_info=(exc_type, exc, tb))
        if not self.interactive or self._showing or QApplication.instance() is None:
            sys.stderr.write("".join(traceback.format_exception_only(exc_type, exc)))
            sys.stderr.write(f"(details in {self.log_path})\n")
            return
        self._showing = True
        try:
            QMessageBox.critical(
                None,
                QCoreApplication.translate("CrashHandler", "Unexpected error"),
                QCoreApplication.translate(
                    "CrashHandler",
                    "Something went wrong inside TPOT Bench: {error}\n\n"
                    "The details were written to the log file:\n{path}\n\n"
                    "Finished results are already saved. Please include the log file if you "
                    "report this.",
                ).format(error=f"{exc_type.__name__}: {exc}", path=self.log_path),
            )
        finally:
            self._showing = False

    def asyncio_handler(self, loop: object, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, BaseException):
            self(type(exc), exc, exc.__traceback__)
        else:
            log.error("asyncio: %s", context.get("message", context))

    def install(self) -> None:
        sys.excepthook = self
