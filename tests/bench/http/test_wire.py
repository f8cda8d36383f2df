"""TPOT Bench's own transport against raw replies on 127.0.0.1: the head's size cap and a body
that ends when the server closes."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator

import pytest

from app.bench.http.client import make_client
from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.http.stream import send_request
from app.bench.http.wire.connection import MAX_HEAD_BYTES

pytestmark = pytest.mark.timeout(60)

_EVENTS = (
    b'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


class RawServer:
    """Answers each connection's request with ``reply`` and closes it."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                conn.sendall(self.reply)

    def close(self) -> None:
        self._sock.close()


@pytest.fixture
def raw() -> Iterator[list[RawServer]]:
    servers: list[RawServer] = []
    yield servers
    for server in servers:
        server.close()


def _one(raw: list[RawServer], reply: bytes) -> RequestRecord:
    server = RawServer(reply)
    raw.append(server)
    resolved = resolve_endpoint(f"http://127.0.0.1:{server.port}", None, "chat", model="m")

    async def go() -> RequestRecord:
        async with make_client(1, timeout_s=20) as client:
            return await send_request(client, resolved, RequestSpec("hi", 1, 2))

    return asyncio.run(go())


def test_a_head_past_the_cap_is_an_oversized_reply(raw) -> None:
    filler = b"X-Filler: " + b"a" * 1000 + b"\r\n"
    head = b"HTTP/1.1 200 OK\r\n" + filler * (MAX_HEAD_BYTES // len(filler) + 2)
    rec = _one(raw, head + b"Content-Length: 0\r\n\r\n")
    assert rec.error_kind == "oversized", rec.error
    assert "headers are larger than 64 KiB" in rec.error


def test_a_body_without_length_ends_when_the_server_closes(raw) -> None:
    rec = _one(raw, b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + _EVENTS)
    assert rec.ok, rec.error
    assert rec.generated_text == "ab" and rec.done_seen


def test_a_chunked_body_cut_short_is_a_stream_cut(raw) -> None:
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    rec = _one(raw, head + b"%x\r\n%s\r\n" % (len(_EVENTS[:60]), _EVENTS[:60]))
    assert rec.error_kind == "stream_cut", rec.error
    assert "connection lost while streaming" in rec.error
