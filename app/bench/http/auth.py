"""What a request carries besides its body: the key as a bearer header, extra headers checked
before sending, a key never shown (redaction), and the cleartext warning."""

from __future__ import annotations

import ipaddress
import json
import re
from urllib.parse import urlsplit

from app.bench.http.endpoint import CONTROL_CHARS, EndpointError


class AuthHeaders(dict[str, str]):
    """A plain header dict whose repr and str never show the Authorization value."""

    def __repr__(self) -> str:
        shown = {k: ("<redacted>" if k.lower() == "authorization" else v) for k, v in self.items()}
        return f"AuthHeaders({shown!r})"

    __str__ = __repr__


def is_loopback_host(host: str) -> bool:
    """Whether a host name or address is this computer (traffic never leaves it)."""
    host = host.strip("[]").split("%", 1)[0].rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is loopback too
    return address.is_loopback or address.is_unspecified or bool(mapped and mapped.is_loopback)


def cleartext_host(url: str, api_key: str | None) -> str | None:
    """The host a key would reach unencrypted (http:// to another computer), else None."""
    if not (api_key or "").strip():
        return None
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
    except ValueError:
        return None
    if parts.scheme.lower() != "http" or not host or is_loopback_host(host):
        return None
    return host


def cleartext_warning(url: str, api_key: str | None) -> str | None:
    """The CLI's warning line when the key would travel unencrypted, else None."""
    host = cleartext_host(url, api_key)
    if host is None:
        return None
    return (
        f"warning: the API key is sent unencrypted over http:// to {host}; anyone on the way "
        "can read it. Use https:// (or an SSH tunnel to localhost)."
    )


_KEY_RUN = re.compile(r"[A-Za-z0-9._~+/=-]{6,}")

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110 field-name characters


def header_problem(name: str, value: str) -> str | None:
    """Why a header cannot be sent as written, as a sentence that never shows the value (it
    may be a secret); None when it can."""
    if not _TOKEN.match(name):
        return f"header name {name!r} is not valid: use letters, digits and '-'"
    if CONTROL_CHARS.search(value):
        return f"the value of header {name} contains a control character (a line break or NUL)"
    if not value.isascii():
        return f"the value of header {name} is not plain ASCII, which HTTP headers require"
    return None


def key_problem(api_key: str | None) -> str | None:
    """Why a key cannot be sent, as a sentence that never shows it; None when it can.

    A line break in a header value would let the key's tail inject headers, and the HTTP
    library's error about it quotes the whole value: refused before anything is sent.
    """
    key = (api_key or "").strip()
    where = "; remove it where the key is stored (environment variable or keyring entry)"
    if "\n" in key or "\r" in key:
        return "the API key contains a line break" + where
    if CONTROL_CHARS.search(key):
        return "the API key contains a control character (such as NUL or a tab)" + where
    if not key.isascii():
        return "the API key contains non-ASCII characters (a curly quote or similar)" + where
    return None


def auth_headers(api_key: str | None, extra_headers: dict[str, str] | None = None) -> AuthHeaders:
    """Headers for a request: extra headers, then ``Authorization: Bearer KEY`` if a key is set.

    Surrounding whitespace (a common copy-paste slip) is stripped from the key. EndpointError
    (never quoting the key) for a key or header that cannot be sent.
    """
    headers = AuthHeaders(extra_headers or {})
    for name, value in headers.items():
        if problem := header_problem(name, value):
            raise EndpointError(problem)
    if problem := key_problem(api_key):
        raise EndpointError(problem)
    key = (api_key or "").strip()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def _key_forms(key: str) -> list[str]:
    """The ways a message may spell a key: as is, escaped as repr/JSON/bytes do, and each
    piece between control characters (an error may quote only up to a line break)."""
    forms = {key, json.dumps(key, ensure_ascii=False)[1:-1], json.dumps(key)[1:-1]}
    forms.add(repr(key)[1:-1])
    forms.add(repr(key.encode("utf-8", "backslashreplace"))[2:-1])
    forms.add(key.encode("unicode_escape").decode("ascii"))
    forms |= {f.replace("\\", "\\\\") for f in list(forms)}  # escaped twice (repr of a repr)
    forms = {f for f in forms if len(f) >= 4}
    # Its plain runs, whatever escaping surrounds them (JSON of a repr, and so on).
    forms |= set(_KEY_RUN.findall(key))
    return sorted(forms, key=len, reverse=True)


def redact(text: str, api_key: str | None) -> str:
    """Remove a key from a message that may echo it, in any escaped form (surrounding
    whitespace is no secret)."""
    key = (api_key or "").strip()
    if len(key) < 4:
        return text
    for form in _key_forms(key):
        text = text.replace(form, "<redacted>")
    return text
