"""The endpoint list and editor: profiles, their keys in the keyring, unsaved edits."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.bench.http.auth import key_problem
from app.profiles import Profile, ProfileError, ProfileStore, Target
from app.secrets import KeyStore
from app.ui.panels.endpoints.form import EndpointForm
from app.ui.panels.endpoints.profile_list import ProfileList, display_name
from app.ui.retranslate import Message, TextSource, is_language_change


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

        self.profile_list = ProfileList(store)
        self.profile_list.picked.connect(self._on_picked)
        self.profile_list.newRequested.connect(self.new_profile)
        self.profile_list.deleteRequested.connect(self.delete_current)
        self.form = EndpointForm(self._say)
        self.form.edited.connect(self._check_dirty)
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

        edit_buttons = QHBoxLayout()
        edit_buttons.addStretch(1)
        edit_buttons.addWidget(self.revert_button)
        edit_buttons.addWidget(self.save_button)

        layout = QVBoxLayout(self)
        layout.addWidget(self.profile_list)
        layout.addWidget(self.form)
        layout.addWidget(self.backend_label)
        layout.addWidget(self.changed_label)
        layout.addLayout(edit_buttons)
        layout.addWidget(self.message)
        layout.addStretch(1)

        self.retranslate()
        self.refresh_list()
        self._show_backend()

    def retranslate(self) -> None:
        """Every fixed string in the UI language; called again on a language change (the list
        and the form retranslate their own)."""
        self.save_button.setText(self.tr("Save"))
        self.revert_button.setText(self.tr("Revert"))
        self.changed_label.setText(
            self.tr("Unsaved changes: Run uses them as shown; Save keeps them, Revert drops them.")
        )
        self.form.set_url_tooltip(self.current_profile().kind == "simulator")
        if self.current_profile().kind == "simulator":
            self._loading = True  # the shown name follows the language; it is not an edit
            self.form.name_edit.setText(display_name(self.current_profile().name))
            self._loading = False
            self._saved_form = self.form.state()[:1] + self._saved_form[1:]
        self.messages.refresh()
        self.backend_text.refresh()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    # ---- list ----

    def refresh_list(self, select: str | None = None) -> None:
        self.profile_list.refresh(select or self.current_name())

    def current_name(self) -> str:
        return self.profile_list.current_name()

    def current_profile(self) -> Profile:
        return self.store.get(self.current_name()) or self.store.simulator()

    def select(self, name: str) -> None:
        self.profile_list.select(name)

    def _on_picked(self, name: str) -> None:
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
        self.form.show_profile(
            profile,
            name=display_name(profile.name) if simulator else profile.name,
            url=self._simulator_url() if simulator else profile.base_url,
            key=self.keys.get(profile.name),
        )
        self.form.set_url_tooltip(simulator)
        self.profile_list.delete_button.setEnabled(not simulator)
        self.messages.clear()
        self._loading = False
        self._saved_form = self.form.state()
        self._check_dirty()

    def simulator_url_changed(self) -> None:
        if self.current_profile().kind == "simulator":
            dirty = self._dirty
            self.form.url_edit.setText(self._simulator_url())
            if not dirty:  # the simulator's port is not an edit of the user's
                self._saved_form = self.form.state()
                self._check_dirty()

    # ---- unsaved edits ----

    def is_dirty(self) -> bool:
        """True while the form differs from the selected profile as saved."""
        return self._dirty

    def key_edited(self) -> bool:
        """True while the API key field differs from the key saved with the endpoint."""
        saved = self._saved_form[4] if len(self._saved_form) > 4 else ""
        return self.form.key_edit.text() != saved

    def _check_dirty(self, *_: object) -> None:
        if self._loading:
            return
        dirty = bool(self._loaded_name) and self.form.state() != self._saved_form
        # The list shows the name as typed (marked unsaved), not the saved one.
        typed = self.form.name_edit.text().strip() if dirty else ""
        self.profile_list.relabel(self._loaded_name if dirty else "", typed)
        if dirty == self._dirty:
            return
        self._dirty = dirty
        self.changed_label.setVisible(dirty)
        self.revert_button.setEnabled(dirty)
        self.dirtyChanged.emit(dirty)

    def form_target(self, simulator_url: str) -> Target:
        """The endpoint exactly as the form shows it, saved or not; ProfileError if unusable.

        A run uses what the user sees: an edited Base URL that was not saved yet is the one
        measured (the form says it holds unsaved changes).
        """
        profile = self.form.profile(self.store.get(self._loaded_name), self._loaded_name)
        if profile.kind != "simulator" and not profile.base_url:
            raise ProfileError(self.tr("Enter the endpoint's Base URL."))
        return Target(
            profile_name=profile.name or self._loaded_name,
            base_url=simulator_url if profile.kind == "simulator" else profile.base_url,
            api=profile.api,
            model=profile.model,
            verify_tls=profile.verify_tls,
            headers=dict(profile.headers),
            api_key=self.form.key(),
            ray_address=profile.ray_address,
        )

    def save_current(self) -> bool:
        """Save the form; the key goes to the keyring, the rest to the profiles file."""
        old = self._loaded_name
        if key_problem(self.form.key()):
            self._say(
                lambda: self.tr(
                    "The API key contains a line break or another control character; "
                    "remove it and save again."
                ),
                error=True,
            )
            return False
        try:
            profile = self.store.update(old, self.form.profile(self.store.get(old), old))
        except ProfileError as exc:
            self._say(str(exc), error=True)
            return False
        self.keys.rename(old, profile.name)
        stored = self.keys.set(profile.name, self.form.key())
        self.refresh_list(select=profile.name)
        self._show_backend()
        if self.form.key() and not stored:
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
        self.form.name_edit.setFocus()
        self.form.name_edit.selectAll()

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

    def _say(self, text: TextSource, error: bool = False) -> None:
        self.messages.set(text, error)

    def _show_message(self, text: str, error: bool) -> None:
        self.message.setText(text)
        self.message.setProperty("error", error)
        self.message.setStyleSheet("color: #c62828;" if error else "")
