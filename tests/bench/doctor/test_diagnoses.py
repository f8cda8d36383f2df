"""The doctor's path diagnoses against purpose-built servers: the chat vs completions 404 (the
field guide's own case), a path search that never proposes the URL it just tried, and a
redirect named with its absolute target."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.bench.doctor.run import CHECK_IDS, DoctorReport, DoctorTarget, diagnose

MODEL = "m"
CHOICE = {"id": "x", "choices": [{"index": 0, "message": {"content": "OK"}, "text": "OK"}]}


def handler(routes: dict[tuple[str, str], Callable[[], tuple[int, dict, bytes]]]):
    class Handler(BaseHTTPRequestHandler):
        def _send(self) -> None:
            if self.command == "POST":
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
            route = routes.get((self.command, self.path.split("?")[0]))
            status, headers, body = route() if route else (404, {}, b'{"detail":"Not Found"}')
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _send

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def serve() -> Iterator[Callable[..., str]]:
    servers: list[tuple[ThreadingHTTPServer, threading.Thread]] = []

    def start(routes) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler(routes))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join(5)


def models() -> tuple[int, dict, bytes]:
    return 200, {}, json.dumps({"data": [{"id": MODEL}]}).encode()


def choice() -> tuple[int, dict, bytes]:
    return 200, {}, json.dumps(CHOICE).encode()


def run(base_url: str, **kw) -> DoctorReport:
    report = asyncio.run(diagnose(DoctorTarget(base_url, model=MODEL, **kw), timeout_s=3))
    assert [c.id for c in report.checks] == list(CHECK_IDS)
    return report


def test_completions_asked_of_a_chat_only_server_names_the_other_flavour(serve) -> None:
    """The issue's case: --backend openai --endpoint /v1/completions, only chat is served."""
    url = serve({("GET", "/v1/models"): models, ("POST", "/v1/chat/completions"): choice})
    report = run(url, endpoint="/v1/completions", api="openai")
    path = report.check("path")
    assert path.status == "fail"
    assert path.detail == (
        f"POST {url}/v1/completions gave HTTP 404, but {url}/v1/chat/completions answers: the "
        "server serves the chat API, not completions (the chat vs completions mix-up)"
    )
    assert path.fix.startswith("Use --backend openai-chat --endpoint /v1/chat/completions")
    assert f"{url}/v1/completions" not in path.fix


def test_chat_asked_of_a_completions_only_server(serve) -> None:
    url = serve({("GET", "/v1/models"): models, ("POST", "/v1/completions"): choice})
    path = run(url + "/v1").check("path")
    assert path.status == "fail"
    assert f"but {url}/v1/completions answers: the server serves the completions API" in (
        path.detail
    )
    assert path.fix.startswith("Use --backend openai --endpoint /v1/completions")


def test_path_search_never_proposes_the_url_it_just_tried(serve) -> None:
    """The model list answers but every POST is 404: no spelling of the base URL helps."""
    url = serve({("GET", "/v1/models"): models})
    report = run(url)
    path = report.check("path")
    assert path.status == "fail"
    tried = f"{url}/v1/chat/completions"
    assert path.detail.startswith(f"POST {tried} gave HTTP 404; none of these answered either: ")
    listed = path.detail.split("either: ", 1)[1].split(", ")
    assert tried not in listed
    assert f"{url}/v1/completions" in listed  # the other flavour was tried too
    assert "answers instead" not in path.detail and "--base-url" not in path.fix


def test_a_relative_redirect_is_reported_with_its_absolute_target(serve) -> None:
    def moved() -> tuple[int, dict, bytes]:
        return 307, {"Location": "/v2/chat/completions"}, b""

    url = serve({("GET", "/v1/models"): models, ("POST", "/v1/chat/completions"): moved})
    path = run(url).check("path")
    assert path.status == "fail"
    assert path.detail == (
        f"POST {url}/v1/chat/completions is redirected (HTTP 307) to {url}/v2/chat/completions"
    )
