"""Endpoint resolution: base URL + endpoint path + API flavour -> one request URL."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

import httpx

Api = Literal["chat", "completions"]


# vLLM's --backend names map onto the two API flavours.
_API_ALIASES: dict[str, Api] = {
    "chat": "chat",
    "openai-chat": "chat",
    "completions": "completions",
    "openai": "completions",
}

_SUFFIX: dict[Api, list[str]] = {"chat": ["chat", "completions"], "completions": ["completions"]}

_BACKEND: dict[Api, str] = {"chat": "openai-chat", "completions": "openai"}

_VERSION = re.compile(r"v\d+(beta\d*|alpha\d*)?$")


# Ids of ResolvedEndpoint.corrections: what was changed in the URL as written.
CORRECTIONS = {
    "doubled_v1": "the base URL repeats a version segment (/v1/v1); one dropped",
    "doubled_v1_in_endpoint": "the endpoint repeats a version segment; one dropped",
    "path_on_base_url": "the base URL already ends with the endpoint; not appended twice",
    "v1_in_base_and_endpoint": "/v1 ends the base URL and starts the endpoint; used once",
    "api_v1_on_gateway_root": "a base URL with a path but no version; /v1/... appended",
}


class EndpointError(ValueError):
    """An endpoint that cannot be used as given; the message says why and what to pass instead."""


@dataclass(frozen=True, slots=True)
class ResolvedEndpoint:
    url: str
    api: Api
    root_url: str
    models_url: str
    metrics_url: str
    notes: list[str] = field(default_factory=list)  # for people: what was changed, and the URL
    model: str | None = None
    corrections: list[str] = field(default_factory=list)  # for code: ids from CORRECTIONS


def normalize_api(api: str | None) -> Api | None:
    if api is None:
        return None
    try:
        return _API_ALIASES[api.strip().lower()]
    except KeyError:
        raise EndpointError(
            f"unknown API flavour {_shown(api)}; use 'chat' (--backend openai-chat) "
            "or 'completions' (--backend openai)"
        ) from None


def _segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


def _api_of(segs: list[str]) -> tuple[Api | None, list[str]]:
    """The API a path ends in, and the path before it."""
    if segs[-2:] == ["chat", "completions"]:
        return "chat", segs[:-2]
    if segs[-1:] == ["completions"]:
        return "completions", segs[:-1]
    return None, segs


def _undouble(segs: list[str]) -> tuple[list[str], bool]:
    out: list[str] = []
    for s in segs:
        if out and s == out[-1] and _VERSION.match(s):
            continue
        out.append(s)
    return out, len(out) != len(segs)


def _path(segs: list[str]) -> str:
    return "/" + "/".join(segs) if segs else ""


CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")

_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")

_IPV4ISH = re.compile(r"[0-9.]+$")


def _shown(text: str) -> str:
    """A URL as quoted in a message: cut when long, since it is echoed to a terminal."""
    return repr(text if len(text) <= 120 else text[:117] + "...")


def _check_host(raw: str, host: str) -> None:
    """A host other clients can connect to: a valid IP literal or DNS name (IDNA allowed)."""
    if ":" in host:  # an IPv6 literal; urlsplit checked its brackets
        try:
            ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            raise EndpointError(f"base URL {_shown(raw)} has an invalid IPv6 address") from None
        return
    if _IPV4ISH.match(host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise EndpointError(
                f"base URL {_shown(raw)} has an invalid IPv4 address {host!r} "
                "(four numbers from 0 to 255, such as 127.0.0.1)"
            ) from None
        return
    try:
        ascii_host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        ascii_host = ""
    labels = ascii_host.rstrip(".").split(".")
    if not ascii_host or len(ascii_host) > 253 or not all(_LABEL.match(x) for x in labels):
        raise EndpointError(
            f"base URL {_shown(raw)} has an invalid host name; use a name such as "
            "localhost or api.example.com, or an IP address"
        )


def _parse_base(base_url: str) -> tuple[str, list[str], str]:
    raw = base_url.strip()
    if not raw:
        raise EndpointError("no base URL given; pass one such as http://localhost:8000")
    if CONTROL_CHARS.search(raw):
        raise EndpointError(
            "the base URL contains a control character (a line break, tab or NUL); "
            "retype it on one line"
        )
    if "://" not in raw:
        raise EndpointError(
            f"base URL '{raw}' has no scheme; write it as 'http://{raw}' (or https://)"
        )
    try:
        parts = urlsplit(raw)
    except ValueError as exc:  # an unclosed or invalid [IPv6] literal
        raise EndpointError(f"base URL {_shown(raw)} is not a valid URL: {exc}") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise EndpointError(
            f"base URL '{raw}' uses '{parts.scheme}://'; only http:// and https:// are supported"
        )
    if parts.username or parts.password:
        raise EndpointError(
            "the base URL contains a user name or password; remove it and pass the key "
            "through --api-key-env instead"
        )
    if not parts.hostname:
        raise EndpointError(f"base URL '{raw}' has no host name, e.g. http://localhost:8000")
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        raise EndpointError(
            f"base URL {_shown(raw)} has an invalid port; use a number from 1 to 65535"
        )
    if any(ch.isspace() for ch in raw):
        raise EndpointError(f"base URL {_shown(raw)} contains spaces; remove them")
    _check_host(raw, parts.hostname)
    origin = f"{parts.scheme.lower()}://{parts.netloc}"
    query = f"?{parts.query}" if parts.query else ""
    return origin, _segments(parts.path), query


def _check_endpoint(endpoint: str | None) -> None:
    if endpoint and CONTROL_CHARS.search(endpoint):
        raise EndpointError(
            "the endpoint contains a control character (a line break, tab or NUL); retype it"
        )
    if endpoint and "://" in endpoint:
        raise EndpointError(
            f"--endpoint '{endpoint}' is a full URL; pass the server root as the base URL "
            "and only the path (such as /v1/chat/completions) as the endpoint"
        )


def _join_endpoint(
    origin: str, base: list[str], endpoint: str, notes: list[str], corrections: list[str]
) -> list[str]:
    """The path of base URL + --endpoint: a path given twice or a version segment on both
    sides is used once (with a note); an API path on both that differs is an error."""
    base_api, base_prefix = _api_of(base)
    ep = _segments(endpoint.split("?", 1)[0])
    ep_api, ep_prefix = _api_of(ep)
    if ep_api is None:
        raise EndpointError(
            f"endpoint '{endpoint}' is not a completions endpoint; use "
            "/v1/chat/completions (chat) or /v1/completions (completions)"
        )
    if base_api is not None:
        if base_api == ep_api and base_prefix[-len(ep_prefix) :] == ep_prefix:
            segs = base
            notes.append(
                f"the base URL already ends with {endpoint}; not appended twice, "
                f"using {origin}{_path(segs)}"
            )
            corrections.append("path_on_base_url")
        else:
            fixed = _undouble(base_prefix + ep)[0]
            raise EndpointError(
                f"the base URL already ends in an API path ({_path(base)}) and the endpoint "
                f"adds {endpoint}; pass only the server root as the base URL "
                f"(such as {origin}), which gives {origin}{_path(fixed)}"
            )
    elif base and _VERSION.match(base[-1]) and ep and _VERSION.match(ep[0]):
        if base[-1] != ep[0]:
            raise EndpointError(
                f"the base URL ends with /{base[-1]} but the endpoint starts with /{ep[0]}; "
                f"drop one of them (the base URL's would give "
                f"{origin}{_path(base + ep[1:])})"
            )
        segs = base + ep[1:]
        notes.append(
            f"/{base[-1]} is both at the end of the base URL and at the start of the "
            f"endpoint; used once: {origin}{_path(segs)}"
        )
        corrections.append("v1_in_base_and_endpoint")
    else:
        segs = base + ep
        if base and ep and _VERSION.match(ep[0]):
            notes.append(
                f"kept the base URL's path {_path(base)} in front of the endpoint: "
                f"{origin}{_path(segs)}"
            )
    segs, doubled = _undouble(segs)
    if doubled:
        notes.append("the endpoint repeats a version segment; dropped one, using {url}")
        corrections.append("doubled_v1_in_endpoint")
    return segs


def _default_path(
    origin: str, base: list[str], want: Api | None, notes: list[str], corrections: list[str]
) -> list[str]:
    """The path without --endpoint: the base URL's own API path, else the API suffix after
    its version segment, else /v1 and the suffix (noted when the base URL has a path)."""
    if _api_of(base)[0] is not None:
        return base
    if base and _VERSION.match(base[-1]):
        return base + _SUFFIX[want or "chat"]
    segs = [*base, "v1", *_SUFFIX[want or "chat"]]
    if base:  # a bare server root is the usual vLLM case; a path there is a guess
        notes.append(
            f"no /v1 in the base URL; using {origin}{_path(segs)} "
            "(pass the full path with --endpoint if the server differs)"
        )
        corrections.append("api_v1_on_gateway_root")
    return segs


def resolve_endpoint(
    base_url: str,
    endpoint: str | None = None,
    api: str | None = None,
    model: str | None = None,
) -> ResolvedEndpoint:
    """Resolve vLLM-style (root + --endpoint) and OpenAI-style (API base) URLs to one URL.

    Raises EndpointError with a sentence naming the problem and the URL that would be used.
    """
    want = normalize_api(api)
    endpoint = endpoint.strip() if endpoint else None
    _check_endpoint(endpoint)
    origin, base, query = _parse_base(base_url)
    notes: list[str] = []
    corrections: list[str] = []

    base, doubled = _undouble(base)
    if doubled:
        notes.append("the base URL repeats a version segment; dropped one, using {url}")
        corrections.append("doubled_v1")
    if endpoint:
        segs = _join_endpoint(origin, base, endpoint, notes, corrections)
    else:
        segs = _default_path(origin, base, want, notes, corrections)

    got, api_base = _api_of(segs)
    assert got is not None  # every path above ends in an API suffix
    url = f"{origin}{_path(segs)}{query}"
    if want is not None and want != got:
        other = origin + _path(api_base + _SUFFIX[want])
        raise EndpointError(
            f"--backend {_BACKEND[want]} ({want} API) does not match {url}, which is the {got} "
            f"endpoint; use --backend {_BACKEND[got]}, or the {want} endpoint {other}"
        )
    root = api_base[:-1] if api_base and _VERSION.match(api_base[-1]) else api_base
    try:  # the HTTP client's own parser is the last word on what can be requested
        httpx.URL(url)
    except (httpx.InvalidURL, UnicodeError, ValueError) as exc:
        raise EndpointError(f"{_shown(url)} is not a URL that can be requested: {exc}") from None
    return ResolvedEndpoint(
        url=url,
        api=got,
        root_url=origin + _path(root),
        models_url=origin + _path([*api_base, "models"]),
        metrics_url=origin + _path([*root, "metrics"]),
        notes=[n.replace("{url}", url) for n in notes],
        model=model or None,
        corrections=corrections,
    )
