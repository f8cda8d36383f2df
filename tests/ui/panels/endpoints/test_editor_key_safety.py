"""The endpoint editor warns before a key would travel unencrypted, refuses a key with control
characters, and refuses header values that cannot be sent; in English and Chinese."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.profiles import ProfileStore
from app.secrets import KeyStore
from app.ui.app_setup_i18n import Translations
from app.ui.panels.endpoints.editor import EndpointEditor


def make_editor(qtbot) -> EndpointEditor:
    editor = EndpointEditor(ProfileStore(), KeyStore(), lambda: "http://127.0.0.1:9")
    qtbot.addWidget(editor)
    editor.show()
    editor.new_profile(None)
    return editor


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    translations = Translations(qapp)
    assert translations.install("zh_CN")
    yield
    translations.install("en")


@pytest.mark.parametrize(
    ("url", "key", "shown"),
    [
        ("http://10.1.2.3:8000", "sk-lab-123", True),
        ("http://gpu-box.lan:8000/v1", "sk-lab-123", True),
        ("https://10.1.2.3:8000", "sk-lab-123", False),
        ("http://localhost:8000", "sk-lab-123", False),
        ("http://127.0.0.1:8000", "sk-lab-123", False),
        ("http://10.1.2.3:8000", "", False),
    ],
)
def test_cleartext_warning_follows_url_and_key(qtbot, memory_keyring, url, key, shown) -> None:
    editor = make_editor(qtbot)
    editor.form.url_edit.setText(url)
    editor.form.key_edit.setText(key)
    assert editor.form.cleartext_label.isVisible() is shown
    if shown:
        host = url.split("//")[1].split(":")[0]
        assert editor.form.cleartext_label.text().startswith(
            f"The key would be sent unencrypted: {host} is reached over plain http://."
        )
    editor.form.url_edit.setText("https://secure.example.test")  # fixing the URL hides it at once
    assert not editor.form.cleartext_label.isVisible()


def test_cleartext_warning_in_chinese(qtbot, memory_keyring, chinese) -> None:
    editor = make_editor(qtbot)
    editor.form.url_edit.setText("http://10.1.2.3:8000")
    editor.form.key_edit.setText("sk-lab-123")
    assert editor.form.cleartext_label.isVisible()
    assert editor.form.cleartext_label.text().startswith(
        "密钥将以明文发送：10.1.2.3 通过未加密的 http://"
    )


def test_a_key_with_a_control_character_is_not_saved(qtbot, memory_keyring) -> None:
    editor = make_editor(qtbot)
    editor.form.url_edit.setText("https://gw.example.test")
    editor.form.key_edit.setText("sk-lab-123\x00X")  # a QLineEdit keeps what a keyring paste gives
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    assert editor.message.text().startswith("The API key contains a line break or another")
    assert "sk-lab-123" not in editor.message.text()
    assert memory_keyring.entries == {}
