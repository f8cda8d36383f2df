"""The profile list alone: names in the UI language, the unsaved-edits mark, its buttons' asks."""

from __future__ import annotations

from app.profiles import ProfileStore
from app.ui.panels.endpoints.profile_list import ProfileList


def make_list(qtbot) -> ProfileList:
    profiles = ProfileList(ProfileStore())
    qtbot.addWidget(profiles)
    return profiles


def labels(profiles: ProfileList) -> list[str]:
    return [profiles.list.item(row).text() for row in range(profiles.list.count())]


def test_first_run_lists_the_simulator_and_the_presets(qtbot) -> None:
    profiles = make_list(qtbot)
    with qtbot.waitSignal(profiles.picked, timeout=1000) as picked:
        profiles.refresh("Local vLLM")
    assert picked.args == ["Local vLLM"]
    assert labels(profiles) == ["Built-in simulator (no GPU needed)", "Local vLLM", "TaoToken"]
    assert profiles.current_name() == "Local vLLM"
    profiles.refresh("no such profile")  # falls back to the first
    assert profiles.current_name() == profiles.store.names()[0]


def test_the_edited_profile_is_marked_until_the_mark_is_cleared(qtbot) -> None:
    profiles = make_list(qtbot)
    profiles.refresh("TaoToken")
    profiles.relabel("TaoToken")
    assert labels(profiles)[2] == "● TaoToken"
    profiles.refresh("TaoToken")  # a refresh keeps the mark
    assert labels(profiles)[2] == "● TaoToken"
    profiles.relabel("")
    assert labels(profiles)[2] == "TaoToken"


def test_new_and_delete_are_asked_of_the_owner(qtbot) -> None:
    profiles = make_list(qtbot)
    with qtbot.waitSignal(profiles.newRequested, timeout=1000) as custom:
        profiles.custom_action.trigger()
    assert custom.args == [None]
    action, preset = profiles.preset_actions[0]
    with qtbot.waitSignal(profiles.newRequested, timeout=1000) as from_preset:
        action.trigger()
    assert from_preset.args == [preset]
    with qtbot.waitSignal(profiles.deleteRequested, timeout=1000):
        profiles.delete_button.click()
