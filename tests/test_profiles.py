"""Profiles file: presets on first run, versioned JSON, atomic save, no key ever written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.profiles import (
    SCHEMA_VERSION,
    Profile,
    ProfileError,
    ProfileStore,
    Target,
    config_dir,
)


def test_first_run_has_the_three_presets(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    assert [(p.kind, p.base_url, p.model) for p in store.profiles] == [
        ("simulator", "", "qwen2.5-7b"),
        ("vllm", "http://localhost:8000", "qwen2.5-7b"),
        ("gateway", "https://taotoken.net/api", ""),
    ]
    assert not (tmp_path / "profiles.json").exists()  # nothing written until something changes


def test_add_edit_delete_round_trip(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    store.add(Profile(name="lab", kind="vllm", base_url="http://10.0.0.5:8000", model="m"))
    store.update(
        "lab",
        Profile(
            name="lab2", kind="vllm", base_url="http://10.0.0.5:8001", headers={"X-Team": "perf"}
        ),
    )
    data = json.loads((tmp_path / "profiles.json").read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    again = ProfileStore(tmp_path)
    lab = again.get("lab2")
    assert lab is not None and lab.base_url == "http://10.0.0.5:8001"
    assert lab.headers == {"X-Team": "perf"}
    assert again.get("lab") is None
    again.remove("lab2")
    assert ProfileStore(tmp_path).get("lab2") is None


def test_profiles_file_has_no_key_field(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    store.add(Profile(name="gw", kind="gateway", base_url="https://example.invalid/api"))
    text = (tmp_path / "profiles.json").read_text()
    assert "key" not in text.lower().replace("verify_tls", "")


@pytest.mark.parametrize(
    ("profile", "words"),
    [
        (Profile(name=" ", base_url="http://x"), "name"),
        (Profile(name="a", base_url=""), "base URL"),
        (Profile(name="a", base_url="localhost:8000"), "http://"),
        (Profile(name="a", base_url="http://x", headers={"Bad Name": "v"}), "Header"),
    ],
)
def test_invalid_profiles_get_one_sentence(tmp_path: Path, profile: Profile, words: str) -> None:
    with pytest.raises(ProfileError, match=words):
        ProfileStore(tmp_path).add(profile)


def test_duplicate_names_and_simulator_delete_are_refused(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    with pytest.raises(ProfileError, match="exists"):
        store.add(Profile(name="TaoToken", base_url="https://x"))
    with pytest.raises(ProfileError, match="cannot be deleted"):
        store.remove(store.simulator().name)
    assert store.unique_name("TaoToken") == "TaoToken 2"


def test_corrupt_file_is_kept_aside_and_presets_restored(tmp_path: Path) -> None:
    (tmp_path / "profiles.json").write_text("{not json")
    store = ProfileStore(tmp_path)
    assert len(store.profiles) == 3
    assert "could not be read" in store.load_warning
    assert (tmp_path / "profiles.json.bad").read_text() == "{not json"


def test_newer_schema_is_not_silently_overwritten(tmp_path: Path) -> None:
    (tmp_path / "profiles.json").write_text(json.dumps({"schema_version": 99, "profiles": []}))
    store = ProfileStore(tmp_path)
    assert "newer" in store.load_warning


def test_roofline_context_is_saved(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    ctx = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16", "kv_dtype": "fp16"}
    store.set_roofline(store.simulator().name, ctx)
    assert ProfileStore(tmp_path).simulator().roofline == ctx


def test_target_repr_hides_the_key() -> None:
    t = Target("p", "http://x", "chat", "m", api_key="sk-topsecret")
    assert "sk-topsecret" not in repr(t)
    assert "sk-topsecret" not in str(t)
    assert "api_key=<set>" in repr(t)


def test_config_dir_env_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path))
    assert config_dir() == tmp_path


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "lab", "base_url": 5}, "profiles[0].base_url is 5, expected a text"),
        ({"name": "lab", "headers": ["x"]}, "profiles[0].headers is ['x'], expected an object"),
        ({"name": "lab", "headers": {"X": 1}}, "profiles[0].headers['X'] is 1, expected a text"),
        ({"name": "lab", "verify_tls": "no"}, "profiles[0].verify_tls is 'no', expected true or"),
        ({"name": "lab", "roofline": [1]}, "profiles[0].roofline is [1], expected an object"),
        ({"name": "lab", "ray_address": 6379}, "profiles[0].ray_address is 6379, expected a text"),
        ({"name": 7}, "profiles[0].name is 7, expected a text"),
        ({"base_url": "http://h"}, "profiles[0] has no name"),
        ("lab", "profiles[0] is 'lab', expected an object"),
    ],
)
def test_a_profile_with_wrong_types_is_left_out_naming_file_and_field(
    tmp_path: Path, entry: object, message: str
) -> None:
    good = {"name": "ok", "base_url": "http://127.0.0.1:9", "model": "m"}
    text = json.dumps({"schema_version": 1, "profiles": [entry, good]})
    (tmp_path / "profiles.json").write_text(text)
    store = ProfileStore(tmp_path)
    assert store.load_warning.startswith(f"{tmp_path / 'profiles.json'}: {message}")
    assert "\n" not in store.load_warning
    assert store.get("ok") is not None and store.get("ok").base_url == "http://127.0.0.1:9"
    assert (tmp_path / "profiles.json.bad").read_text() == text  # the file as it was, kept


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"schema_version": "1", "profiles": []}', "schema_version is '1', expected a number"),
        ('{"schema_version": 1, "profiles": 5}', "profiles is 5, expected a list"),
        ("[1]", "it holds [1], not an object"),
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply"),
    ],
)
def test_a_profiles_file_of_the_wrong_shape_says_what(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "profiles.json").write_text(text)
    store = ProfileStore(tmp_path)
    assert message in store.load_warning and len(store.profiles) == 3
