"""The doctor's vocabulary: what it diagnoses, each check's verdict, and the whole report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CHECK_IDS = ("reachable", "auth", "path", "model", "body", "streaming", "metrics")
STATUSES = ("ok", "warn", "fail", "skip")


@dataclass
class Check:
    id: str
    status: str  # one of STATUSES; "skip" when an earlier failure makes the check meaningless
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "status": self.status, "detail": self.detail, "fix": self.fix}


@dataclass
class DoctorReport:
    resolved_url: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def check(self, check_id: str) -> Check:
        return next(c for c in self.checks if c.id == check_id)

    def to_json(self) -> dict[str, Any]:
        checks = [c.to_json() for c in self.checks]
        return {"ok": self.ok, "resolved_url": self.resolved_url, "checks": checks}


@dataclass(repr=False)
class DoctorTarget:
    """What to diagnose. `key_source` says where the key came from: "from $OPENAI_API_KEY"."""

    base_url: str
    endpoint: str | None = None
    api: str | None = None
    model: str | None = None
    api_key: str | None = None
    verify_tls: bool = True
    headers: dict[str, str] = field(default_factory=dict)
    key_source: str = ""

    def __repr__(self) -> str:
        return f"DoctorTarget(base_url={self.base_url!r}, api={self.api!r}, model={self.model!r})"

    @classmethod
    def from_target(cls, target: Any) -> DoctorTarget:
        """From a profiles.Target (or anything with its attributes)."""
        return cls(
            base_url=target.base_url,
            api=getattr(target, "api", None) or None,
            model=getattr(target, "model", None) or None,
            api_key=getattr(target, "api_key", None) or None,
            verify_tls=bool(getattr(target, "verify_tls", True)),
            headers=dict(getattr(target, "headers", {}) or {}),
            key_source="from the profile" if getattr(target, "profile_name", "") else "",
        )
