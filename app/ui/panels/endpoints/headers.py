"""The editor's Headers field: 'Name: value' lines (KEY=VALUE too) into a header dict."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.bench.http.auth import header_problem
from app.profiles import ProfileError


def parse_headers(text: str) -> dict[str, str]:
    """'Name: value' lines (KEY=VALUE accepted too, as on the command line) into a dict;
    raises ProfileError naming the bad line."""
    from app.commands.connection import split_header

    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        pair = split_header(line)
        if pair is None:
            raise ProfileError(f"Header line {number} must look like 'Name: value'.")
        name, value = pair
        if header_problem(name, value):
            raise ProfileError(
                QCoreApplication.translate(
                    "EndpointEditor",
                    "Header line {number}: use letters, digits and '-' in the name and plain "
                    "ASCII without control characters in the value.",
                ).format(number=number)
            )
        headers[name] = value
    return headers


def headers_text(headers: dict[str, str]) -> str:
    """A header dict as the field shows it, one 'Name: value' per line."""
    return "\n".join(f"{k}: {v}" for k, v in headers.items())
