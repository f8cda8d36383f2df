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
