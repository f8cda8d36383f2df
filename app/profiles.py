"""Endpoint profiles: a versioned JSON file in the user's config directory, keys kept elsewhere."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

from app import jsonfile
from app.paths import config_dir

SCHEMA_VERSION = 1
FILE_NAME = "profiles.json"

Kind = Literal["simulator", "vllm", "gateway", "custom"]
Api = Literal["chat", "completions"]
KINDS: tuple[str, ...] = ("simulator", "vllm", "gateway", "custom")
APIS: tuple[str, ...] = ("chat", "completions")

SIMULATOR_NAME = "Built-in simulator"

log = logging.getLogger(__name__)


class ProfileError(ValueError):
    """A profile that cannot be saved as given; the message says what to change."""


@dataclass
class Profile:
    """One endpoint the user measures. The API key is not here: it lives in the keyring."""

    name: str
    kind: Kind = "custom"
    base_url: str = ""
    api: Api = "chat"
    model: str = ""
    verify_tls: bool = True
    headers: dict[str, str] = field(default_factory=dict)
    roofline: dict[str, Any] | None = None
    # Where sweeps run their load workers: "" for this machine, else a Ray cluster address
    # ("auto" or host:port), passed as `tpotbench sweep --ray`.
    ray_address: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any, where: str = "profile") -> Profile:
        """A profile from its saved form; ProfileError naming `where` and the field whose
        value has the wrong type."""
        if not isinstance(data, dict):
            raise ProfileError(f"{where} is {_short(data)}, expected an object")
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        for name, expected in _FIELD_TYPES.items():
            value = values.get(name)
            if name not in values or (value is None and name == "roofline"):
                continue
            if not isinstance(value, expected) or (name == "name" and not str(value).strip()):
                raise ProfileError(
                    f"{where}.{name} is {_short(value)}, expected {_TYPE_WORDS[expected]}"
                )
        if "name" not in values:
            raise ProfileError(f"{where} has no name")
        for key, value in (values.get("headers") or {}).items():
            if not isinstance(value, str):
                raise ProfileError(f"{where}.headers[{key!r}] is {_short(value)}, expected a text")
        profile = cls(**values)
        if profile.kind not in KINDS:
            profile.kind = "custom"
        if profile.api not in APIS:
            profile.api = "chat"
        profile.headers = {str(k): str(v) for k, v in dict(profile.headers or {}).items()}
        return profile


_FIELD_TYPES: dict[str, type] = {
    "name": str,
    "kind": str,
    "base_url": str,
    "api": str,
    "model": str,
    "verify_tls": bool,
    "headers": dict,
    "roofline": dict,
    "ray_address": str,
}
_TYPE_WORDS = {str: "a text", bool: "true or false", dict: "an object"}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Target:
    """Everything a panel needs to send requests to the selected endpoint, key included."""

    profile_name: str
    base_url: str
    api: str
    model: str
    verify_tls: bool = True
    headers: dict[str, str] = field(default_factory=dict)
    api_key: str = field(default="", repr=False)
    ray_address: str = ""

    def __repr__(self) -> str:
        key = "set" if self.api_key else "none"
        return (
            f"Target(profile_name={self.profile_name!r}, base_url={self.base_url!r}, "
            f"api={self.api!r}, model={self.model!r}, verify_tls={self.verify_tls}, "
            f"headers={sorted(self.headers)}, api_key=<{key}>)"
        )

    __str__ = __repr__


def presets() -> list[Profile]:
    """The profiles a first run starts with: the simulator, a local vLLM, and TaoToken."""
    return [
        # The simulator's URL is its free loopback port, only known once it has started.
        Profile(name=SIMULATOR_NAME, kind="simulator", base_url="", model="qwen2.5-7b"),
        Profile(
            name="Local vLLM", kind="vllm", base_url="http://localhost:8000", model="qwen2.5-7b"
        ),
        Profile(name="TaoToken", kind="gateway", base_url="https://taotoken.net/api", model=""),
    ]


def validate(profile: Profile) -> None:
    """Raise ProfileError with one sentence if the profile cannot be used as written."""
    if not profile.name.strip():
        raise ProfileError("Give the profile a name.")
    if profile.kind != "simulator":
        url = profile.base_url.strip()
        if not url:
            raise ProfileError("Enter a base URL such as http://localhost:8000.")
        if not url.startswith(("http://", "https://")):
            raise ProfileError(f"The base URL must start with http:// or https:// (got {url!r}).")
    for name in profile.headers:
        if not name or any(c in name for c in " :\r\n"):
            raise ProfileError(f"Header name {name!r} is not valid: use letters, digits and '-'.")


class ProfileStore:
    """Loads and saves the profiles file; keeps profile names unique."""

    def __init__(self, directory: Path | None = None) -> None:
        self.path = (directory or config_dir()) / FILE_NAME
        self.profiles: list[Profile] = []
        self.load_warning = ""
        self.load()

    def load(self) -> None:
        self.load_warning = ""
        if not self.path.exists():
            self.profiles = presets()
            return
        try:
            data = jsonfile.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError(f"it holds {_short(data)}, not an object")
            version = data.get("schema_version", 0)
            if isinstance(version, bool) or not isinstance(version, int):
                raise ValueError(f"schema_version is {_short(version)}, expected a number")
            if version > SCHEMA_VERSION:
                raise ValueError(f"it was written by a newer TPOT Bench (schema {version})")
            entries = data.get("profiles", [])
            if not isinstance(entries, list):
                raise ValueError(f"profiles is {_short(entries)}, expected a list")
        except (OSError, ValueError) as exc:
            backup = self.path.with_suffix(".json.bad")
            self.load_warning = (
                f"The profiles file could not be read ({exc}); it was kept as {backup.name} "
                "and the presets were restored."
            )
            log.warning("%s", self.load_warning)
            with contextlib.suppress(OSError):
                self.path.replace(backup)
            self.profiles = presets()
            return
        loaded, problems = [], []
        for index, entry in enumerate(entries):
            try:
                loaded.append(Profile.from_json(entry, f"profiles[{index}]"))
            except ProfileError as exc:
                problems.append(str(exc))
        if problems:
            # The others are used; the file as it was is kept beside it, since the next save
            # writes only the profiles that could be read.
            backup = self.path.with_suffix(".json.bad")
            with contextlib.suppress(OSError):
                shutil.copyfile(self.path, backup)
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            self.load_warning = (
                f"{self.path}: {problems[0]}{more}; that profile is left out, the file is kept "
                f"as {backup.name}."
            )
            log.warning("%s", self.load_warning)
        unique: dict[str, Profile] = {}
        for profile in loaded:
            unique.setdefault(profile.name, profile)
        self.profiles = list(unique.values())
        if not any(p.kind == "simulator" for p in self.profiles):
            self.profiles.insert(0, presets()[0])

    def save(self) -> None:
        """Write atomically so a crash mid-write never leaves a half file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "schema_version": SCHEMA_VERSION,
            "profiles": [p.to_json() for p in self.profiles],
        }
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)

    def names(self) -> list[str]:
        return [p.name for p in self.profiles]

    def get(self, name: str) -> Profile | None:
        return next((p for p in self.profiles if p.name == name), None)

    def simulator(self) -> Profile:
        sim = next((p for p in self.profiles if p.kind == "simulator"), None)
        if sim is None:
            sim = presets()[0]
            self.profiles.insert(0, sim)
        return sim

    def unique_name(self, base: str) -> str:
        if self.get(base) is None:
            return base
        n = 2
        while self.get(f"{base} {n}") is not None:
            n += 1
        return f"{base} {n}"

    def add(self, profile: Profile) -> Profile:
        validate(profile)
        if self.get(profile.name) is not None:
            raise ProfileError(f"A profile named {profile.name!r} exists; choose another name.")
        self.profiles.append(profile)
        self.save()
        return profile

    def update(self, old_name: str, profile: Profile) -> Profile:
        validate(profile)
        current = self.get(old_name)
        if current is None:
            raise ProfileError(f"No profile named {old_name!r}.")
        if profile.name != old_name and self.get(profile.name) is not None:
            raise ProfileError(f"A profile named {profile.name!r} exists; choose another name.")
        if current.kind == "simulator":
            # The simulator's URL is assigned at start-up; only the name, model and API may change.
            profile = replace(profile, kind="simulator", base_url="")
        self.profiles[self.profiles.index(current)] = profile
        self.save()
        return profile

    def remove(self, name: str) -> None:
        profile = self.get(name)
        if profile is None:
            return
        if profile.kind == "simulator":
            raise ProfileError("The built-in simulator cannot be deleted.")
        self.profiles.remove(profile)
        self.save()

    def set_roofline(self, name: str, context: dict[str, Any] | None) -> None:
        profile = self.get(name)
        if profile is not None and profile.roofline != context:
            profile.roofline = dict(context) if context else None
            self.save()
