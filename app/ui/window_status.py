"""The window's status bar and title: which endpoint a run would use, the keyring, /metrics."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QMainWindow

from app.secrets import KeyStore
from app.ui.app_setup_sim import SimulatorService
from app.ui.panels.endpoints.editor import EndpointEditor
from app.ui.panels.endpoints.profile_list import display_name
from app.ui.panels.server_metrics.panel import ServerMetricsPanel


class WindowStatus(QObject):
    """Keeps the status bar's labels and the window title current; `update()` after a change."""

    def __init__(
        self,
        window: QMainWindow,
        editor: EndpointEditor,
        simulator: SimulatorService,
        keys: KeyStore,
        metrics: ServerMetricsPanel,
    ) -> None:
        super().__init__(window)
        self.window, self.editor, self.simulator, self.keys = window, editor, simulator, keys
        self.endpoint = QLabel()
        self.keyring = QLabel()
        self.metrics = QLabel()
        bar = window.statusBar()
        bar.addWidget(self.endpoint, 1)
        metrics.statusTextChanged.connect(self.metrics.setText)
        bar.addPermanentWidget(self.metrics)
        bar.addPermanentWidget(self.keyring)
        # The status bar names the URL a run would use, unsaved edits included.
        editor.profileSaved.connect(lambda _name: self.update())
        editor.dirtyChanged.connect(lambda _dirty: self.update())
        editor.form.url_edit.textEdited.connect(lambda _text: self.update())
        self.update()

    def update(self) -> None:
        profile = self.editor.current_profile()
        if profile.kind == "simulator":
            sim = self.simulator
            if sim.base_url:
                where = self.tr("simulator running at {url}").format(url=sim.base_url)
            elif sim.error:
                where = self.tr("simulator failed to start: {error}").format(error=sim.error)
            else:
                where = self.tr("simulator starting…")
        else:
            where = profile.base_url
            if self.editor.is_dirty():
                where = self.tr("{url}, unsaved edits").format(url=self.editor.form.url_edit.text())
        self.endpoint.setText(
            self.tr("Endpoint: {name} ({where})").format(
                name=display_name(profile.name), where=where
            )
        )
        # Qt appends the application name: the title reads "<endpoint> — TPOT Bench".
        self.window.setWindowTitle(display_name(profile.name))
        status = self.keys.status()
        self.keyring.setText(
            self.tr("Keyring: {backend}").format(backend=status.backend)
            if status.secure
            else self.tr("Keyring: none (keys kept for this session only)")
        )
        self.keyring.setToolTip(status.message)
