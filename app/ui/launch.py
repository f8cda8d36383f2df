"""`tpotbench` with no command: the window on a qasync loop, or a screenshot of it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_API", "pyside6")  # qasync probes bindings; never pick up PyQt

import qasync
from PySide6.QtCore import QTimer, SignalInstance
from PySide6.QtWidgets import QApplication

from app.paths import CONFIG_ENV
from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup import (
    CrashHandler,
    create_application,
    freeze_long_lived,
    settings,
    setup_logging,
)
from app.ui.app_setup_i18n import SETTINGS_KEY, Translations, choose_language
from app.ui.app_setup_sim import SimulatorService
from app.ui.main_window import AppContext, MainWindow
from app.ui.panels.probe.outcome import ProbeOutcome
from app.ui.theme import follow_system

log = logging.getLogger(__name__)

SIM_START_TIMEOUT_S = 30.0
DEMO_TIMEOUT_S = 120.0
WORKER_GRACE_S = 20.0
SCREENSHOT_SIZE = (1400, 900)


class WindowManager:
    """Holds the MainWindow and switches its language in place (View > Language)."""

    def __init__(self, ctx: AppContext, translations: Translations) -> None:
        self.ctx = ctx
        self.translations = translations
        self.window = MainWindow(ctx)
        self.window.languageRequested.connect(self.switch_language)

    def switch_language(self, code: str) -> None:
        """Install the translators; Qt's LanguageChange makes every widget retranslate itself,
        so the session (probes, sweep, selections, unsaved settings) stays as it is."""
        self.ctx.settings.setValue(SETTINGS_KEY, code)
        language = choose_language(code or None, self.ctx.settings)
        if language == self.translations.language:
            return
        self.translations.install(language)
        self.ctx.language = language


def launch(args: argparse.Namespace) -> int:
    """Open the window (or take a screenshot with --screenshot FILE); returns the exit code."""
    problem = display_problem()
    if problem:
        print(f"tpotbench: {problem}", file=sys.stderr)
        return 2
    log_path = setup_logging()
    with demo_state(args):
        return _launch(args, log_path)


@contextlib.contextmanager
def demo_state(args: argparse.Namespace) -> Iterator[None]:
    """For `--screenshot --demo-sweep`, a fresh temporary config folder (profiles, settings,
    window state) for the run's length, so the picture shows what a new user sees and never
    the user's saved endpoints; the user's own folder is not read or written. Other modes run
    on the user's config as always."""
    if not (getattr(args, "screenshot", None) and getattr(args, "demo_sweep", False)):
        yield
        return
    before = os.environ.get(CONFIG_ENV)
    with tempfile.TemporaryDirectory(prefix="tpotbench-demo-config-") as tmp:
        os.environ[CONFIG_ENV] = tmp  # the worker child inherits it too
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(CONFIG_ENV, None)
            else:
                os.environ[CONFIG_ENV] = before


def _launch(args: argparse.Namespace, log_path: Path) -> int:
    app = create_application([sys.argv[0]])
    store = settings()
    translations = Translations(app)
    translations.install(choose_language(getattr(args, "lang", None), store))
    follow_system(app)
    screenshot = getattr(args, "screenshot", None)
    crash = CrashHandler(log_path, interactive=not screenshot)
    crash.install()
    app.setQuitOnLastWindowClosed(False)  # main() ends on our Event, not by Qt stopping the loop
    ctx = AppContext(
        store=ProfileStore(),
        keys=KeyStore(),
        settings=store,
        simulator=SimulatorService(),
        log_path=log_path,
        language=translations.language,
    )
    try:
        return run_on_qasync(_main(app, args, ctx, translations, crash))
    finally:
        ctx.simulator.stop()


def display_problem() -> str:
    """Qt aborts the process when it cannot reach a display; say so in one line instead."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return ""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return ""
    return (
        "no display to open the window on: run it in a desktop session, under "
        "'xvfb-run -a tpotbench ...', or with QT_QPA_PLATFORM=offscreen for --screenshot"
    )


def run_on_qasync(main: Coroutine[Any, Any, int]) -> int:
    """asyncio.run() for a qasync loop, without qasync.run()'s global loop policy.

    On Python 3.11 qasync.run() installs an event-loop policy for the whole process, so any
    other thread's asyncio.new_event_loop() (the embedded simulator's uvicorn thread) would
    get a Qt loop that cannot run off the GUI thread; setting the loop directly avoids that.
    """
    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(QApplication.instance())
    asyncio.set_event_loop(loop)
    try:
        return int(loop.run_until_complete(main))
    finally:
        try:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


async def _main(
    app: QApplication,
    args: argparse.Namespace,
    ctx: AppContext,
    translations: Translations,
    crash: CrashHandler,
) -> int:
    asyncio.get_running_loop().set_exception_handler(crash.asyncio_handler)
    closed = asyncio.Event()
    app.lastWindowClosed.connect(closed.set)
    manager = WindowManager(ctx, translations)
    screenshot = getattr(args, "screenshot", None)
    if screenshot:
        manager.window.resize(*(getattr(args, "size", None) or SCREENSHOT_SIZE))
    freeze_long_lived()  # the window built: out of every later full collection's walk
    manager.window.show()
    wakeup = close_on_signals(app)  # noqa: F841  (kept alive for the loop's lifetime)
    sim_task = asyncio.ensure_future(ctx.simulator.start())
    try:
        if screenshot:
            return await take_screenshot(
                manager.window, Path(screenshot), bool(getattr(args, "demo_sweep", False)), sim_task
            )
        await closed.wait()
        await _let_workers_finish(manager.window)
        return 0
    finally:
        if not sim_task.done():
            sim_task.cancel()
        ctx.simulator.stop()


def close_on_signals(app: QApplication) -> QTimer:
    """Ctrl-C in the terminal or SIGTERM from the session closes the window the normal way, so a
    running sweep is cancelled with its finished points saved and the simulator is stopped."""

    def handler(signum: int, frame: object) -> None:
        log.info("signal %s: closing the window", signum)
        QTimer.singleShot(0, app.closeAllWindows)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)
    # Python runs signal handlers only between bytecodes; a Qt loop idling in C++ would put them
    # off indefinitely, so a slow no-op timer hands control back to the interpreter.
    timer = QTimer()
    timer.timeout.connect(lambda: None)
    timer.start(250)
    return timer


async def _stop_metrics(window: MainWindow) -> None:
    """Stop the Server metrics dock's /metrics reader and let its connection close while the
    loop still runs (a request cut off by the loop's end left httpx callbacks without a loop)."""
    task = window.metrics.stop()
    if task is not None:
        await asyncio.wait([asyncio.wrap_future(task)], timeout=5)


async def _let_workers_finish(window: MainWindow) -> None:
    """After the window closed (which cancelled any run), give the workers their grace period
    so the engine writes run_finished and every finished point is on disk before we exit."""
    await _stop_metrics(window)
    for running, changed in (
        (window.sweep.is_running, window.sweep.runningChanged),
        (lambda: window.probe.running, window.probe.runningChanged),
    ):
        if running():
            await _wait_signal(changed, lambda r: not r, WORKER_GRACE_S)


async def _wait_signal(
    signal: SignalInstance, predicate: Callable[..., object], timeout_s: float
) -> bool:
    """Wait until `signal` fires with arguments for which predicate(*args) is true."""
    done = asyncio.Event()

    def fired(*values: object) -> None:
        if predicate(*values):
            done.set()

    signal.connect(fired)
    try:
        await asyncio.wait_for(done.wait(), timeout_s)
        return True
    except TimeoutError:
        return False
    finally:
        signal.disconnect(fired)


async def take_screenshot(
    window: MainWindow, path: Path, demo_sweep: bool, sim_task: asyncio.Future[str]
) -> int:
    """Run a short demo (a sweep with --demo-sweep, else a probe), save a PNG."""
    try:
        url = await asyncio.wait_for(sim_task, SIM_START_TIMEOUT_S)
    except TimeoutError:
        url = ""
    # A screenshot whose demo failed is a failed check (packaging/smoke.sh relies on this).
    failure = ""
    if not url:
        failure = "the built-in simulator did not start; the screenshot shows no run"
    elif demo_sweep:
        await _demo_sweep(window)
        failure = window.sweep.last_error
    else:
        outcomes: list[ProbeOutcome] = []
        window.probe.probeFinished.connect(outcomes.append)
        window.show_panel(window.probe)
        window.probe.start()
        await _wait_signal(window.probe.runningChanged, lambda running: not running, DEMO_TIMEOUT_S)
        if not (outcomes and outcomes[-1].ok):
            failure = "the demo probe against the built-in simulator produced no result"
    # Let the charts' 5 Hz repaint timer draw the last data before grabbing (two ticks).
    await asyncio.sleep(0.45)
    window.repaint()
    QApplication.processEvents()
    image = window.grab()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(path), "PNG"):
        print(f"tpotbench: could not write {path}", file=sys.stderr)
        return 1
    print(f"saved {path} ({image.width()}x{image.height()})")
    window.close()
    await _stop_metrics(window)
    if failure:
        print(f"tpotbench: {failure}", file=sys.stderr)
        return 1
    return 0


async def _demo_sweep(window: MainWindow) -> None:
    sweep = window.sweep
    window.show_panel(sweep)
    # A throwaway results folder: a screenshot must not litter the user's results.
    with tempfile.TemporaryDirectory(prefix="tpotbench-demo-") as tmp:
        sweep.form.apply_preset("demo")
        sweep.form.results_root.setText(tmp)
        sweep.form.concurrencies.setText("1, 4, 16, 32")
        sweep.form.num_prompts.setValue(32)
        finished = asyncio.ensure_future(
            _wait_signal(sweep.runningChanged, lambda running: not running, DEMO_TIMEOUT_S)
        )
        if sweep.run():
            await finished
        else:
            finished.cancel()
        await asyncio.sleep(0.5)  # the timer-driven charts paint their final frame
