"""The list of endpoint profiles with its New (custom or from a preset) and Delete buttons."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.profiles import SIMULATOR_NAME, Profile, ProfileStore, presets
from app.ui.retranslate import is_language_change


def display_name(name: str) -> str:
    """A profile's name as shown: the built-in simulator's in the UI language."""
    if name == SIMULATOR_NAME:
        return QCoreApplication.translate("EndpointEditor", "Built-in simulator")
    return name


class ProfileList(QWidget):
    """The store's profiles by name; the editor does what the buttons ask.

    Signals:
        picked(str): the selected profile's name.
        newRequested(object): New was chosen, with the preset Profile or None (custom).
        deleteRequested(): Delete was pressed.
    """

    picked = Signal(str)
    newRequested = Signal(object)
    deleteRequested = Signal()

    def __init__(self, store: ProfileStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._edited = ""
        self._typed = ""
        self.list = QListWidget()
        self.list.setObjectName("endpointList")
        self.list.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.list.currentItemChanged.connect(self._on_current_item)

        self.add_button = QToolButton()
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.add_button)
        self.custom_action = menu.addAction("", lambda: self.newRequested.emit(None))
        self.preset_actions = [
            (menu.addAction("", self._request_new(preset)), preset) for preset in presets()[1:]
        ]
        self.add_button.setMenu(menu)
        self.delete_button = QPushButton()
        self.delete_button.clicked.connect(self.deleteRequested)

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        self.retranslate()

    def retranslate(self) -> None:
        self.add_button.setText(self.tr("New"))
        self.custom_action.setText(self.tr("Custom endpoint"))
        for action, preset in self.preset_actions:
            action.setText(self.tr("From preset: {name}").format(name=preset.name))
        self.delete_button.setText(self.tr("Delete"))
        self.relabel(self._edited, self._typed)

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def refresh(self, select: str) -> None:
        """List the store's profiles again and select `select` (else the first)."""
        self.list.blockSignals(True)
        self.list.clear()
        for profile in self.store.profiles:
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, profile.name)
            self.list.addItem(item)
        self.relabel(self._edited, self._typed)
        self.list.blockSignals(False)
        names = self.store.names()
        self.select(select if select in names else names[0])

    def relabel(self, edited: str, typed: str = "") -> None:
        """Names in the UI language; `edited` (a name, or "") is marked as holding unsaved edits
        and shown as `typed` when the form's Name field holds another name."""
        self._edited = edited
        self._typed = typed
        for row in range(self.list.count()):
            item = self.list.item(row)
            name = str(item.data(Qt.ItemDataRole.UserRole))
            profile = self.store.get(name)
            label = display_name(typed if edited and name == edited and typed else name)
            if profile is not None and profile.kind == "simulator":
                label = self.tr("{name} (no GPU needed)").format(name=label)
            if edited and name == edited:
                label = "● " + label  # the form below holds unsaved edits of this one
            item.setText(label)

    def current_name(self) -> str:
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item else ""

    def select(self, name: str) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == name:
                self.list.setCurrentRow(row)
                return

    def _on_current_item(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is not None:
            self.picked.emit(str(item.data(Qt.ItemDataRole.UserRole)))

    def _request_new(self, preset: Profile) -> Callable[[], None]:
        """A preset's menu action: ask for a new endpoint made from it."""
        return lambda: self.newRequested.emit(preset)
