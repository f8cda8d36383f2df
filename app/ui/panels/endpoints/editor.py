"""The endpoint list and editor: profiles, their keys in the keyring, and /v1/models lookup."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.bench.http.auth import cleartext_host, header_problem, key_problem
from app.bench.http.models import MODELS_DEADLINE_S
from app.profiles import (
    APIS,
    SIMULATOR_NAME,
    Profile,
    ProfileError,
    ProfileStore,
    Target,
    presets,
)
from app.secrets import KeyStore
from app.ui.retranslate import Message, is_language_change

log = logging.getLogger(__name__)


def models_url(base_url: str) -> str:
    """The /v1/models URL for a base URL, through the engine's own URL rules."""
    from app.bench.http.endpoint import resolve_endpoint

    return resolve_endpoint(base_url).models_url


async def list_models(
    base_url: str,
    api_key: str,
    headers: dict[str, str],
    verify_tls: bool,
    *,
    request_timeout_s: float | None = MODELS_DEADLINE_S,
) -> list[str]:
    """Model ids from GET /v1/models (bounded in size and time by the engine's client);
    raises ValueError with one readable sentence."""
    from app.bench.http.endpoint import EndpointError
    from app.bench.http.models import ModelsError, fetch_models

    try:
        url = models_url(base_url)
    except EndpointError as exc:
        raise ValueError(str(exc)) from None
    try:
        listing = await fetch_models(
            url,
            api_key=api_key or None,
            headers=headers,
            verify_tls=verify_tls,
            request_timeout_s=request_timeout_s,
        )
    except ModelsError as exc:
        raise ValueError(f"Could not reach {url}: {exc.kind}.") from None
    if listing.status in (401, 403):
        raise ValueError(f"{url} answered {listing.status}: check the API key.")
    if listing.status != 200:
        raise ValueError(f"{url} answered HTTP {listing.status}.")
    if listing.ids is None:
        raise ValueError(f"{url} did not return a JSON model list.")
    return listing.ids


def display_name(name: str) -> str:
    """A profile's name as shown: the built-in simulator's in the UI language."""
    if name == SIMULATOR_NAME:
        return QCoreApplication.translate("EndpointEditor", "Built-in simulator")
    return name


def parse_headers(text: str) -> dict[str, str]:
    """'Name: value' lines (KEY=VALUE accepted too, as on the command line) into a dict;
    raises ProfileError naming the bad line."""
    from app.commands.connection import split_header

    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        pair = split_header(line)
        if pair is None:
            raise ProfileError(f"Header line {number} must look like 'Name: value'.")
        name, value = pair
        if header_problem(name, value):
            raise ProfileError(
                QCoreApplication.translate(
                    "EndpointEditor",
                    "Header line {number}: use letters, digits and '-' in the name and plain "
                    "ASCII without control characters in the value.",
                ).format(number=number)
            )
        headers[name] = value
    return headers


class EndpointEditor(QWidget):
    """Profiles on top, the selected one's fields below.

    Signals:
        currentChanged(str): the selected profile's name.
        profileSaved(str): a profile was saved (its name after saving).
        dirtyChanged(bool): the form now differs (True) or no longer differs from what is saved.
    """

    currentChanged = Signal(str)
    profileSaved = Signal(str)
    dirtyChanged = Signal(bool)

    def __init__(
        self,
        store: ProfileStore,
        keys: KeyStore,
        simulator_url: Callable[[], str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.keys = keys
        self._simulator_url = simulator_url
        self._loaded_name = ""
        self._saved_form: tuple[object, ...] = ()
        self._dirty = False
        self._loading = False
        self._models_task: asyncio.Task[None] | None = None

        self.list = QListWidget()
        self.list.setObjectName("endpointList")
        self.list.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.list.currentItemChanged.connect(self._on_current_item)

        self.add_button = QToolButton()
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.add_button)
        self.custom_action = menu.addAction("", lambda: self.new_profile(None))
        self.preset_actions = [
            (menu.addAction("", lambda p=preset: self.new_profile(p)), preset)
            for preset in presets()[1:]
        ]
        self.add_button.setMenu(menu)
        self.delete_button = QPushButton()
        self.delete_button.clicked.connect(self.delete_current)

        self.name_edit = QLineEdit()
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("http://localhost:8000")
        self.api_combo = QComboBox()
        self.api_combo.addItem("", "chat")
        self.api_combo.addItem("", "completions")
        self.model_edit = QComboBox()
        self.model_edit.setEditable(True)
        self.model_edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.models_button = QPushButton()
        self.models_button.clicked.connect(self._start_list_models)
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.tls_check = QCheckBox()
        # Shown while the form would send a key over plain http:// to another computer.
        self.cleartext_label = QLabel()
        self.cleartext_label.setObjectName("cleartextWarning")
        self.cleartext_label.setWordWrap(True)
        self.cleartext_label.setStyleSheet("color: #e65100;")
        self.cleartext_label.setVisible(False)
        self.url_edit.textChanged.connect(self._check_cleartext)
        self.key_edit.textChanged.connect(self._check_cleartext)
        self.headers_edit = QPlainTextEdit()
        self.headers_edit.setMaximumHeight(56)
        self.ray_edit = QLineEdit()
        self.backend_label = QLabel()
        self.backend_label.setWordWrap(True)
        self.backend_label.setObjectName("keyringBackend")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setObjectName("editorMessage")
        self.messages = Message(self._show_message)
        self.backend_text = Message(lambda text, _error: self.backend_label.setText(text))
        self.changed_label = QLabel()
        self.changed_label.setObjectName("unsavedChanges")
        self.changed_label.setWordWrap(True)
        self.changed_label.setStyleSheet("color: #b26a00; font-weight: bold;")
        self.changed_label.setVisible(False)
        self.save_button = QPushButton()
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.save_current)
        self.revert_button = QPushButton()
        self.revert_button.setEnabled(False)
        self.revert_button.clicked.connect(lambda: self._load(self._loaded_name))

        model_row = QHBoxLayout()
        model_row.setContentsMargins(0, 0, 0, 0)
        model_row.addWidget(self.model_edit, 1)
        model_row.addWidget(self.models_button)
        self.form = form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form_labels = {
            key: QLabel() for key in ("name", "url", "api", "model", "key", "headers", "ray")
        }
        form.addRow(self.form_labels["name"], self.name_edit)
        form.addRow(self.form_labels["url"], self.url_edit)
        form.addRow(self.form_labels["api"], self.api_combo)
        form.addRow(self.form_labels["model"], model_row)
        form.addRow(self.form_labels["key"], self.key_edit)
        form.addRow("", self.cleartext_label)
        form.addRow("", self.tls_check)
        form.addRow(self.form_labels["headers"], self.headers_edit)
        form.addRow(self.form_labels["ray"], self.ray_edit)

        list_buttons = QHBoxLayout()
        list_buttons.addWidget(self.add_button)
        list_buttons.addWidget(self.delete_button)
        list_buttons.addStretch(1)
        edit_buttons = QHBoxLayout()
        edit_buttons.addStretch(1)
        edit_buttons.addWidget(self.revert_button)
        edit_buttons.addWidget(self.save_button)

        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addLayout(list_buttons)
        layout.addLayout(form)
        layout.addWidget(self.backend_label)
        layout.addWidget(self.changed_label)
        layout.addLayout(edit_buttons)
        layout.addWidget(self.message)
        layout.addStretch(1)

        for edit in (self.name_edit, self.url_edit, self.key_edit, self.ray_edit):
            edit.textChanged.connect(self._check_dirty)
        self.api_combo.currentIndexChanged.connect(self._check_dirty)
        self.model_edit.editTextChanged.connect(self._check_dirty)
        self.tls_check.toggled.connect(self._check_dirty)
        self.headers_edit.textChanged.connect(self._check_dirty)
        self.retranslate()
        self.refresh_list()
        self._show_backend()

    def retranslate(self) -> None:
        """Every fixed string in the UI language; called again on a language change."""
        self.add_button.setText(self.tr("New"))
        self.custom_action.setText(self.tr("Custom endpoint"))
        for action, preset in self.preset_actions:
            action.setText(self.tr("From preset: {name}").format(name=preset.name))
        self.delete_button.setText(self.tr("Delete"))
        self.api_combo.setItemText(0, self.tr("Chat completions"))
        self.api_combo.setItemText(1, self.tr("Completions"))
        self.model_edit.lineEdit().setPlaceholderText(self.tr("model id"))
        self.models_button.setText(self.tr("List models"))
        self.models_button.setToolTip(
            self.tr("Ask the endpoint's /v1/models which models it serves")
        )
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
        self.save_button.setText(self.tr("Save"))
        self.revert_button.setText(self.tr("Revert"))
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
            self.form_labels[key].setText(text)
        self.changed_label.setText(
            self.tr("Unsaved changes: Run uses them as shown; Save keeps them, Revert drops them.")
        )
        self._relabel_list()
        self._url_tooltip()
        if self.current_profile().kind == "simulator":
            self._loading = True  # the shown name follows the language; it is not an edit
            self.name_edit.setText(display_name(self.current_profile().name))
            self._loading = False
            self._saved_form = self._form_state()[:1] + self._saved_form[1:]
        self.messages.refresh()
        self.backend_text.refresh()
        self._check_cleartext()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    # ---- list ----

    def refresh_list(self, select: str | None = None) -> None:
        select = select or self.current_name()
        self.list.blockSignals(True)
        self.list.clear()
        for profile in self.store.profiles:
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, profile.name)
            self.list.addItem(item)
        self._relabel_list()
        self.list.blockSignals(False)
        names = self.store.names()
        self.select(select if select in names else names[0])

    def _relabel_list(self) -> None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            name = str(item.data(Qt.ItemDataRole.UserRole))
            profile = self.store.get(name)
            label = display_name(name)
            if profile is not None and profile.kind == "simulator":
                label = self.tr("{name} (no GPU needed)").format(name=label)
            if self._dirty and name == self._loaded_name:
                label = "● " + label  # the form below holds unsaved edits of this one
            item.setText(label)

    def current_name(self) -> str:
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item else ""

    def current_profile(self) -> Profile:
        return self.store.get(self.current_name()) or self.store.simulator()

    def select(self, name: str) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == name:
                self.list.setCurrentRow(row)
                return

    def _on_current_item(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is None:
            return
        name = str(item.data(Qt.ItemDataRole.UserRole))
        self._load(name)
        self.currentChanged.emit(name)

    # ---- editing ----

    def _load(self, name: str) -> None:
        profile = self.store.get(name)
        if profile is None:
            return
        self._loaded_name = name
        self._loading = True
        simulator = profile.kind == "simulator"
        # The simulator's name is shown in the UI language and cannot be edited.
        self.name_edit.setText(display_name(profile.name) if simulator else profile.name)
        self.name_edit.setReadOnly(simulator)
        self.url_edit.setText(self._simulator_url() if simulator else profile.base_url)
        self.url_edit.setReadOnly(simulator)
        self._url_tooltip()
        self.api_combo.setCurrentIndex(max(0, APIS.index(profile.api)))
        self.model_edit.clear()
        self.model_edit.setEditText(profile.model)
        self.key_edit.setText(self.keys.get(profile.name))
        self.tls_check.setChecked(profile.verify_tls)
        self.headers_edit.setPlainText("\n".join(f"{k}: {v}" for k, v in profile.headers.items()))
        self.ray_edit.setText(profile.ray_address)
        self.delete_button.setEnabled(not simulator)
        self.messages.clear()
        self._loading = False
        self._saved_form = self._form_state()
        self._check_dirty()

    def _url_tooltip(self) -> None:
        simulator = self.current_profile().kind == "simulator"
        self.url_edit.setToolTip(
            self.tr("The built-in simulator listens on a free loopback port chosen at start-up.")
            if simulator
            else ""
        )

    def simulator_url_changed(self) -> None:
        if self.current_profile().kind == "simulator":
            dirty = self._dirty
            self.url_edit.setText(self._simulator_url())
            if not dirty:  # the simulator's port is not an edit of the user's
                self._saved_form = self._form_state()
                self._check_dirty()

    # ---- unsaved edits ----

    def _form_state(self) -> tuple[object, ...]:
        return (
            self.name_edit.text(),
            self.url_edit.text(),
            self.api_combo.currentData(),
            self.model_edit.currentText(),
            self.key_edit.text(),
            self.tls_check.isChecked(),
            self.headers_edit.toPlainText(),
            self.ray_edit.text(),
        )

    def is_dirty(self) -> bool:
        """True while the form differs from the selected profile as saved."""
        return self._dirty

    def _check_dirty(self, *_: object) -> None:
        if self._loading:
            return
        dirty = bool(self._loaded_name) and self._form_state() != self._saved_form
        if dirty == self._dirty:
            return
        self._dirty = dirty
        self.changed_label.setVisible(dirty)
        self.revert_button.setEnabled(dirty)
        self._relabel_list()
        self.dirtyChanged.emit(dirty)

    def form_target(self, simulator_url: str) -> Target:
        """The endpoint exactly as the form shows it, saved or not; ProfileError if unusable.

        A run uses what the user sees: an edited Base URL that was not saved yet is the one
        measured (the form says it holds unsaved changes).
        """
        profile = self._form_profile()
        if profile.kind != "simulator" and not profile.base_url:
            raise ProfileError(self.tr("Enter the endpoint's Base URL."))
        return Target(
            profile_name=profile.name or self._loaded_name,
            base_url=simulator_url if profile.kind == "simulator" else profile.base_url,
            api=profile.api,
            model=profile.model,
            verify_tls=profile.verify_tls,
            headers=dict(profile.headers),
            api_key=self.key_edit.text() or None,
            ray_address=profile.ray_address,
        )

    def _form_profile(self) -> Profile:
        current = self.store.get(self._loaded_name)
        simulator = current is not None and current.kind == "simulator"
        return Profile(
            name=self._loaded_name if simulator else self.name_edit.text().strip(),
            kind=current.kind if current else "custom",
            base_url=""
            if current and current.kind == "simulator"
            else self.url_edit.text().strip(),
            api=str(self.api_combo.currentData()),
            model=self.model_edit.currentText().strip(),
            verify_tls=self.tls_check.isChecked(),
            headers=parse_headers(self.headers_edit.toPlainText()),
            roofline=current.roofline if current else None,
            ray_address=self.ray_edit.text().strip(),
        )

    def save_current(self) -> bool:
        """Save the form; the key goes to the keyring, the rest to the profiles file."""
        old = self._loaded_name
        if key_problem(self.key_edit.text()):
            self._say(
                lambda: self.tr(
                    "The API key contains a line break or another control character; "
                    "remove it and save again."
                ),
                error=True,
            )
            return False
        try:
            profile = self.store.update(old, self._form_profile())
        except ProfileError as exc:
            self._say(str(exc), error=True)
            return False
        self.keys.rename(old, profile.name)
        stored = self.keys.set(profile.name, self.key_edit.text())
        self.refresh_list(select=profile.name)
        self._show_backend()
        if self.key_edit.text() and not stored:
            self._say(lambda: self.tr("Saved. The key is kept for this session only."), error=True)
        else:
            self._say(lambda: self.tr("Saved."))
        self.profileSaved.emit(profile.name)
        return True

    def new_profile(self, preset: Profile | None) -> None:
        base = preset or Profile(
            name=self.tr("New endpoint"), kind="custom", base_url="http://localhost:8000"
        )
        profile = Profile(**{**base.to_json(), "name": self.store.unique_name(base.name)})
        self.store.profiles.append(profile)  # shown at once; validated and written on Save
        self.store.save()
        self.refresh_list(select=profile.name)
        self.name_edit.setFocus()
        self.name_edit.selectAll()

    def delete_current(self) -> None:
        name = self.current_name()
        try:
            self.store.remove(name)
        except ProfileError as exc:
            self._say(str(exc), error=True)
            return
        self.keys.delete(name)
        self.refresh_list(select=self.store.simulator().name)
        self._say(lambda: self.tr("Deleted {name} and its key.").format(name=name))

    def _show_backend(self) -> None:
        status = self.keys.status()
        if status.secure:
            self.backend_text.set(
                lambda: self.tr("Keys are stored in the OS keyring: {backend}").format(
                    backend=status.backend
                )
            )
        else:
            self.backend_text.set(
                lambda: self.tr(
                    "No secure keyring is available: keys are kept in memory for this session only."
                )
            )
        self.backend_label.setToolTip(status.message)

    def _check_cleartext(self) -> None:
        host = cleartext_host(self.url_edit.text(), self.key_edit.text())
        if host is not None:
            self.cleartext_label.setText(
                self.tr(
                    "The key would be sent unencrypted: {host} is reached over plain http://. "
                    "Use https:// unless every network on the way is yours."
                ).format(host=host)
            )
        self.cleartext_label.setVisible(host is not None)

    def _say(self, text: str | Callable[[], str], error: bool = False) -> None:
        self.messages.set(text, error)

    def _show_message(self, text: str, error: bool) -> None:
        self.message.setText(text)
        self.message.setProperty("error", error)
        self.message.setStyleSheet("color: #c62828;" if error else "")

    # ---- /v1/models ---------------------------------------------------------------------------

    def _start_list_models(self) -> None:
        if self._models_task is not None and not self._models_task.done():
            return
        self._models_task = asyncio.get_event_loop().create_task(self.fetch_models())

    async def fetch_models(self) -> list[str]:
        try:
            headers = parse_headers(self.headers_edit.toPlainText())
        except ProfileError as exc:
            self._say(str(exc), error=True)
            return []
        self.models_button.setEnabled(False)
        self._say(lambda: self.tr("Asking the endpoint for its models…"))
        try:
            models = await list_models(
                self.url_edit.text().strip(),
                self.key_edit.text(),
                headers,
                self.tls_check.isChecked(),
            )
        except ValueError as exc:
            self._say(str(exc), error=True)
            return []
        finally:
            self.models_button.setEnabled(True)
        typed = self.model_edit.currentText()
        self.model_edit.clear()
        self.model_edit.addItems(models)
        self.model_edit.setEditText(typed if typed in models or not models else models[0])
        self._say(lambda: self.tr("{n} model(s) found.").format(n=len(models)))
        return models
