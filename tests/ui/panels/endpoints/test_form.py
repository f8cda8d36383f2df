"""The endpoint form alone: one profile in, the same profile out; edits signalled; bad headers."""

from __future__ import annotations

import asyncio

import pytest

from app.profiles import Profile, ProfileError
from app.ui.panels.endpoints.form import EndpointForm


def make_form(qtbot) -> tuple[EndpointForm, list[tuple[object, bool]]]:
    said: list[tuple[object, bool]] = []
    form = EndpointForm(lambda text, error: said.append((text, error)))
    qtbot.addWidget(form)
    return form, said


def test_a_profile_shown_comes_back_unchanged_with_its_roofline(qtbot) -> None:
    form, _said = make_form(qtbot)
    lab = Profile(
        name="lab",
        kind="vllm",
        base_url="http://10.1.2.3:8000",
        api="completions",
        model="qwen2.5-7b",
        verify_tls=False,
        headers={"X-Team": "perf", "X-Trace": "a=b"},
        roofline={"gpu_id": "rtx3090"},
        ray_address="auto",
    )
    form.show_profile(lab, name="lab", url=lab.base_url, key="sk-lab")
    assert form.profile(lab, "lab") == lab
    assert form.key() == "sk-lab"
    assert not form.name_edit.isReadOnly() and not form.url_edit.isReadOnly()


def test_the_simulator_keeps_its_name_and_no_url_whatever_is_shown(qtbot) -> None:
    form, _said = make_form(qtbot)
    sim = Profile(name="simulator", kind="simulator", model="qwen2.5-7b")
    form.show_profile(sim, name="内置模拟器", url="http://127.0.0.1:4567", key="")
    assert form.name_edit.isReadOnly() and form.url_edit.isReadOnly()
    back = form.profile(sim, "simulator")
    assert (back.name, back.kind, back.base_url) == ("simulator", "simulator", "")


def test_every_field_edit_is_signalled_and_changes_the_state(qtbot) -> None:
    form, _said = make_form(qtbot)
    form.show_profile(Profile(name="a", base_url="http://h:1"), name="a", url="http://h:1", key="")
    loaded = form.state()
    edits = (
        lambda: form.url_edit.setText("http://h:2"),
        lambda: form.api_combo.setCurrentIndex(1),
        lambda: form.model.combo.setEditText("m2"),
        lambda: form.key_edit.setText("sk-2"),
        lambda: form.tls_check.setChecked(False),
        lambda: form.headers_edit.setPlainText("A: 1"),
        lambda: form.ray_edit.setText("auto"),
        lambda: form.name_edit.setText("b"),
    )
    for edit in edits:
        with qtbot.waitSignal(form.edited, timeout=1000):
            edit()
    assert all(now != then for now, then in zip(form.state(), loaded, strict=True))


def test_a_bad_header_line_is_refused_and_listing_models_says_so(qtbot) -> None:
    form, said = make_form(qtbot)
    form.headers_edit.setPlainText("A: 1\nnot a header")
    with pytest.raises(ProfileError, match="line 2"):
        form.profile(None, "")
    assert asyncio.run(form.fetch_models()) == []  # refused before anything is sent
    assert said and said[-1][1] is True and "line 2" in str(said[-1][0])
