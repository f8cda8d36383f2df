"""TPOT Bench's own transport against raw replies on 127.0.0.1: the head's size cap and a body
that ends when the server closes, interim (1xx) replies before the final one."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from app.bench.http.client import make_client
from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.http.stream import send_request
from app.bench.http.wire.connection import MAX_HEAD_BYTES
from app.bench.http.wire.transport import WireTransport

pytestmark = pytest.mark.timeout(60)

_EVENTS = (
    b'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


class RawServer:
    """Answers each connection's request with ``reply`` (written piece by piece if a list) and
    closes it."""

    def __init__(self, reply: bytes | list[bytes]) -> None:
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
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                for piece in [self.reply] if isinstance(self.reply, bytes) else self.reply:
                    conn.sendall(piece)

    def close(self) -> None:
        self._sock.close()


@pytest.fixture
def raw() -> Iterator[list[RawServer]]:
    servers: list[RawServer] = []
    yield servers
    for server in servers:
        server.close()


def _one(raw: list[RawServer], reply: bytes | list[bytes]) -> RequestRecord:
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


_INTERIM = [
    b"HTTP/1.1 100 Continue\r\n\r\n",
    b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n",
]
_FINAL = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Final: yes\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(_EVENTS), _EVENTS)
)


@pytest.mark.parametrize("pieces", [False, True], ids=["one-write", "write-by-write"])
def test_interim_replies_before_the_final_one_are_skipped(raw, pieces: bool) -> None:
    reply = [*_INTERIM, _FINAL] if pieces else b"".join([*_INTERIM, _FINAL])
    rec = _one(raw, reply)
    assert rec.ok, rec.error
    assert rec.http_status == 200
    assert rec.generated_text == "ab" and rec.done_seen


def test_an_interim_reply_leaves_only_the_final_head(raw) -> None:
    server = RawServer(b"".join([*_INTERIM, _FINAL]))
    raw.append(server)

    async def go() -> httpx.Response:
        async with httpx.AsyncClient(transport=WireTransport()) as client:
            response = await client.get(f"http://127.0.0.1:{server.port}/")
            await response.aread()
            return response

    response = asyncio.run(go())
    assert response.status_code == 200
    assert response.headers.get("x-final") == "yes" and "link" not in response.headers
    assert response.content == _EVENTS


def test_interim_replies_and_no_final_one_are_a_server_that_left(raw) -> None:
    rec = _one(raw, b"".join(_INTERIM))
    assert rec.error_kind == "connect", rec.error
    assert "before a complete reply" in rec.error
