"""The fields of one endpoint profile: name, URL, API, model, key, TLS, headers, Ray cluster."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from app.bench.http.auth import cleartext_host
from app.profiles import APIS, Profile, ProfileError
from app.ui.panels.endpoints.headers import headers_text, parse_headers
from app.ui.panels.endpoints.models import ModelField, list_models
from app.ui.retranslate import TextSource, is_language_change

# How the form reports a sentence to its owner: say(text, error).
Say = Callable[[TextSource, bool], None]


class EndpointForm(QWidget):
    """What the editor edits; knows nothing of saving (the editor does that).

    Signals:
        edited(): any field changed (by the user or by loading a profile).
    """

    edited = Signal()

    def __init__(self, say: Say, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._say = say
        self._models_task: asyncio.Task[list[str]] | None = None
        self.name_edit = QLineEdit()
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("http://localhost:8000")
        self.api_combo = QComboBox()
        self.api_combo.addItem("", "chat")
        self.api_combo.addItem("", "completions")
        self.model = ModelField()
        self.model.listRequested.connect(self._start_list_models)
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.tls_check = QCheckBox()
        # Shown while the form would send a key over plain http:// to another computer.
        self.cleartext_label = QLabel()
        self.cleartext_label.setObjectName("cleartextWarning")
        self.cleartext_label.setWordWrap(True)
        self.cleartext_label.setStyleSheet("color: #e65100;")
        self.cleartext_label.setVisible(False)
        self.url_edit.textChanged.connect(self.check_cleartext)
        self.key_edit.textChanged.connect(self.check_cleartext)
        self.headers_edit = QPlainTextEdit()
        self.headers_edit.setMaximumHeight(56)
        self.ray_edit = QLineEdit()

        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.labels = {
            key: QLabel() for key in ("name", "url", "api", "model", "key", "headers", "ray")
        }
        form.addRow(self.labels["name"], self.name_edit)
        form.addRow(self.labels["url"], self.url_edit)
        form.addRow(self.labels["api"], self.api_combo)
        form.addRow(self.labels["model"], self.model)
        form.addRow(self.labels["key"], self.key_edit)
        form.addRow("", self.cleartext_label)
        form.addRow("", self.tls_check)
        form.addRow(self.labels["headers"], self.headers_edit)
        form.addRow(self.labels["ray"], self.ray_edit)

        for edit in (self.name_edit, self.url_edit, self.key_edit, self.ray_edit):
            edit.textChanged.connect(self.edited)
        self.api_combo.currentIndexChanged.connect(self.edited)
        self.model.combo.editTextChanged.connect(self.edited)
        self.tls_check.toggled.connect(self.edited)
        self.headers_edit.textChanged.connect(self.edited)
        self.retranslate()

    def retranslate(self) -> None:
        """Every fixed string in the UI language; called again on a language change."""
        self.api_combo.setItemText(0, self.tr("Chat completions"))
        self.api_combo.setItemText(1, self.tr("Completions"))
        self.key_edit.setPlaceholderText(self.tr("none"))
        self.tls_check.setText(self.tr("Verify TLS certificates"))
        self.headers_edit.setPlaceholderText(self.tr("Name: value (one per line)"))
        self.ray_edit.setPlaceholderText(self.tr("none: load from this machine"))
        self.ray_edit.setToolTip(
            self.tr(
                "Run the sweep's load workers as Ray actors on this cluster: 'auto' joins the "
                "cluster this machine belongs to, or give the head's address (host:port). "
                "Needs Ray installed (pip install 'tpotbench[distributed]')."
            )
        )
        labels = {
            "name": self.tr("Name"),
            "url": self.tr("Base URL"),
            "api": self.tr("API"),
            "model": self.tr("Model"),
            "key": self.tr("API key"),
            "headers": self.tr("Headers"),
            "ray": self.tr("Ray cluster"),
        }
        for key, text in labels.items():
            self.labels[key].setText(text)
        self.check_cleartext()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    # ---- one profile in, one profile out ----

    def show_profile(self, profile: Profile, name: str, url: str, key: str) -> None:
        """Fill the fields; the simulator's name (`name`, in the UI language) and its URL (the
        port it got at start-up) are shown read-only."""
        simulator = profile.kind == "simulator"
        self.name_edit.setText(name)
        self.name_edit.setReadOnly(simulator)
        self.url_edit.setText(url)
        self.url_edit.setReadOnly(simulator)
        self.api_combo.setCurrentIndex(max(0, APIS.index(profile.api)))
        self.model.set_text(profile.model)
        self.key_edit.setText(key)
        self.tls_check.setChecked(profile.verify_tls)
        self.headers_edit.setPlainText(headers_text(profile.headers))
        self.ray_edit.setText(profile.ray_address)

    def state(self) -> tuple[object, ...]:
        """Every field's value, to tell an edited form from the one loaded."""
        return (
            self.name_edit.text(),
            self.url_edit.text(),
            self.api_combo.currentData(),
            self.model.text(),
            self.key_edit.text(),
            self.tls_check.isChecked(),
            self.headers_edit.toPlainText(),
            self.ray_edit.text(),
        )

    def profile(self, loaded: Profile | None, loaded_name: str) -> Profile:
        """The fields as a profile that replaces `loaded`; ProfileError for bad header lines."""
        simulator = loaded is not None and loaded.kind == "simulator"
        return Profile(
            name=loaded_name if simulator else self.name_edit.text().strip(),
            kind=loaded.kind if loaded else "custom",
            base_url="" if simulator else self.url_edit.text().strip(),
            api="completions" if self.api_combo.currentData() == "completions" else "chat",
            model=self.model.text().strip(),
            verify_tls=self.tls_check.isChecked(),
            headers=parse_headers(self.headers_edit.toPlainText()),
            roofline=loaded.roofline if loaded else None,
            ray_address=self.ray_edit.text().strip(),
        )

    def key(self) -> str:
        return self.key_edit.text()

    def set_url_tooltip(self, simulator: bool) -> None:
        self.url_edit.setToolTip(
            self.tr("The built-in simulator listens on a free loopback port chosen at start-up.")
            if simulator
            else ""
        )

    def check_cleartext(self) -> None:
        host = cleartext_host(self.url_edit.text(), self.key_edit.text())
        if host is not None:
            self.cleartext_label.setText(
                self.tr(
                    "The key would be sent unencrypted: {host} is reached over plain http://. "
                    "Use https:// unless every network on the way is yours."
                ).format(host=host)
            )
        self.cleartext_label.setVisible(host is not None)

    # ---- /v1/models ----

    def _start_list_models(self) -> None:
        if self._models_task is not None and not self._models_task.done():
            return
        self._models_task = asyncio.get_event_loop().create_task(self.fetch_models())

    async def fetch_models(self) -> list[str]:
        """Ask the endpoint as the form shows it for its models and offer them in the list."""
        try:
            headers = parse_headers(self.headers_edit.toPlainText())
        except ProfileError as exc:
            self._say(str(exc), True)
            return []
        self.model.button.setEnabled(False)
        self._say(lambda: self.tr("Asking the endpoint for its models…"), False)
        try:
            models = await list_models(
                self.url_edit.text().strip(),
                self.key_edit.text(),
                headers,
                self.tls_check.isChecked(),
            )
        except ValueError as exc:
            self._say(str(exc), True)
            return []
        finally:
            self.model.button.setEnabled(True)
        self.model.offer(models)
        count = len(models)
        self._say(lambda: self.tr("{n} model(s) found.").format(n=count), False)
        return models
