"""The doctor's vocabulary: what it diagnoses, each check's verdict, and the whole report."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.bench.schema.codec import to_json_obj

CHECK_IDS = ("reachable", "auth", "path", "model", "body", "streaming", "metrics")
STATUSES = ("ok", "warn", "fail", "skip")
VERBATIM = "{text}"  # a message that is data (a server's or another module's words), not a phrase
LIST_SEPARATOR = ", "
PROFILE_SOURCE = "from the profile"
# The window's key when the field holds an edit that was not saved (the profile's is another).
TYPED_SOURCE = "typed in the API key field, not saved"
WINDOW_SOURCES = (PROFILE_SOURCE, TYPED_SOURCE)  # said in the UI language, not as data


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Msg:
    """An English sentence as a template plus its parameters, so that a UI can translate it.

    Parameters are data (URLs, ids, numbers, server excerpts) or phrases of their own: a Msg,
    or a list of Msgs joined with LIST_SEPARATOR.
    """

    template: str
    args: dict[str, Any] = field(default_factory=dict)

    def render(self, translate: Callable[[str], str] = _same) -> str:
        """The sentence with every template passed through `translate` (English by default)."""
        if not self.args:
            return translate(self.template)
        values = {k: _render_arg(v, translate) for k, v in self.args.items()}
        try:
            return translate(self.template).format(**values)
        except (KeyError, IndexError, ValueError):  # a translation that broke a placeholder
            return self.template.format(**values)


def _render_arg(value: Any, translate: Callable[[str], str]) -> Any:
    if isinstance(value, Msg):
        return value.render(translate)
    if isinstance(value, list):
        return translate(LIST_SEPARATOR).join(str(_render_arg(v, translate)) for v in value)
    return value


def msg(template: str, **args: Any) -> Msg:
    return Msg(template, args)


def verbatim(text: str) -> Msg:
    """Text shown as is in every language."""
    return Msg(VERBATIM, {"text": text})


@dataclass
class Check:
    id: str
    status: str  # one of STATUSES; "skip" when an earlier failure makes the check meaningless
    detail: str
    fix: str = ""
    # The English detail and fix as templates (detail == detail_template.format(**detail_args)
    # after rendering nested phrases), for the UI's translation; empty for hand-made checks.
    detail_template: str = field(default="", repr=False)
    detail_args: dict[str, Any] = field(default_factory=dict, repr=False)
    fix_template: str = field(default="", repr=False)
    fix_args: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, check_id: str, status: str, detail: Msg, fix: Msg | None = None) -> Check:
        """A check whose English sentences are rendered from translatable messages."""
        fix = fix or Msg("")
        return cls(
            check_id,
            status,
            detail.render(),
            fix.render(),
            detail.template,
            dict(detail.args),
            fix.template,
            dict(fix.args),
        )

    @property
    def detail_msg(self) -> Msg:
        if self.detail_template:
            return Msg(self.detail_template, self.detail_args)
        return verbatim(self.detail)

    @property
    def fix_msg(self) -> Msg:
        return Msg(self.fix_template, self.fix_args) if self.fix_template else verbatim(self.fix)

    def document(self) -> CheckDoc:
        return CheckDoc(self.id, self.status, self.detail, self.fix)


@dataclass(frozen=True)
class CheckDoc:
    """A check as `tpotbench doctor --json` prints it: its English sentences."""

    id: str
    status: str
    detail: str
    fix: str


@dataclass
class DoctorReport:
    resolved_url: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def check(self, check_id: str) -> Check:
        return next(c for c in self.checks if c.id == check_id)

    def document(self) -> DoctorReportDoc:
        return DoctorReportDoc(self.ok, self.resolved_url, [c.document() for c in self.checks])

    def json_text(self) -> str:
        """The report as `tpotbench doctor --json` prints it and the window copies it."""
        return json.dumps(to_json_obj(self.document()), ensure_ascii=False, indent=2)


@dataclass(frozen=True)
class DoctorReportDoc:
    ok: bool
    resolved_url: str
    checks: list[CheckDoc]


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
            key_source=PROFILE_SOURCE if getattr(target, "profile_name", "") else "",
        )
