"""The main window: endpoints on the left, Probe/Sweep/Results/Doctor tabs, roofline docks."""

from __future__ import annotations

import logging
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import PySide6
from PySide6.QtCore import QEvent, QSettings, Qt, Signal, qVersion
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QWidget,
)

from app import __version__
from app.bench.doctor.report import PROFILE_SOURCE, TYPED_SOURCE
from app.profiles import ProfileStore, Target
from app.secrets import KeyStore
from app.ui.app_setup_sim import SimulatorService
from app.ui.exports import report as report_export
from app.ui.panel_links import PanelLinks
from app.ui.panels.doctor.panel import DoctorPanel
from app.ui.panels.endpoints.editor import EndpointEditor
from app.ui.panels.probe.panel import ProbePanel
from app.ui.panels.results.panel import ResultsPanel
from app.ui.panels.roofline.panel import RooflinePanel
from app.ui.panels.server_metrics.panel import ServerMetricsPanel
from app.ui.panels.sweep.panel import SweepPanel
from app.ui.retranslate import is_language_change
from app.ui.selftest_dialog import SelftestDialog
from app.ui.theme import apply_plot_theme
from app.ui.window_state import inner, restore_state, save_state
from app.ui.window_status import WindowStatus

log = logging.getLogger(__name__)


@dataclass
class AppContext:
    """What the window is built from: profiles, keys, settings, the simulator, the language."""

    store: ProfileStore
    keys: KeyStore
    settings: QSettings
    simulator: SimulatorService
    log_path: Path | None = None
    language: str = "en"


@dataclass(frozen=True)
class TabActions:
    """What Run (Ctrl+R) and Cancel (Esc) do on a tab; None: the action does nothing there."""

    run: Callable[[], object] | None = None
    cancel: Callable[[], object] | None = None


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
        self._build_panels()
        self.links = PanelLinks(
            probe=self.probe,
            sweep=self.sweep,
            results=self.results,
            roofline=self.roofline,
            metrics=self.metrics,
            store=ctx.store,
            current_target=self.current_target,
            current_profile=self.editor.current_name,
            parent=self,
        )
        self.editor.currentChanged.connect(self._on_profile_changed)
        self.editor.profileSaved.connect(lambda _name: self.links.watch_metrics())
        # File > Export owns Ctrl+E; the same shortcut on a button would make both ambiguous.
        self.results.export_data_button.setShortcut(QKeySequence())
        self._build_menus()
        self.status = WindowStatus(self, self.editor, ctx.simulator, ctx.keys, self.metrics)
        self.retranslate()
        ctx.simulator.started.connect(self._on_simulator_started)
        ctx.simulator.failed.connect(self._on_simulator_failed)
        restore_state(self)
        self._on_profile_changed(self.editor.current_name())
        if ctx.store.load_warning:
            self.statusBar().showMessage(ctx.store.load_warning, 15000)
        apply_plot_theme(self)

    # ---- building ----

    def _build_panels(self) -> None:
        """The endpoints dock, the four tabs and the two right-hand docks."""
        self.editor = EndpointEditor(
            self.ctx.store, self.ctx.keys, lambda: self.ctx.simulator.base_url
        )
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.editor)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setMinimumWidth(280)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.endpoints_dock = self._dock_raw(
            "endpoints", "", scroll, Qt.DockWidgetArea.LeftDockWidgetArea
        )

        self.probe = ProbePanel(self.current_target)
        self.sweep = SweepPanel(self.current_target, lambda: self.links.run_context())
        self.results = ResultsPanel()
        self.doctor = DoctorPanel(self.current_target, key_source=self._key_source)
        self.roofline = RooflinePanel()
        self.metrics = ServerMetricsPanel()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("mainTabs")
        self.tabs.setDocumentMode(True)
        for name, panel in (
            ("probePanel", self.probe),
            ("sweepPanel", self.sweep),
            ("resultsPanel", self.results),
            ("doctorPanel", self.doctor),
        ):
            panel.setObjectName(name)  # tab restore must not depend on the UI language
            self.tabs.addTab(scrollable(panel, 700, 560), "")
        self.setCentralWidget(self.tabs)
        self.tab_actions: dict[QWidget, TabActions] = {
            self.probe: TabActions(run=self.probe.start, cancel=self.probe.stop),
            self.sweep: TabActions(run=self.sweep.run, cancel=self.sweep.cancel),
            self.doctor: TabActions(run=self.doctor.start, cancel=self.doctor.cancel),
        }
        right = Qt.DockWidgetArea.RightDockWidgetArea
        self.roofline_dock = self._dock("roofline", "", self.roofline, right)
        self.metrics_dock = self._dock("serverMetrics", "", self.metrics, right)
        # Stacked, each got half the height: too little for three time-series charts.
        self.tabifyDockWidget(self.roofline_dock, self.metrics_dock)
        self.roofline_dock.raise_()

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
        self.run_menu.addSeparator()
        self.selftest_action = QAction(self)
        self.selftest_action.triggered.connect(self.check_machine)
        self.run_menu.addAction(self.selftest_action)

        self.view_menu = bar.addMenu("")
        for dock in (self.endpoints_dock, self.roofline_dock, self.metrics_dock):
            self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addSeparator()
        self.language_menu = self.view_menu.addMenu("")
        group = QActionGroup(self)
        saved = str(self.ctx.settings.value("ui/language", "") or "")
        self._language_choice = saved  # the menu's checked entry, put back after a refusal
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

    def check_machine(self) -> SelftestDialog:
        """Run ▸ Check this machine: the client's ceiling here, in a dialog that runs it."""
        dialog = SelftestDialog(self)
        dialog.setModal(False)
        dialog.show()
        dialog.start()
        return dialog

    def retranslate(self) -> None:
        """Every fixed string of the window itself; panels retranslate themselves."""
        self.endpoints_dock.setWindowTitle(self.tr("Endpoints"))
        self.roofline_dock.setWindowTitle(self.tr("Roofline"))
        self.metrics_dock.setWindowTitle(self.tr("Server metrics"))
        titles = {
            "probePanel": self.tr("Probe"),
            "sweepPanel": self.tr("Sweep"),
            "resultsPanel": self.tr("Results"),
            "doctorPanel": self.tr("Doctor"),
        }
        for index in range(self.tabs.count()):
            name = inner(self.tabs.widget(index)).objectName()
            if name in titles:
                self.tabs.setTabText(index, titles[name])
        self.file_menu.setTitle(self.tr("&File"))
        self.export_action.setText(self.tr("&Export…"))
        self.export_report_action.setText(self.tr("Export &report…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.run_menu.setTitle(self.tr("&Run"))
        self.run_action.setText(self.tr("&Run"))
        self.cancel_action.setText(self.tr("&Cancel"))
        self.selftest_action.setText(self.tr("Check this &machine…"))
        self.view_menu.setTitle(self.tr("&View"))
        self.language_menu.setTitle(self.tr("&Language"))
        self.language_actions[""].setText(self.tr("System default"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.about_action.setText(self.tr("&About TPOT Bench"))
        self.status.update()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    # ---- targets and status ----

    def current_target(self) -> Target:
        """The selected endpoint as the editor shows it (unsaved edits included), with the
        simulator's live URL; ProfileError (a ValueError) if the form cannot be used."""
        return self.editor.form_target(self.ctx.simulator.base_url)

    def _key_source(self) -> str:
        """Where the key the doctor sends came from: the saved endpoint, or the field's edit."""
        return TYPED_SOURCE if self.editor.key_edited() else PROFILE_SOURCE

    def _on_simulator_started(self, _url: str) -> None:
        self.editor.simulator_url_changed()
        self.status.update()
        self.links.watch_metrics()

    def _on_simulator_failed(self, error: str) -> None:
        self.status.update()
        self.statusBar().showMessage(
            self.tr("The built-in simulator did not start: {error}").format(error=error), 15000
        )

    def _on_profile_changed(self, name: str) -> None:
        self.status.update()
        self.links.profile_changed(name)

    # ---- actions ----

    def current_panel(self) -> QWidget:
        return inner(self.tabs.currentWidget())

    def show_panel(self, panel: QWidget) -> None:
        for index in range(self.tabs.count()):
            if inner(self.tabs.widget(index)) is panel:
                self.tabs.setCurrentIndex(index)

    def run_current(self) -> None:
        run = self.tab_actions.get(self.current_panel(), TabActions()).run
        if run is not None:
            run()

    def cancel_current(self) -> None:
        # A sweep is minutes of measurement: Esc (one stray key) asks before it ends one; the
        # panel's Cancel button, a deliberate click, does not.
        sweeping = self.sweep.is_running() and not self.sweep.run_model.cancelled
        if sweeping and not self.confirm_cancel_sweep():
            return
        cancel = self.tab_actions.get(self.current_panel(), TabActions()).cancel
        if cancel is not None:
            cancel()
        # Esc cancels whatever runs, wherever the user is looking (both calls are no-ops when
        # nothing runs).
        self.probe.stop()
        self.sweep.cancel()

    def confirm_cancel_sweep(self) -> bool:
        """Ask before Esc stops the running sweep; True: stop it."""
        answer = QMessageBox.question(
            self,
            self.tr("Cancel the sweep?"),
            self.tr(
                "Stop the running sweep? Requests in flight get a moment to finish; points "
                "already finished stay on disk, the interrupted one is saved as partial."
            ),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def export_current(self) -> None:
        """File > Export…: the Results tab's export, whatever tab is shown (a sweep's points
        are among its runs)."""
        self.show_panel(self.results)
        self.results.export_dialog()

    def export_report(self) -> None:
        """File > Export report…: the HTML report of the runs open in Results, else the last
        sweep, in the window's language."""
        on_sweep = self.current_panel() is self.sweep
        message = report_export.export_report(
            self, self.results, self.sweep, self.ctx.settings, prefer_sweep=on_sweep
        )
        if message:
            self.statusBar().showMessage(message, 15000)

    def is_busy(self) -> bool:
        return self.links.is_busy()

    def _request_language(self, code: str) -> None:
        if self.is_busy():
            QMessageBox.information(
                self,
                self.tr("Language"),
                self.tr("Stop the running measurement first, then switch."),
            )
            # The group already checked the clicked entry: the menu must name the language the
            # window is still in.
            self.language_actions[self._language_choice].setChecked(True)
            return
        self._language_choice = code
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

    def closeEvent(self, event: QCloseEvent) -> None:
        save_state(self)
        self.probe.stop()
        self.sweep.cancel()  # finished points are already on disk
        super().closeEvent(event)
