"""The endpoint editor: profiles and their keys, through the widgets a user clicks."""

from __future__ import annotations

import json
from pathlib import Path

import keyring.backends.fail
from PySide6.QtCore import Qt

from app.profiles import ProfileStore, config_dir
from app.secrets import SERVICE, KeyStore
from app.ui.panels.endpoints.editor import EndpointEditor


def make_editor(qtbot, keys: KeyStore, sim_url: str = "http://127.0.0.1:9") -> EndpointEditor:
    editor = EndpointEditor(ProfileStore(), keys, lambda: sim_url)
    qtbot.addWidget(editor)
    return editor


def profiles_file() -> dict:
    return json.loads((config_dir() / "profiles.json").read_text())


def test_first_run_selects_the_simulator_and_shows_its_url(qtbot, memory_keyring) -> None:
    editor = make_editor(qtbot, KeyStore(), sim_url="http://127.0.0.1:4567")
    assert editor.current_profile().kind == "simulator"
    assert editor.form.url_edit.text() == "http://127.0.0.1:4567"
    assert editor.form.url_edit.isReadOnly()
    assert not editor.profile_list.delete_button.isEnabled()
    assert editor.profile_list.list.count() == 3


def test_create_edit_delete_with_key(qtbot, memory_keyring) -> None:
    editor = make_editor(qtbot, KeyStore())
    editor.new_profile(None)
    editor.form.name_edit.setText("lab box")
    editor.form.url_edit.setText("http://10.1.2.3:8000")
    editor.form.model.combo.setEditText("qwen2.5-7b")
    editor.form.key_edit.setText("sk-lab-123")
    editor.form.headers_edit.setPlainText("X-Team: perf\n")
    editor.form.tls_check.setChecked(False)
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    assert editor.message.text() == "Saved."
    assert memory_keyring.entries == {(SERVICE, "lab box"): "sk-lab-123"}
    saved = next(p for p in profiles_file()["profiles"] if p["name"] == "lab box")
    assert saved["base_url"] == "http://10.1.2.3:8000"
    assert saved["headers"] == {"X-Team": "perf"}
    assert saved["verify_tls"] is False
    assert "sk-lab-123" not in (config_dir() / "profiles.json").read_text()

    # Rename: the key follows the profile.
    editor.form.name_edit.setText("lab")
    editor.save_current()
    assert memory_keyring.entries == {(SERVICE, "lab"): "sk-lab-123"}

    editor.delete_current()
    assert memory_keyring.entries == {}
    assert "lab" not in [p["name"] for p in profiles_file()["profiles"]]
    assert editor.current_profile().kind == "simulator"
    expected = "Keys are stored in the OS keyring: keyring double MemoryKeyring"
    assert expected in editor.backend_label.text()


def test_bad_url_is_refused_with_a_sentence(qtbot, memory_keyring) -> None:
    editor = make_editor(qtbot, KeyStore())
    editor.select("Local vLLM")
    editor.form.url_edit.setText("localhost:8000")
    assert editor.save_current() is False
    assert "must start with http:// or https://" in editor.message.text()


def test_no_secure_backend_says_so_and_keeps_key_for_session(qtbot) -> None:
    keys = KeyStore(keyring.backends.fail.Keyring())
    editor = make_editor(qtbot, keys)
    assert "No secure keyring" in editor.backend_label.text()
    editor.select("TaoToken")
    editor.form.key_edit.setText("sk-tao")
    editor.form.model.combo.setEditText("deepseek-v3")
    assert editor.save_current()
    assert "session only" in editor.message.text()
    assert keys.get("TaoToken") == "sk-tao"
    config = config_dir()
    written = "".join(p.read_text() for p in Path(config).rglob("*") if p.is_file())
    assert "sk-tao" not in written


def test_preset_from_menu_gets_a_unique_name(qtbot, memory_keyring) -> None:
    editor = make_editor(qtbot, KeyStore())
    editor.new_profile(ProfileStore().get("TaoToken"))
    assert editor.current_name() == "TaoToken 2"
    assert editor.form.url_edit.text() == "https://taotoken.net/api"


def test_unsaved_edits_are_marked_and_used_by_a_run(qtbot, qloop, sim, memory_keyring) -> None:
    from app.ui.app_setup import settings
    from app.ui.app_setup_sim import SimulatorService
    from app.ui.main_window import AppContext, MainWindow

    service = SimulatorService()
    service.adopt(sim)
    win = MainWindow(AppContext(ProfileStore(), KeyStore(), settings(), service))
    qtbot.addWidget(win)
    win.show()
    editor = win.editor
    editor.select("Local vLLM")
    editor.form.url_edit.setText(sim.base_url)
    editor.form.model.combo.setEditText("qwen2.5-7b")
    assert editor.save_current()
    assert not editor.is_dirty() and editor.changed_label.isHidden()
    with qtbot.waitSignal(editor.dirtyChanged):
        editor.form.url_edit.setText("http://127.0.0.1:9")  # not saved
    assert editor.is_dirty() and not editor.changed_label.isHidden()
    assert editor.profile_list.list.currentItem().text().startswith("●")
    assert "127.0.0.1:9, unsaved edits" in win.status.endpoint.text()
    assert editor.store.get("Local vLLM").base_url == sim.base_url
    win.probe.max_tokens.setValue(4)
    with qtbot.waitSignal(win.probe.probeFinished, timeout=60_000) as blocker:
        win.probe.start()
    # The run used the URL the form shows, not the saved one.
    assert not blocker.args[0].ok
    assert "127.0.0.1:9" in win.probe.status.text() or "refused" in win.probe.status.text()
    editor.revert_button.click()
    assert not editor.is_dirty() and editor.form.url_edit.text() == sim.base_url
    assert not editor.profile_list.list.currentItem().text().startswith("●")


def test_a_ray_cluster_in_the_profile_sends_the_sweep_there(qtbot, memory_keyring) -> None:
    from app.commands.argv import SweepSpec, build_run_config

    editor = make_editor(qtbot, KeyStore())
    editor.new_profile(None)
    editor.form.name_edit.setText("cluster")
    editor.form.url_edit.setText("http://127.0.0.1:8000")
    editor.save_current()
    assert build_run_config(SweepSpec(), editor.form_target("")).endpoint.ray is None
    editor.form.ray_edit.setText("10.0.0.5:6379")
    assert editor.is_dirty()  # an edit like any other: marked, used as shown
    config = build_run_config(SweepSpec(), editor.form_target(""))
    assert config.endpoint.ray == "10.0.0.5:6379"
    editor.save_current()
    saved = next(p for p in profiles_file()["profiles"] if p["name"] == "cluster")
    assert saved["ray_address"] == "10.0.0.5:6379"
    assert not editor.is_dirty()


def test_the_list_shows_the_name_as_typed_until_saved(qtbot, memory_keyring) -> None:
    editor = make_editor(qtbot, KeyStore())
    editor.select("Local vLLM")
    row = editor.profile_list.list.currentRow()
    editor.form.name_edit.setText("Lab vLLM")
    assert editor.profile_list.list.item(row).text() == "● Lab vLLM"
    editor.form.name_edit.setText("Lab vLLM 2")
    assert editor.profile_list.list.item(row).text() == "● Lab vLLM 2"
    editor.revert_button.click()
    assert editor.profile_list.list.item(row).text() == "Local vLLM"
