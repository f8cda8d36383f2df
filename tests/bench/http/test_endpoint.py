"""Endpoint resolution: every URL convention users mix up gives one request URL or a clear error."""

import pytest

from app.bench.http.auth import auth_headers, redact
from app.bench.http.endpoint import EndpointError, normalize_api, resolve_endpoint

# (base_url, endpoint, api) -> (url, api, note expected?)
RESOLVED = [
    # vLLM's convention: server root + --endpoint
    ("http://h:8000", "/v1/chat/completions", None, "http://h:8000/v1/chat/completions", "chat", 0),
    ("http://h:8000", "/v1/completions", None, "http://h:8000/v1/completions", "completions", 0),
    (
        "http://h:8000/",
        "v1/chat/completions",
        "openai-chat",
        "http://h:8000/v1/chat/completions",
        "chat",
        0,
    ),
    (
        "http://h:8000",
        "/v1/completions",
        "openai",
        "http://h:8000/v1/completions",
        "completions",
        0,
    ),
    # OpenAI-style API base
    ("http://h:8000/v1", None, None, "http://h:8000/v1/chat/completions", "chat", 0),
    ("http://h:8000/v1/", None, "completions", "http://h:8000/v1/completions", "completions", 0),
    (
        "https://ark.example.com/api/v3",
        None,
        "chat",
        "https://ark.example.com/api/v3/chat/completions",
        "chat",
        0,
    ),
    # gateway root without /v1: /v1 added, with a note
    (
        "https://taotoken.net/api",
        None,
        None,
        "https://taotoken.net/api/v1/chat/completions",
        "chat",
        1,
    ),
    ("http://h:8000", None, "completions", "http://h:8000/v1/completions", "completions", 0),
    # gateway root + vLLM-style endpoint: the path is kept in front, noted
    (
        "https://taotoken.net/api",
        "/v1/chat/completions",
        None,
        "https://taotoken.net/api/v1/chat/completions",
        "chat",
        1,
    ),
    # the full URL given as base URL
    (
        "http://h:8000/v1/chat/completions",
        None,
        None,
        "http://h:8000/v1/chat/completions",
        "chat",
        0,
    ),
    (
        "http://h:8000/v1/completions",
        None,
        "openai",
        "http://h:8000/v1/completions",
        "completions",
        0,
    ),
    # doubled /v1: API base + vLLM endpoint
    (
        "http://h:8000/v1",
        "/v1/chat/completions",
        None,
        "http://h:8000/v1/chat/completions",
        "chat",
        1,
    ),
    # doubled /v1 inside the base URL itself
    ("http://h:8000/v1/v1", None, None, "http://h:8000/v1/chat/completions", "chat", 1),
    (
        "http://h:8000/v1/v1/chat/completions",
        None,
        None,
        "http://h:8000/v1/chat/completions",
        "chat",
        1,
    ),
    # doubled /v1 inside the endpoint
    ("http://h:8000", "/v1/v1/completions", None, "http://h:8000/v1/completions", "completions", 1),
    # base URL that already is the full URL, plus the same --endpoint
    (
        "http://h:8000/v1/chat/completions",
        "/v1/chat/completions",
        None,
        "http://h:8000/v1/chat/completions",
        "chat",
        1,
    ),
    # API base + endpoint without version
    ("http://h:8000/v1", "/chat/completions", None, "http://h:8000/v1/chat/completions", "chat", 0),
    # query string (Azure-style api-version) kept; slashes collapsed; spaces around trimmed
    (
        "  https://x.example/openai/v1?api-version=1 ",
        None,
        None,
        "https://x.example/openai/v1/chat/completions?api-version=1",
        "chat",
        0,
    ),
    (
        "http://h:8000//v1//",
        "//chat//completions",
        None,
        "http://h:8000/v1/chat/completions",
        "chat",
        0,
    ),
    (
        "http://[::1]:8000",
        "/v1/completions",
        None,
        "http://[::1]:8000/v1/completions",
        "completions",
        0,
    ),
    ("HTTP://h:8000/v1", None, None, "http://h:8000/v1/chat/completions", "chat", 0),
]


@pytest.mark.parametrize(("base", "endpoint", "api", "url", "got_api", "notes"), RESOLVED)
def test_resolves_to_one_url(base, endpoint, api, url, got_api, notes) -> None:
    r = resolve_endpoint(base, endpoint, api)
    assert r.url == url
    assert r.api == got_api
    assert len(r.notes) == notes, r.notes
    for note in r.notes:
        assert url.split("?")[0] in note  # every correction names the URL that is used


def test_side_urls_for_vllm_and_gateways() -> None:
    r = resolve_endpoint("http://h:8000", "/v1/chat/completions")
    assert (r.root_url, r.models_url, r.metrics_url) == (
        "http://h:8000",
        "http://h:8000/v1/models",
        "http://h:8000/metrics",
    )
    g = resolve_endpoint("https://taotoken.net/api", model="qwen")
    assert g.root_url == "https://taotoken.net/api"
    assert g.models_url == "https://taotoken.net/api/v1/models"
    assert g.metrics_url == "https://taotoken.net/api/metrics"
    assert g.model == "qwen"
    # a gateway that has no version segment at all
    n = resolve_endpoint("https://gw.example/openai/chat/completions")
    assert n.models_url == "https://gw.example/openai/models"


# (base_url, endpoint, api, words the message must contain)
REFUSED = [
    ("", None, None, ["no base URL"]),
    ("localhost:8000", None, None, ["no scheme", "http://localhost:8000"]),
    ("ftp://h/v1", None, None, ["ftp://", "http://"]),
    ("http://", None, None, ["no host"]),
    ("http://h:99999/v1", None, None, ["invalid port"]),
    ("http://h:abc/v1", None, None, ["invalid port"]),
    ("http://user:secret@h:8000/v1", None, None, ["user name or password", "--api-key-env"]),
    ("http://h:8000", "/v1/models", None, ["not a completions endpoint", "/v1/chat/completions"]),
    ("http://h:8000", "http://h:8000/v1/completions", None, ["full URL"]),
    # chat endpoint with the completions backend, and the other way round
    (
        "http://h:8000",
        "/v1/chat/completions",
        "openai",
        [
            "--backend openai",
            "http://h:8000/v1/chat/completions",
            "--backend openai-chat",
            "http://h:8000/v1/completions",
        ],
    ),
    (
        "http://h:8000/v1/completions",
        None,
        "chat",
        [
            "--backend openai-chat",
            "http://h:8000/v1/completions",
            "http://h:8000/v1/chat/completions",
        ],
    ),
    # a full URL in --base-url plus a different --endpoint
    (
        "http://h:8000/v1/completions",
        "/v1/chat/completions",
        None,
        ["already ends in an API path", "http://h:8000", "http://h:8000/v1/chat/completions"],
    ),
    # different versions on both sides
    (
        "https://ark.example.com/api/v3",
        "/v1/chat/completions",
        None,
        ["/v3", "/v1", "https://ark.example.com/api/v3/chat/completions"],
    ),
    ("http://h:8000", "/v1/completions", "gpt", ["unknown API flavour", "openai-chat"]),
]


@pytest.mark.parametrize(("base", "endpoint", "api", "words"), REFUSED)
def test_refused_with_a_sentence_saying_what_to_do(base, endpoint, api, words) -> None:
    with pytest.raises(EndpointError) as info:
        resolve_endpoint(base, endpoint, api)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message, (word, message)
    assert isinstance(info.value, ValueError)


def test_password_in_url_is_not_echoed() -> None:
    with pytest.raises(EndpointError) as info:
        resolve_endpoint("http://user:hunter2@h:8000/v1")
    assert "hunter2" not in str(info.value)


def test_api_aliases_are_vllm_backend_names() -> None:
    assert normalize_api("openai-chat") == "chat"
    assert normalize_api("openai") == "completions"
    assert normalize_api(" Chat ") == "chat"
    assert normalize_api(None) is None


def test_auth_headers_never_show_the_key() -> None:
    h = auth_headers(" sk-secret-123 \n", {"X-Org": "a"})
    assert h["Authorization"] == "Bearer sk-secret-123"
    assert h["X-Org"] == "a"
    assert "sk-secret-123" not in repr(h)
    assert "sk-secret-123" not in str(h)
    assert "X-Org" in repr(h)
    assert auth_headers(None) == {}
    assert auth_headers("   ") == {}


def test_redact_removes_the_key_from_messages() -> None:
    assert redact("bad key 'sk-abcdef ' given", "sk-abcdef ") == "bad key '<redacted> ' given"
    assert redact("Incorrect API key sk-abcdef", " sk-abcdef") == "Incorrect API key <redacted>"
    assert redact("nothing here", None) == "nothing here"
