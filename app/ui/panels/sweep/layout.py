"""Layout pieces of the Sweep tab: two form columns that stack when narrow, a wrapping label,
the button that folds the settings away."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QFormLayout, QLabel, QToolButton, QWidget


class WrappedLabel(QLabel):
    """A word-wrapping label that grows its minimum height instead of using height-for-width.

    In the window's scroll area a height-for-width layout is given its preferred height, which
    made the charts taller than the tab and scrolled the table out of sight.
    """

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)

    def hasHeightForWidth(self) -> bool:
        return False  # QLabel turns it back on with every setText

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), self.heightForWidth(self.width())) if self.width() > 1 else hint

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        # QLabel answers -1 ("no preference") for some texts, e.g. an empty one.
        self.setMinimumHeight(max(0, self.heightForWidth(max(self.width(), 1))))


class FormColumns(QWidget):
    """Two form columns side by side, stacked into one when the panel is too narrow."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.left = form_layout()
        self.right = form_layout()
        self._box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSpacing(10)
        self._box.addLayout(self.left, 1)
        self._box.addLayout(self.right, 1)

    def two_column_width(self) -> int:
        spacing = self._box.spacing()
        return self.left.minimumSize().width() + self.right.minimumSize().width() + spacing

    def minimumSizeHint(self) -> QSize:
        # The one-column width: the panel may get that narrow; resizeEvent then stacks.
        hint = super().minimumSizeHint()
        one = max(self.left.minimumSize().width(), self.right.minimumSize().width())
        return QSize(one, hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        wanted = (
            QBoxLayout.Direction.LeftToRight
            if event.size().width() >= self.two_column_width()
            else QBoxLayout.Direction.TopToBottom
        )
        if self._box.direction() != wanted:
            self._box.setDirection(wanted)
        super().resizeEvent(event)


def form_layout() -> QFormLayout:
    form = QFormLayout()
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    return form


class SettingsToggle(QToolButton):
    """Shows or folds away the settings form so the charts get the room; named for what a
    click does. Its words keep the panel's translation context (they were the panel's)."""

    def __init__(self, settings: QWidget) -> None:
        super().__init__()
        self._settings = settings
        self.setObjectName("settingsToggle")
        self.setCheckable(True)
        self.setChecked(True)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggled.connect(self._show)
        self.retranslate()

    def _show(self, shown: bool) -> None:
        self._settings.setVisible(shown)
        self.retranslate()

    def retranslate(self) -> None:
        shown = self.isChecked()
        self.setText(
            QCoreApplication.translate("SweepPanel", "Hide sweep settings")
            if shown
            else QCoreApplication.translate("SweepPanel", "Show sweep settings")
        )
        self.setToolTip(
            QCoreApplication.translate(
                "SweepPanel", "Fold the sweep settings away so the charts get the room"
            )
            if shown
            else QCoreApplication.translate("SweepPanel", "Show the sweep settings form")
        )
        self.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
