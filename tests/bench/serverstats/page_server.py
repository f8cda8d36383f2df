"""A /metrics server on 127.0.0.1 that answers with the next of a fixed list of pages."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Pages:
    """Serves the next page of a fixed list on each GET /metrics (the last one repeats)."""

    def __init__(self, pages: list[str]) -> None:
        self.pages = pages
        self.hits = 0
        self.auth: list[str | None] = []


@contextmanager
def serving(state: Pages) -> Iterator[str]:
    """The server's base URL (http://127.0.0.1:PORT) while it runs."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/metrics":
                self.send_error(404)
                return
            state.auth.append(self.headers.get("Authorization"))
            body = state.pages[min(state.hits, len(state.pages) - 1)].encode()
            state.hits += 1
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
