"""API-key copy-paste slips, a key shown safely, and the doctor's authentication check."""

from __future__ import annotations

from app.bench.doctor.probe import Probe
from app.bench.doctor.report import WINDOW_SOURCES, Check, Msg, msg, verbatim
from app.bench.http import failures
from app.bench.http.auth import cleartext_host

_WS_NAMES = {" ": "space", "\t": "tab", "\n": "newline", "\r": "carriage return"}
_WS_OTHER = "whitespace character"
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
    return [m.render() for m in key_problem_messages(key)]


def key_problem_messages(key: str) -> list[Msg]:
    """key_problems as translatable phrases."""
    found = []
    lead, trail, core = key[: len(key) - len(key.lstrip())], key[len(key.rstrip()) :], key.strip()
    if lead:
        found.append(msg("a leading {what}", what=msg(_WS_NAMES.get(lead[0], _WS_OTHER))))
    if trail:
        found.append(msg("a trailing {what}", what=msg(_WS_NAMES.get(trail[-1], _WS_OTHER))))
    if any(c.isspace() for c in core):
        found.append(msg("whitespace inside it"))
    if len(core) >= 2 and core[0] == core[-1] and core[0] in "\"'":
        found.append(msg("quotes around it"))
    if core.lower().startswith("bearer "):
        found.append(msg("the word 'Bearer' in it (TPOT Bench adds that itself)"))
    return found


def auth_check(probe: Probe, statuses: list[int]) -> Check:
    """Whether the key was accepted, given the HTTP statuses the first requests got."""
    t = probe.target
    key = t.api_key or ""
    problems = key_problem_messages(key) if key.strip() else []
    header = f"Authorization: Bearer {redact_key(key)}"
    source: Msg | str = ""
    if t.key_source:
        # The profile phrase is the UI's; the CLI's (environment variable names) stay as data.
        said = msg(t.key_source) if t.key_source in WINDOW_SOURCES else verbatim(t.key_source)
        source = msg(" ({source})", source=said)
    if any(s in (401, 403) for s in statuses):
        status = 403 if 403 in statuses and 401 not in statuses else 401
        return _rejected(status, key, problems, header, source)
    if all(s in (404, 405) for s in statuses):
        return Check.of(
            "auth",
            "warn",
            msg("not confirmed: every URL tried answered 404/405, so the key was never checked"),
            msg("Fix the path first (next check), then run the doctor again."),
        )
    return _accepted(t.base_url, key, problems, header, source)


def _rejected(status: int, key: str, problems: list[Msg], header: str, source: Msg | str) -> Check:
    """The verdict on a 401/403: no key sent, a flawed key, or a key for somewhere else."""
    if not key.strip():
        return Check.of(
            "auth",
            "fail",
            msg(
                "HTTP {status}: the server wants a key and none was sent{source}",
                status=status,
                source=source,
            ),
            msg(
                "Set the key in the environment variable named by --api-key-env (e.g. "
                "export OPENAI_API_KEY=...) or in the profile; local vLLM needs none, a "
                "gateway does."
            ),
        )
    if problems:
        detail = msg(
            "HTTP {status}: the server rejected {header}{source}; the key has {problems}",
            status=status,
            header=header,
            source=source,
            problems=problems,
        )
    else:
        detail = msg(
            "HTTP {status}: the server rejected {header}{source}: a key for another "
            "endpoint, mistyped, or expired",
            status=status,
            header=header,
            source=source,
        )
    return Check.of("auth", "fail", detail, msg(failures.fix_for(f"http_{status}")))


def _accepted(
    base_url: str, key: str, problems: list[Msg], header: str, source: Msg | str
) -> Check:
    """The verdict when the server let the request through: no key asked for, a key with
    stray characters, a key sent in clear text, or simply accepted."""
    if not key.strip():
        return Check.of("auth", "ok", msg("no key sent, and the server did not ask for one"))
    if problems:
        return Check.of(
            "auth",
            "warn",
            msg(
                "accepted {header}{source}, but the key has {problems}; TPOT Bench strips "
                "surrounding whitespace before sending",
                header=header,
                source=source,
                problems=problems,
            ),
            msg(
                "Remove the stray characters where the key is stored: curl, vllm bench serve "
                "and SDKs send it as is and get 401."
            ),
        )
    host = cleartext_host(base_url, key)
    if host is not None:
        return Check.of(
            "auth",
            "warn",
            msg(
                "accepted {header}{source}, but over plain http:// to {host}: the key crossed "
                "the network unencrypted",
                header=header,
                source=source,
                host=host,
            ),
            msg(
                "Use https:// for this server, or reach it through an SSH tunnel to localhost: "
                "anyone on the way can read the key."
            ),
        )
    return Check.of("auth", "ok", msg("accepted {header}{source}", header=header, source=source))
