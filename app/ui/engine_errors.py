"""The engine's error lines in the window's language.

A sweep's engine is a child process that reports a run-stopping problem as one English line
(an `error` event). The lines it can send are known templates (app/bench: discovery, point and
sweep.csv writes, the results folder, load workers); each has its window sentence here, said
in the window's terms (fields, tabs) rather than the terminal's (flags, commands), and
translated. The engine's values are kept; a line no template matches is shown as it came,
with its command-line advice said the window's way (window_error).
"""

from __future__ import annotations

import errno
import re
from functools import cache

from PySide6.QtCore import QCoreApplication

from app.ui.panels.doctor.window_words import window_error
from app.ui.translate_noop import QT_TRANSLATE_NOOP

CONTEXT = "EngineErrors"

# Engine template (exactly as app/bench writes it; {name} is a value) -> window template.
# Templates are tried in order: a more specific one comes before a general one.
TEMPLATES: tuple[tuple[str, str], ...] = (
    (
        "HTTP {status} from {url}: the server wants an API key and none was sent; export "
        "OPENAI_API_KEY=... (or name your variable with --api-key-env)",
        QT_TRANSLATE_NOOP(
            "EngineErrors",
            "HTTP {status} from {url}: the server wants an API key and none was sent; enter it "
            "in the endpoint's API key field",
        ),
    ),
    (
        "HTTP {status} from {url}: the server rejected the API key (a key for another "
        "endpoint, mistyped, or expired); check the key, or run 'tpotbench doctor'",
        QT_TRANSLATE_NOOP(
            "EngineErrors",
            "HTTP {status} from {url}: the server rejected the API key (a key for another "
            "endpoint, mistyped, or expired); check the key, or open the Doctor tab and press "
            "Check connection",
        ),
    ),
    (
        "cannot reach {url} (timeout: no complete answer within --request-timeout {limit})",
        QT_TRANSLATE_NOOP(
            "EngineErrors",
            "cannot reach {url}: no complete answer within {limit} (the Request time-out in "
            "the Sweep tab's advanced settings)",
        ),
    ),
    ("cannot reach {url} ({kind}: {detail})",
     QT_TRANSLATE_NOOP("EngineErrors", "cannot reach {url} ({kind}: {detail})")),
    (
        "{problem}; the sweep stopped after {saved} of {planned} point(s), those are kept",
        QT_TRANSLATE_NOOP(
            "EngineErrors",
            "{problem}; the sweep stopped after {saved} of {planned} point(s), those are kept",
        ),
    ),
    (
        "cannot write {path} ({reason}); it lists only the points before this one",
        QT_TRANSLATE_NOOP(
            "EngineErrors",
            "cannot write {path} ({reason}); it lists only the points before this one",
        ),
    ),
    (
        "cannot write {path} ({reason}); the old one is removed as out of date",
        QT_TRANSLATE_NOOP(
            "EngineErrors", "cannot write {path} ({reason}); the old one is removed as out of date"
        ),
    ),
    ("cannot write {path}: {reason}",
     QT_TRANSLATE_NOOP("EngineErrors", "cannot write {path}: {reason}")),
    (
        "--result-dir: cannot write in {folder} ({reason})",
        QT_TRANSLATE_NOOP("EngineErrors", "cannot write in the results folder {folder} ({reason})"),
    ),
    ("{folder}: no free file name for {base}",
     QT_TRANSLATE_NOOP("EngineErrors", "{folder}: no free file name for {base}")),
    ("cannot start a load worker process: {reason}",
     QT_TRANSLATE_NOOP("EngineErrors", "cannot start a load worker process: {reason}")),
    ("load worker {n} failed to start: {reason}",
     QT_TRANSLATE_NOOP("EngineErrors", "load worker {n} failed to start: {reason}")),
    (
        "only {ready} of {count} load workers were ready after {s} s; check the workers' "
        "machines can reach the endpoint",
        QT_TRANSLATE_NOOP(
            "EngineErrors",
            "only {ready} of {count} load workers were ready after {s} s; check the workers' "
            "machines can reach the endpoint",
        ),
    ),
    ("The sweep failed.", QT_TRANSLATE_NOOP("EngineErrors", "The sweep failed.")),
    # A connection's failure, inside "cannot reach ..." (app/bench/http/failures.py).
    ("cannot connect: {os}", QT_TRANSLATE_NOOP("EngineErrors", "cannot connect: {os}")),
    ("host name not found: {os}",
     QT_TRANSLATE_NOOP("EngineErrors", "host name not found: {os}")),
    ("TLS failed: {os}", QT_TRANSLATE_NOOP("EngineErrors", "TLS failed: {os}")),
    ("cannot use this URL: {os}", QT_TRANSLATE_NOOP("EngineErrors", "cannot use this URL: {os}")),
)  # fmt: skip

# The operating system's words for the usual reasons a write fails (strerror), and the
# failure kinds a connection reports (app/bench/http/failures.py).
REASONS: dict[str, str] = {
    "No space left on device": QT_TRANSLATE_NOOP("EngineErrors", "No space left on device"),
    "Read-only file system": QT_TRANSLATE_NOOP("EngineErrors", "Read-only file system"),
    "Permission denied": QT_TRANSLATE_NOOP("EngineErrors", "Permission denied"),
    "Is a directory": QT_TRANSLATE_NOOP("EngineErrors", "Is a directory"),
    "Not a directory": QT_TRANSLATE_NOOP("EngineErrors", "Not a directory"),
    "File exists": QT_TRANSLATE_NOOP("EngineErrors", "File exists"),
    "No such file or directory": QT_TRANSLATE_NOOP("EngineErrors", "No such file or directory"),
    "Disk quota exceeded": QT_TRANSLATE_NOOP("EngineErrors", "Disk quota exceeded"),
    "Input/output error": QT_TRANSLATE_NOOP("EngineErrors", "Input/output error"),
    "not a regular file (a folder, FIFO or device); name a file": QT_TRANSLATE_NOOP(
        "EngineErrors", "not a regular file (a folder, FIFO or device); name a file"
    ),
    "connect": QT_TRANSLATE_NOOP("EngineErrors", "connect"),
    "timeout": QT_TRANSLATE_NOOP("EngineErrors", "timeout"),
}

# A socket's failure as Python words it ("[Errno 111] Connect call failed ('127.0.0.1', 9)"):
# the number says what happened (the address is in the URL already).
ERRNOS: dict[int, str] = {
    errno.ECONNREFUSED: QT_TRANSLATE_NOOP("EngineErrors", "connection refused (nothing listens)"),
    errno.ECONNRESET: QT_TRANSLATE_NOOP("EngineErrors", "connection reset by the server"),
    errno.EHOSTUNREACH: QT_TRANSLATE_NOOP("EngineErrors", "no route to the host"),
    errno.ENETUNREACH: QT_TRANSLATE_NOOP("EngineErrors", "network unreachable"),
    errno.ETIMEDOUT: QT_TRANSLATE_NOOP("EngineErrors", "connection timed out"),
}
_ERRNO = re.compile(r"\[Errno (\d+)\].*", re.S)

# Values that are themselves engine lines (a write failure inside "the sweep stopped ...", a
# connection's failure inside "cannot reach ...").
_NESTED = ("problem", "detail")


@cache
def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", template)
    regex = "".join(
        f"(?P<{part}>.+?)" if k % 2 else re.escape(part) for k, part in enumerate(parts)
    )
    return re.compile(regex, re.S)


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def _value(name: str, value: str) -> str:
    if name in _NESTED:
        return engine_error(value)
    word = REASONS.get(value)
    if word is None and (found := _ERRNO.fullmatch(value)) is not None:
        word = ERRNOS.get(int(found.group(1)))
    return _tr(word) if word is not None else value


def engine_error(message: str) -> str:
    """The window's sentence for an engine error line, in the window's language."""
    for template, window in TEMPLATES:
        found = _pattern(template).fullmatch(message)
        if found is not None:
            values = {k: _value(k, v) for k, v in found.groupdict().items()}
            return _tr(window).format(**values)
    return window_error(message)
