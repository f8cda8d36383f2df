"""The main window: endpoints on the left, Probe/Sweep/Results/Doctor tabs, roofline docks."""

from __future__ import annotations

import asyncio
import importlib
import logging
import math
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import PySide6
from PySide6.QtCore import QEvent, QSettings, Qt, QTimer, Signal, qVersion
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QWidget,
)

from app import __version__
from app.commands.sweep_flags import ROOFLINE_FLAGS, roofline_args
from app.profiles import ProfileStore, Target
from app.secrets import KeyStore
from app.ui.app_setup_sim import SimulatorService
from app.ui.exports import report as report_export
from app.ui.panels.endpoints.editor import EndpointEditor, display_name
from app.ui.panels.probe.panel import ProbePanel
from app.ui.retranslate import is_language_change
from app.ui.theme import apply_plot_theme

log = logging.getLogger(__name__)

# Method names tried, in order, on the current tab's panel for Run / Cancel / Export.
RUN_METHODS = ("start", "run", "start_sweep", "run_diagnosis")
CANCEL_METHODS = ("stop", "cancel")
EXPORT_METHODS = ("export", "export_dialog", "_export_data_dialog")


@dataclass
class AppContext:
    """What the window is built from: profiles, keys, settings, the simulator, the language."""

    store: ProfileStore
    keys: KeyStore
    settings: QSettings
    simulator: SimulatorService
    log_path: Path | None = None
    language: str = "en"
    panel_errors: dict[str, str] = field(default_factory=dict)


def load_panel(module: str, cls: str, *args: Any) -> QWidget | None:
    """Build another helper's panel; None (and nothing shown) while its module is absent."""
    try:
        mod = importlib.import_module(f"app.ui.{module}")
        return getattr(mod, cls)(*args)
    except ImportError as exc:
        log.info("panel %s not available: %s", module, exc)
    except Exception:  # a broken panel must not keep the window from opening
        log.exception("panel %s failed to build", module)
    return None


def scrollable(widget: QWidget, max_width: int, max_height: int) -> QWidget:
    """Wrap a panel whose minimum size would force the window past a 1366x768 screen.

    Only such panels: a scroll area sizes its content by height-for-width, which would give
    a panel with wrapped labels a scroll bar even when it fits.
    """
    minimum = widget.minimumSizeHint()
    if minimum.width() <= max_width and minimum.height() <= max_height:
        return widget
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidget(widget)
    return area


# Saved with the dock state; bump it when the default dock arrangement changes.
LAYOUT_VERSION = 2


def default_size(available: tuple[int, int]) -> tuple[int, int]:
    """First-run window size: 1400x900, or what fits the screen with room for its panels."""
    width, height = available
    return min(1400, max(1024, int(width * 0.95))), min(900, max(640, int(height * 0.92)))


def dock_widths(window_width: int) -> tuple[int, int]:
    """Endpoints and Roofline dock widths; the tabs in the middle get the rest."""
    left = min(340, max(280, round(window_width * 0.21)))
    right = min(440, max(340, round(window_width * 0.27)))
    return left, right


def _inner(widget: QWidget) -> QWidget:
    return widget.widget() if isinstance(widget, QScrollArea) else widget


class MainWindow(QMainWindow):
    """Signals:
    languageRequested(str): "", "en" or "zh_CN" picked in View > Language.
    """

    languageRequested = Signal(str)

    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("MainWindow")
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
        )

        self.editor = EndpointEditor(ctx.store, ctx.keys, lambda: ctx.simulator.base_url)
        self.editor.currentChanged.connect(self._on_profile_changed)
        self.editor.profileSaved.connect(lambda _name: self._update_status())
        # The status bar names the URL a run would use, unsaved edits included.
        self.editor.dirtyChanged.connect(lambda _dirty: self._update_status())
        self.editor.url_edit.textEdited.connect(lambda _text: self._update_status())
        self.editor.profileSaved.connect(lambda _name: self._watch_metrics())
        self._metrics_key: tuple[object, ...] | None = None
        self._server_running: float | None = None
        self._live_timer = QTimer(self)
        self._live_timer.setInterval(1000)
        self._live_timer.timeout.connect(self._live_roofline)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.editor)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setMinimumWidth(280)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.endpoints_dock = self._dock_raw(
            "endpoints", "", scroll, Qt.DockWidgetArea.LeftDockWidgetArea
        )

        self.tabs = QTabWidget()
        self.tabs.setObjectName("mainTabs")
        self.tabs.setDocumentMode(True)
        self.probe = ProbePanel(self.current_target)
        self.sweep = load_panel("panels.sweep.panel", "SweepPanel", self.current_target)
        self.results = load_panel("panels.results.panel", "ResultsPanel")
        self.doctor = load_panel("panels.doctor.panel", "DoctorPanel", self.current_target)
        for name, panel in (
            ("probePanel", self.probe),
            ("sweepPanel", self.sweep),
            ("resultsPanel", self.results),
            ("doctorPanel", self.doctor),
        ):
            if panel is not None:
                panel.setObjectName(name)  # tab restore must not depend on the UI language
                self.tabs.addTab(scrollable(panel, 700, 560), "")
        self.setCentralWidget(self.tabs)

        self.roofline = load_panel("panels.roofline.panel", "RooflinePanel")
        self.roofline_dock = None
        if self.roofline is not None:
            self.roofline_dock = self._dock(
                "roofline",
                "",
                self.roofline,
                Qt.DockWidgetArea.RightDockWidgetArea,
            )
        self.metrics = load_panel("panels.server_metrics.panel", "ServerMetricsPanel")
        self.metrics_dock = None
        if self.metrics is not None:
            self.metrics_dock = self._dock(
                "serverMetrics",
                "",
                self.metrics,
                Qt.DockWidgetArea.RightDockWidgetArea,
            )

        if self.roofline_dock is not None and self.metrics_dock is not None:
            # Stacked, each got half the height: too little for three time-series charts.
            self.tabifyDockWidget(self.roofline_dock, self.metrics_dock)
            self.roofline_dock.raise_()
        self._wire_panels()
        if self.results is not None and hasattr(self.results, "export_data_button"):
            # File > Export owns Ctrl+E; the same shortcut on a button would make both ambiguous.
            self.results.export_data_button.setShortcut(QKeySequence())
        self._build_menus()
        self._build_status_bar()
        self.retranslate()
        ctx.simulator.started.connect(self._on_simulator_started)
        ctx.simulator.failed.connect(self._on_simulator_failed)
        self.restore_state()
        self._on_profile_changed(self.editor.current_name())
        if ctx.store.load_warning:
            self.statusBar().showMessage(ctx.store.load_warning, 15000)
        apply_plot_theme(self)

    # ---- building ----

    def _dock(self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        # The right-hand docks are tabbed and get the window's full height.
        return self._dock_raw(name, title, scrollable(widget, 420, 520), area)

    def _dock_raw(
        self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea
    ) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"{name}Dock")  # saveState() keys docks by object name
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _wire_panels(self) -> None:
        if self.sweep is not None:
            if self.roofline is not None and hasattr(self.sweep, "pointFinished"):
                self.sweep.pointFinished.connect(self._on_point_finished)
            if self.metrics is not None and hasattr(self.sweep, "serverMetrics"):
                # The dock reads /metrics itself, on one clock for the whole sweep; the worker
                # scrapes too, for the series and summary each point's file keeps.
                extra = getattr(self.sweep, "extra_args", None)
                if isinstance(extra, list) and "--server-metrics" not in extra:
                    extra.append("--server-metrics")
                self.sweep.pointStarted.connect(self.metrics.mark)
                self.metrics.sampled.connect(self._on_server_sample)
            if hasattr(self.sweep, "runningChanged"):
                self.sweep.runningChanged.connect(self._on_run_state)
            refresh = next(
                (
                    getattr(self.results, n)
                    for n in ("refresh", "reload")
                    if callable(getattr(self.results, n, None))
                ),
                None,
            )
            if refresh is not None and hasattr(self.sweep, "pointFinished"):
                self.sweep.pointFinished.connect(lambda _summary: refresh())
        if self.metrics is not None:
            self.probe.runningChanged.connect(self._on_run_state)
        if self.roofline is not None:
            if hasattr(self.roofline, "contextChanged"):
                self.roofline.contextChanged.connect(self._on_roofline_context)
            self._sync_roofline_args()
            self.probe.probeFinished.connect(self._on_probe_finished)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("")
        self.export_action = QAction(self)
        self.export_action.setShortcut(QKeySequence("Ctrl+E"))
        self.export_action.triggered.connect(self.export_current)
        self.file_menu.addAction(self.export_action)
        self.export_report_action = QAction(self)
        self.export_report_action.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.export_report_action.triggered.connect(self.export_report)
        self.file_menu.addAction(self.export_report_action)
        self.file_menu.addSeparator()
        self.quit_action = QAction(self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.file_menu.addAction(self.quit_action)

        self.run_menu = bar.addMenu("")
        self.run_action = QAction(self)
        self.run_action.setShortcut(QKeySequence("Ctrl+R"))
        self.run_action.triggered.connect(self.run_current)
        self.cancel_action = QAction(self)
        self.cancel_action.setShortcuts([QKeySequence("Esc"), QKeySequence("Ctrl+.")])
        self.cancel_action.triggered.connect(self.cancel_current)
        self.run_menu.addAction(self.run_action)
        self.run_menu.addAction(self.cancel_action)

        self.view_menu = bar.addMenu("")
        for dock in (self.endpoints_dock, self.roofline_dock, self.metrics_dock):
            if dock is not None:
                self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addSeparator()
        self.language_menu = self.view_menu.addMenu("")
        group = QActionGroup(self)
        saved = str(self.ctx.settings.value("ui/language", "") or "")
        # Each language is named in itself so a user can find their own in any UI language.
        self.language_actions: dict[str, QAction] = {}
        for code, label in (("", ""), ("en", "English"), ("zh_CN", "简体中文")):
            action = QAction(label, self, checkable=True)
            action.setData(code)
            action.setChecked(code == saved)
            group.addAction(action)
            self.language_menu.addAction(action)
            action.triggered.connect(lambda _c=False, c=code: self._request_language(c))
            self.language_actions[code] = action

        self.help_menu = bar.addMenu("")
        self.about_action = QAction(self)
        self.about_action.triggered.connect(self.show_about)
        self.help_menu.addAction(self.about_action)

    def retranslate(self) -> None:
        """Every fixed string of the window itself; panels retranslate themselves."""
        self.endpoints_dock.setWindowTitle(self.tr("Endpoints"))
        if self.roofline_dock is not None:
            self.roofline_dock.setWindowTitle(self.tr("Roofline"))
        if self.metrics_dock is not None:
            self.metrics_dock.setWindowTitle(self.tr("Server metrics"))
        titles = {
            "probePanel": self.tr("Probe"),
            "sweepPanel": self.tr("Sweep"),
            "resultsPanel": self.tr("Results"),
            "doctorPanel": self.tr("Doctor"),
        }
        for index in range(self.tabs.count()):
            name = _inner(self.tabs.widget(index)).objectName()
            if name in titles:
                self.tabs.setTabText(index, titles[name])
        self.file_menu.setTitle(self.tr("&File"))
        self.export_action.setText(self.tr("&Export…"))
        self.export_report_action.setText(self.tr("Export &report…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.run_menu.setTitle(self.tr("&Run"))
        self.run_action.setText(self.tr("&Run"))
        self.cancel_action.setText(self.tr("&Cancel"))
        self.view_menu.setTitle(self.tr("&View"))
        self.language_menu.setTitle(self.tr("&Language"))
        self.language_actions[""].setText(self.tr("System default"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.about_action.setText(self.tr("&About TPOT Bench"))
        self._update_status()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def _build_status_bar(self) -> None:
        self.endpoint_status = QLabel()
        self.keyring_status = QLabel()
        self.statusBar().addWidget(self.endpoint_status, 1)
        if self.metrics is not None:
            self.metrics_status = QLabel()
            self.metrics.statusTextChanged.connect(self.metrics_status.setText)
            self.statusBar().addPermanentWidget(self.metrics_status)
        self.statusBar().addPermanentWidget(self.keyring_status)
        self._update_status()

    # ---- targets and status ----

    def current_target(self) -> Target:
        """The selected endpoint as the editor shows it (unsaved edits included), with the
        simulator's live URL; ProfileError (a ValueError) if the form cannot be used."""
        return self.editor.form_target(self.ctx.simulator.base_url)

    def _update_status(self) -> None:
        profile = self.editor.current_profile()
        if profile.kind == "simulator":
            sim = self.ctx.simulator
            if sim.base_url:
                where = self.tr("simulator running at {url}").format(url=sim.base_url)
            elif sim.error:
                where = self.tr("simulator failed to start: {error}").format(error=sim.error)
            else:
                where = self.tr("simulator starting…")
        else:
            where = profile.base_url
            if self.editor.is_dirty():
                where = self.tr("{url}, unsaved edits").format(url=self.editor.url_edit.text())
        self.endpoint_status.setText(
            self.tr("Endpoint: {name} ({where})").format(
                name=display_name(profile.name), where=where
            )
        )
        # Qt appends the application name: the title reads "<endpoint> — TPOT Bench".
        self.setWindowTitle(display_name(profile.name))
        status = self.ctx.keys.status()
        self.keyring_status.setText(
            self.tr("Keyring: {backend}").format(backend=status.backend)
            if status.secure
            else self.tr("Keyring: none (keys kept for this session only)")
        )
        self.keyring_status.setToolTip(status.message)

    def _on_simulator_started(self, _url: str) -> None:
        self.editor.simulator_url_changed()
        self._update_status()
        self._watch_metrics()

    def _watch_metrics(self) -> None:
        """Point the Server metrics dock at the selected endpoint (a new timeline per endpoint)."""
        if getattr(self, "metrics", None) is None:
            return
        target = self.current_target()
        key = (target.base_url, target.api, target.model, bool(target.api_key), target.verify_tls)
        if key == self._metrics_key:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # a window built outside the app (a test without a loop): no background reads
        self._metrics_key = key
        if target.base_url:
            self.metrics.start(target)
        else:
            self.metrics.stop()
            self.metrics.clear()

    def _on_server_sample(self, sample: dict) -> None:
        running = sample.get("running")
        if isinstance(running, float) and math.isfinite(running):
            self._server_running = running

    def _live_roofline(self) -> None:
        """Once a second during a sweep: the Rolling TPOT chart's floor for the batch the
        server runs now, and the live point on the roofline panel at that batch."""
        if self.sweep is None or self.roofline is None or not self.sweep.is_running():
            return
        live = self.sweep.live
        has_metrics = self.metrics is not None and self.metrics.sample_count() > 0
        if self._server_running is not None and self._server_running >= 1:
            batch = self._server_running
            source = self.tr("batch {0:g} (/metrics)").format(batch)
        elif has_metrics:
            return  # the server runs nothing right now (between points): the floor stays
        else:
            concurrency = self.sweep.current_concurrency()
            if concurrency is None:
                return
            batch = float(concurrency)
            source = self.tr("concurrency {0} (no /metrics)").format(concurrency)
        scenario = self.roofline.scenario()
        floor_ms = scenario.floor(max(1, round(batch))).seconds * 1000.0
        live.set_floor(floor_ms, source)
        if len(live.rolling):
            p50 = float(live.rolling.tail(1)[0, 1])
            self.roofline.set_live_tpot_ms(
                p50, batch, self.tr("live sweep, batch {0:g}").format(round(batch, 1))
            )

    def _on_run_state(self, running: bool) -> None:
        if self.sender() is self.sweep:
            self._server_running = None
            if running:
                self._live_timer.start()
            else:
                self._live_timer.stop()
        if self.metrics is None:
            return
        busy = self.is_busy() or running
        self.metrics.set_running(busy)
        if running and self.sender() is self.sweep:
            self.metrics.mark(self.tr("sweep"), run_start=True)

    def _on_simulator_failed(self, error: str) -> None:
        self._update_status()
        self.statusBar().showMessage(
            self.tr("The built-in simulator did not start: {error}").format(error=error), 15000
        )

    def _on_profile_changed(self, name: str) -> None:
        self._update_status()
        self._watch_metrics()
        profile = self.ctx.store.get(name)
        if profile is not None and profile.roofline and self.roofline is not None:
            saved = profile.roofline
            keys = ("gpu_id", "model_id", "fmt", "kv_dtype", "context")
            try:
                self.roofline.set_context(**{k: saved.get(k) for k in keys})
            except (ValueError, TypeError):
                log.warning("stored roofline context of %s no longer valid", name)
        self._sync_roofline_args()  # set_context does not emit contextChanged

    # ---- wiring between panels ----

    def _on_point_finished(self, summary: dict) -> None:
        if self.roofline is None:
            return
        extras = summary.get("tpotbench") or {}
        concurrency = summary.get("max_concurrency")
        if concurrency is None:
            # A rate-limited point has no concurrency cap; the measured peak stands in.
            concurrency = summary.get("max_concurrent_requests")
        p50 = summary.get("median_tpot_ms")
        p99 = summary.get("p99_tpot_ms")
        if concurrency is None or p50 is None or p99 is None:
            return
        running = ((extras.get("server_metrics") or {}).get("running") or {}).get("mean")
        self.roofline.add_measured_point(int(concurrency), float(p50), float(p99), running)

    def _on_roofline_context(self, *args: Any) -> None:
        if len(args) == 1 and isinstance(args[0], dict):
            context = dict(args[0])
        else:
            keys = ("gpu_id", "model_id", "fmt", "kv_dtype")
            context = dict(zip(keys, args, strict=False))
        self.ctx.store.set_roofline(self.editor.current_name(), context)
        self._sync_roofline_args()

    def _sync_roofline_args(self) -> None:
        """Give the sweep worker the Roofline dock's current context as flags."""
        extra = getattr(self.sweep, "extra_args", None)
        if not isinstance(extra, list) or not callable(getattr(self.roofline, "context", None)):
            return
        flags = set(ROOFLINE_FLAGS.values())
        kept: list[str] = []
        args = iter(extra)
        for arg in args:
            if arg in flags:
                next(args, None)  # and its value
            else:
                kept.append(arg)
        kept += roofline_args(self.roofline.context())
        extra[:] = kept  # the same list the panel reads when Run is pressed

    def _on_probe_finished(self, result: dict) -> None:
        if self.roofline is not None and result.get("tpot_ms") is not None:
            self.roofline.set_live_tpot_ms(float(result["tpot_ms"]))

    # ---- actions ----

    def _call_on_current(self, names: tuple[str, ...]) -> bool:
        panel = self.current_panel()
        for name in names:
            method: Callable[[], Any] | None = getattr(panel, name, None)
            if callable(method):
                method()
                return True
        return False

    def current_panel(self) -> QWidget:
        return _inner(self.tabs.currentWidget())

    def show_panel(self, panel: QWidget) -> None:
        for index in range(self.tabs.count()):
            if _inner(self.tabs.widget(index)) is panel:
                self.tabs.setCurrentIndex(index)

    def run_current(self) -> None:
        self._call_on_current(RUN_METHODS)

    def cancel_current(self) -> None:
        # Esc cancels whatever runs, wherever the user is looking.
        if not self._call_on_current(CANCEL_METHODS):
            self.probe.stop()
        for panel in (self.probe, self.sweep):
            if panel is not None and panel is not self.current_panel():
                for name in CANCEL_METHODS:
                    if callable(getattr(panel, name, None)):
                        getattr(panel, name)()
                        break

    def export_current(self) -> None:
        if self._call_on_current(EXPORT_METHODS):
            return
        for panel in (self.results, self.sweep):
            if panel is not None and any(callable(getattr(panel, n, None)) for n in EXPORT_METHODS):
                self.show_panel(panel)
                self._call_on_current(EXPORT_METHODS)
                return
        self.statusBar().showMessage(self.tr("Nothing to export on this tab."), 5000)

    def export_report(self) -> None:
        """File > Export report…: the HTML report of the runs open in Results, else the last
        sweep, in the window's language."""
        on_sweep = self.sweep is not None and self.current_panel() is self.sweep
        message = report_export.export_report(
            self, self.results, self.sweep, self.ctx.settings, prefer_sweep=on_sweep
        )
        if message:
            self.statusBar().showMessage(message, 15000)

    def is_busy(self) -> bool:
        if self.probe.running:
            return True
        checker = getattr(self.sweep, "is_running", None)
        return bool(callable(checker) and checker())

    def _request_language(self, code: str) -> None:
        if self.is_busy():
            QMessageBox.information(
                self,
                self.tr("Language"),
                self.tr("Stop the running measurement first, then switch."),
            )
            return
        self.languageRequested.emit(code)

    def show_about(self) -> None:
        status = self.ctx.keys.status()
        QMessageBox.about(self, self.tr("About TPOT Bench"), self.about_text(status.backend))

    def about_text(self, backend: str) -> str:
        return self.tr(
            "<h3>TPOT Bench {version}</h3>"
            "<p>Measures TTFT, TPOT, ITL and throughput of OpenAI-compatible LLM endpoints and "
            "explains them with a roofline.</p>"
            "<p>Qt {qt} · PySide6 {pyside} · Python {python} ({platform})<br>"
            "Keyring backend: {backend}<br>Log file: {log}</p>"
        ).format(
            version=__version__,
            qt=qVersion(),
            pyside=PySide6.__version__,
            python=platform.python_version(),
            platform=sys.platform,
            backend=backend or self.tr("none (session only)"),
            log=self.ctx.log_path or "-",
        )

    # ---- persistence ----

    def restore_state(self) -> None:
        s = self.ctx.settings
        geometry = s.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(*default_size(self.screen().availableGeometry().size().toTuple()))
        state = s.value("window/state")
        # A state saved by an older layout would bring its dock arrangement back: ignore it.
        if state is None or not self.restoreState(state, LAYOUT_VERSION):
            # Dock sizes only stick once the window is laid out, so after the first show.
            QTimer.singleShot(0, self._default_dock_sizes)
        tab = s.value("window/tab")
        if isinstance(tab, str):
            for index in range(self.tabs.count()):
                if _inner(self.tabs.widget(index)).objectName() == tab:
                    self.tabs.setCurrentIndex(index)
        profile = s.value("endpoints/selected")
        if isinstance(profile, str) and self.ctx.store.get(profile) is not None:
            self.editor.select(profile)
        else:
            self.editor.select(self.ctx.store.simulator().name)
        max_tokens = s.value("probe/max_tokens")
        if max_tokens is not None:
            self.probe.max_tokens.setValue(int(max_tokens))
        prompt = s.value("probe/prompt")
        if isinstance(prompt, str) and prompt:
            self.probe.prompt.setPlainText(prompt)

    def _default_dock_sizes(self) -> None:
        left, right = dock_widths(self.width())
        self.resizeDocks([self.endpoints_dock], [left], Qt.Orientation.Horizontal)
        docks = [d for d in (self.roofline_dock, self.metrics_dock) if d is not None]
        if docks:
            self.resizeDocks(docks[:1], [right], Qt.Orientation.Horizontal)

    def save_state(self) -> None:
        s = self.ctx.settings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState(LAYOUT_VERSION))
        s.setValue("window/tab", self.current_panel().objectName())
        s.setValue("endpoints/selected", self.editor.current_name())
        s.setValue("probe/max_tokens", self.probe.max_tokens.value())
        # The default prompt is not saved: it follows the UI language.
        prompt = "" if self.probe.prompt_is_default() else self.probe.prompt.toPlainText()
        s.setValue("probe/prompt", prompt)
        s.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        self.probe.stop()
        if self.sweep is not None:
            for name in CANCEL_METHODS:
                if callable(getattr(self.sweep, name, None)):
                    getattr(self.sweep, name)()  # finished points are already on disk
                    break
        super().closeEvent(event)
