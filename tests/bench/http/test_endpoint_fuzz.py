"""Property-based tests of the endpoint resolver: whatever is typed, it raises only EndpointError,
and a URL it returns is one the HTTP client can request."""

from __future__ import annotations

import json
import re

import httpx
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from app.bench.http.auth import auth_headers, header_problem, key_problem, redact
from app.bench.http.endpoint import EndpointError, resolve_endpoint

# Pieces users type (and mistype) in URLs, mixed with arbitrary text.
PIECES = st.sampled_from(
    [
        "http://", "https://", "ftp://", "://", "[", "]", "::1", "[::1]", ":", "@", "/", "//",
        "v1", "/v1", "/v1/", "chat", "completions", "/chat/completions", "/completions", "api",
        "?", "#", "%", "%zz", "localhost", "127.0.0.1", "999.999.999.999", "0", "65535",
        "99999", "-", ".", "..", "é", "xn--", " ", "\t", "\n", "\x00", "\x7f", "user:pw@",
    ]
)  # fmt: skip
TEXT = st.text(max_size=40)
URLISH = st.lists(st.one_of(PIECES, TEXT), max_size=10).map("".join)
API = st.one_of(st.none(), st.sampled_from(["chat", "completions", "openai", "openai-chat"]), TEXT)

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(
    base=URLISH, endpoint=st.one_of(st.none(), URLISH), api=API, model=st.one_of(st.none(), TEXT)
)
@example(base="http://[::1", endpoint=None, api=None, model=None)
@example(base="http://999.999.999.999", endpoint=None, api=None, model=None)
@example(base="http://[zz]", endpoint=None, api=None, model=None)
@example(base="http://host:0", endpoint=None, api=None, model=None)
@example(base="http://xn--", endpoint=None, api=None, model=None)
@example(base="http://a..b", endpoint=None, api=None, model=None)
@example(base="http://host", endpoint="/v1/chat/completions\x00", api=None, model=None)
def test_resolver_raises_only_endpoint_error(base, endpoint, api, model) -> None:
    try:
        resolved = resolve_endpoint(base, endpoint, api, model)
    except EndpointError as exc:
        assert str(exc) and "\n" not in str(exc).strip("\n")
        return
    for url in (resolved.url, resolved.models_url, resolved.metrics_url):
        httpx.URL(url)  # the client accepts it: no InvalidURL or IDNA error later
    assert resolved.api in ("chat", "completions")
    assert resolved.url.split("?")[0].endswith("completions")


@FUZZ
@given(key=st.text(min_size=4, max_size=40))
def test_auth_headers_refuse_or_send_and_never_quote_the_key(key) -> None:
    core = key.strip()
    try:
        headers = auth_headers(key)
    except EndpointError as exc:
        assert key_problem(key) is not None
        if len(core) >= 4:
            assert core not in str(exc)
        return
    if core:
        headers["Authorization"].encode("ascii")  # sendable as is
        httpx.Request("GET", "http://127.0.0.1/", headers=headers)


@FUZZ
@given(name=st.text(max_size=20), value=st.text(max_size=20))
def test_a_header_that_passes_the_check_can_be_sent(name, value) -> None:
    if header_problem(name, value) is None:
        httpx.Request("GET", "http://127.0.0.1/", headers={name: value})


@FUZZ
@given(key=st.text(min_size=4, max_size=30).filter(lambda k: len(k.strip()) >= 4))
@example(key="sk-abcdef123456\nX-Injected: 1")
@example(key="000000¡\x1b")
def test_redact_covers_every_escaped_form(key) -> None:
    core = key.strip()
    runs = re.findall(r"[A-Za-z0-9._~+/=-]{6,}", core)
    assume(not any(piece in "<redacted>" for piece in [core, *runs]))  # the marker itself
    for form in (
        core,
        repr(core),
        repr(core.encode("utf-8", "backslashreplace")),
        repr(("Bearer " + core).encode("utf-8", "backslashreplace")),
        repr(repr(core)),
        json.dumps(core),
        json.dumps(core, ensure_ascii=False),
        json.dumps({"error": repr(core)}),
        core.encode("unicode_escape").decode("ascii"),
    ):
        out = redact(f"Illegal header value {form}!", key)
        assert core not in out
        assert not [run for run in runs if run in out], out
