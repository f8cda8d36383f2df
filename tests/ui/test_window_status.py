"""The status bar and title: the endpoint a run would use (unsaved edits included), the keyring."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow

from app.profiles import SIMULATOR_NAME, ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup_sim import SimulatorService
from app.ui.panels.endpoints.editor import EndpointEditor
from app.ui.panels.server_metrics.panel import ServerMetricsPanel
from app.ui.window_status import WindowStatus


def test_the_status_names_the_endpoint_as_a_run_would_use_it(qtbot, memory_keyring) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    simulator = SimulatorService()
    editor = EndpointEditor(ProfileStore(), KeyStore(), lambda: simulator.base_url)
    window.setCentralWidget(editor)
    metrics = ServerMetricsPanel()
    qtbot.addWidget(metrics)
    status = WindowStatus(window, editor, simulator, KeyStore(), metrics)
    editor.select(SIMULATOR_NAME)
    status.update()
    assert status.endpoint.text() == "Endpoint: Built-in simulator (simulator starting…)"
    assert window.windowTitle() == "Built-in simulator"
    assert status.keyring.text().startswith("Keyring: ")

    editor.select("Local vLLM")
    status.update()
    assert status.endpoint.text() == "Endpoint: Local vLLM (http://localhost:8000)"
    editor.form.url_edit.setText("http://10.0.0.7:8000")  # not saved: dirtyChanged updates it
    assert status.endpoint.text() == "Endpoint: Local vLLM (http://10.0.0.7:8000, unsaved edits)"
    simulator.error = "port in use"
    editor.select(SIMULATOR_NAME)
    status.update()
    assert "simulator failed to start: port in use" in status.endpoint.text()
