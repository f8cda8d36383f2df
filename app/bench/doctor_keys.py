"""API-key copy-paste slips, a key shown safely, and the doctor's authentication check."""

from __future__ import annotations

from app.bench import failures
from app.bench.doctor_probe import Probe
from app.bench.doctor_report import Check

_WS_NAMES = {" ": "space", "\t": "tab", "\n": "newline", "\r": "carriage return"}
_WS_MARKS = {" ": "␠", "\t": "⇥", "\n": "⏎", "\r": "␍"}


def redact_key(key: str) -> str:
    """A key shown with only a few characters, its stray whitespace made visible: sk-…abcd␠."""
    core = key.strip()
    lead = "".join(_WS_MARKS.get(c, "·") for c in key[: len(key) - len(key.lstrip())])
    trail = "".join(_WS_MARKS.get(c, "·") for c in key[len(key.rstrip()) :])
    # Long keys keep their vendor prefix ("sk-") and last four; short ones reveal less.
    if len(core) >= 20:
        shown = f"{core[:3]}…{core[-4:]}"
    elif len(core) >= 12:
        shown = f"…{core[-4:]}"
    else:
        shown = f"…{core[-2:]}" if len(core) >= 8 else "…"
    return f"{lead}{shown}{trail}"


def key_problems(key: str) -> list[str]:
    """Copy-paste slips in a key, as phrases: 'a trailing space', 'quotes around it', ..."""
    found = []
    lead, trail, core = key[: len(key) - len(key.lstrip())], key[len(key.rstrip()) :], key.strip()
    if lead:
        found.append(f"a leading {_WS_NAMES.get(lead[0], 'whitespace character')}")
    if trail:
        found.append(f"a trailing {_WS_NAMES.get(trail[-1], 'whitespace character')}")
    if any(c.isspace() for c in core):
        found.append("whitespace inside it")
    if len(core) >= 2 and core[0] == core[-1] and core[0] in "\"'":
        found.append("quotes around it")
    if core.lower().startswith("bearer "):
        found.append("the word 'Bearer' in it (TPOT Bench adds that itself)")
    return found


def auth_check(probe: Probe, statuses: list[int]) -> Check:
    """Whether the key was accepted, given the HTTP statuses the first requests got."""
    t = probe.target
    key = t.api_key or ""
    problems = key_problems(key) if key.strip() else []
    header = f"Authorization: Bearer {redact_key(key)}"
    source = f" ({t.key_source})" if t.key_source else ""
    if any(s in (401, 403) for s in statuses):
        status = 403 if 403 in statuses and 401 not in statuses else 401
        if not key.strip():
            return Check(
                "auth",
                "fail",
                f"HTTP {status}: the server wants a key and none was sent{source}",
                "Set the key in the environment variable named by --api-key-env (e.g. export "
                "OPENAI_API_KEY=...) or in the profile; local vLLM needs none, a gateway does.",
            )
        detail = f"HTTP {status}: the server rejected {header}{source}"
        if problems:
            detail += f"; the key has {', '.join(problems)}"
        else:
            detail += ": a key for another endpoint, mistyped, or expired"
        return Check("auth", "fail", detail, failures.fix_for(f"http_{status}"))
    if all(s in (404, 405) for s in statuses):
        return Check(
            "auth",
            "warn",
            "not confirmed: every URL tried answered 404/405, so the key was never checked",
            "Fix the path first (next check), then run the doctor again.",
        )
    if not key.strip():
        return Check("auth", "ok", "no key sent, and the server did not ask for one")
    if problems:
        return Check(
            "auth",
            "warn",
            f"accepted {header}{source}, but the key has {', '.join(problems)}; TPOT Bench "
            "strips surrounding whitespace before sending",
            "Remove the stray characters where the key is stored: curl, vllm bench serve and "
            "SDKs send it as is and get 401.",
        )
    return Check("auth", "ok", f"accepted {header}{source}")
