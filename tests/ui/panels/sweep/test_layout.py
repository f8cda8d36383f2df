"""The Sweep panel's layout helpers."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.ui.panels.sweep.capacity_line import CapacityLine
from app.ui.panels.sweep.layout import WrappedLabel


def test_an_empty_wrapped_label_asks_for_no_negative_height(qtbot: QtBot) -> None:
    # QLabel's heightForWidth is -1 for an empty text; passed on, Qt warns "Negative sizes"
    # (a warning fails the test: qt_log_level_fail).
    label = WrappedLabel("")
    qtbot.addWidget(label)
    label.resize(300, 20)
    label.show()
    label.setText("")
    assert label.minimumHeight() >= 0
    label.setText("A sentence long enough to wrap over more than one line at this width. " * 3)
    assert label.minimumHeight() > label.fontMetrics().height()


def test_the_capacity_line_starts_without_a_warning(qtbot: QtBot) -> None:
    line = CapacityLine()
    qtbot.addWidget(line)
    line.resize(300, 20)
    line.show()
    assert line.minimumHeight() >= 0
