"""A hostile OpenAI-style server on 127.0.0.1 for tests and measurements.

The first path segment picks the behaviour, so a base URL such as ``http://127.0.0.1:P/drip``
makes every request of a client misbehave the same way (``/drip/v1/chat/completions``,
``/drip/v1/models``). ``/ok`` answers like a small well-behaved server. Keep-alive modes close
connections as real servers do: ``/close-after-N`` drops a connection at its (N+1)-th request
without answering, ``/idle-close`` drops a connection that was idle for more than
``idle_close_s`` when the next request arrives on it, ``/conn-close`` answers with
``Connection: close`` and then leaves the socket open (a client that reuses it would hang).

Run standalone: ``python tests/hostile_server.py PORT`` (serves until killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import sys
import threading
import time
import zlib
from collections.abc import Iterator

GIB = 1024 * 1024 * 1024
_BLOCK = 1024 * 1024


def _event(obj: object) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def sse_reply(
    tokens: int = 3, usage: object = None, content: object = "tok", bom: bool = False
) -> bytes:
    """A complete chat stream: ``tokens`` content chunks, a usage message, [DONE]."""
    out = [b"\xef\xbb\xbf"] if bom else []
    for i in range(tokens):
        delta = {"content": content}
        finish = "length" if i == tokens - 1 else None
        out.append(_event({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    if usage is None:
        usage = {"prompt_tokens": 5, "completion_tokens": tokens, "total_tokens": tokens + 5}
    out.append(_event({"choices": [], "usage": usage}))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def gzip_blocks(block: bytes, total: int, first: bytes | None = None) -> Iterator[bytes]:
    """A gzip stream of ``block`` repeated up to ``total`` bytes, compressed once: after a full
    flush the compressor's output for the same input repeats, so 1 GiB costs a few ms here.
    (The trailer is left out: a client under test must stop long before it.)"""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    yield comp.compress(first or block) + comp.flush(zlib.Z_FULL_FLUSH)
    again = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
    for _ in range(total // len(block) - 1):
        yield again


class HostileServer:
    """The server on its own thread and event loop; ``port`` 0 picks a free one."""

    def __init__(
        self, port: int = 0, *, drip_interval_s: float = 1.0, tls: ssl.SSLContext | None = None
    ) -> None:
        self.drip_interval_s = drip_interval_s
        self._tls = tls
        self.idle_close_s = 0.3
        self.requests = 0
        self.dropped = 0  # connections dropped with a request unanswered
        self.connections = 0
        # (what, time.monotonic_ns() when the request had arrived, path): "answered"/"dropped"
        self.log: list[tuple[str, int, str]] = []
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.base_events.Server | None = None
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(port, started), daemon=True)
        self._thread.start()
        if not started.wait(10):
            raise RuntimeError("hostile server did not start")

    def _run(self, port: int, started: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> None:
            self._server = await asyncio.start_server(self._conn, "127.0.0.1", port, ssl=self._tls)
            started.set()

        self._loop.run_until_complete(start())
        try:
            self._loop.run_forever()
        finally:
            pending = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
            for task in pending:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.close()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    def url(self, mode: str) -> str:
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}/{mode}"

    def close(self) -> None:
        async def stop() -> None:
            assert self._server is not None
            self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        with contextlib.suppress(RuntimeError):
            asyncio.run_coroutine_threadsafe(stop(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def __enter__(self) -> HostileServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- one connection: requests until the client or a mode ends it ----------------------

    async def _conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        served = 0
        idle_since = time.monotonic()
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                if path.startswith("http://"):  # a proxy's request: the origin's path is ours
                    path = "/" + path.split("/", 3)[3]
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                length = int(headers.get("content-length", "0") or 0)
                if length:
                    await reader.readexactly(length)
                arrived = time.monotonic_ns()
                mode = path.strip("/").split("/", 1)[0]
                if mode.startswith("close-after-"):
                    if served >= int(mode.rsplit("-", 1)[1]):
                        self.dropped += 1
                        self.log.append(("dropped", arrived, path))
                        return  # the request arrived on a connection this server retires
                elif (
                    mode == "idle-close"
                    and served
                    and time.monotonic() - idle_since > (self.idle_close_s)
                ):
                    self.dropped += 1
                    self.log.append(("dropped", arrived, path))
                    return
                self.requests += 1
                self.log.append(("answered", arrived, path))
                served += 1
                keep = await self._answer(mode, method, path, writer)
                idle_since = time.monotonic()
                if not keep:
                    return
        except (ConnectionError, asyncio.CancelledError):
            return
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(self, mode: str, method: str, path: str, w: asyncio.StreamWriter) -> bool:
        """Write one response; False when the connection must end after it."""
        is_models = path.endswith("/models")
        if is_models:
            if mode == "inflate-models":
                head = b'{"object":"list","data":[{"id":"'
                first = head + b"a" * (_BLOCK - len(head))
                await self._chunked_head(w, "application/json", gzip=True)
                for block in gzip_blocks(b"a" * _BLOCK, GIB, first):
                    await self._chunk(w, block)
                return False
            if mode == "drip-models":
                await self._chunked_head(w, "application/json")
                await self._drip(w, b'{"object":"list","data":[{"id":"m"}]}')
                return False
            body = json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]})
            await self._plain(w, 200, "application/json", body.encode())
            return True
        # ("ok" streams even when asked not to, as some gateways do; the *-models modes
        # spoil only the model list and answer generation requests like "ok")
        if mode in ("ok", "idle-close", "inflate-models", "drip-models") or mode.startswith(
            "close-after-"
        ):
            await self._plain(w, 200, "text/event-stream", sse_reply(4))
            return True
        if mode == "conn-close":
            await self._plain(w, 200, "text/event-stream", sse_reply(4), close=True)
            await asyncio.sleep(30)  # socket left open: a client that reuses it hangs
            return False
        if mode == "bom":
            await self._plain(w, 200, "text/event-stream", sse_reply(3, bom=True))
            return True
        replies = {
            "usage-negative": {"prompt_tokens": 5, "completion_tokens": -7, "total_tokens": -2},
            "usage-absurd": {"prompt_tokens": 5, "completion_tokens": 1e30, "total_tokens": 1e30},
            "usage-fraction": {"prompt_tokens": 5, "completion_tokens": 2.5, "total_tokens": 7.5},
            "usage-list": [1],
        }
        if mode in replies:
            await self._plain(w, 200, "text/event-stream", sse_reply(3, usage=replies[mode]))
            return True
        if mode == "content-int":
            await self._plain(w, 200, "text/event-stream", sse_reply(3, content=5))
            return True
        if mode == "redirect":
            body = b"moved"
            await w.drain()
            w.write(
                b"HTTP/1.1 307 Temporary Redirect\r\nLocation: https://elsewhere.example/v1/chat"
                b"/completions\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
            )
            await w.drain()
            return True
        if mode == "bad-chunk":
            await self._chunked_head(w, "text/event-stream")
            await self._chunk(w, sse_reply(3)[:40])
            await asyncio.sleep(0.2)  # the client is waiting for the next piece when ...
            w.write(b"zz-not-hex\r\n")  # ... a chunk size that is not hex arrives
            await w.drain()
            await asyncio.sleep(30)  # and the socket stays open: only the client can end it
            return False
        if mode == "early-close":
            await self._chunked_head(w, "text/event-stream")
            await self._chunk(w, sse_reply(3)[:60])
            return False
        if mode == "inflate":  # 1 GiB of one endless line
            await self._chunked_head(w, "text/event-stream", gzip=True)
            for block in gzip_blocks(b"a" * _BLOCK, GIB):
                await self._chunk(w, block)
            return False
        if mode == "inflate-events":  # 1 GiB of well-formed token events
            await self._chunked_head(w, "text/event-stream", gzip=True)
            one = _event({"choices": [{"index": 0, "delta": {"content": "x"}}]})
            block = one * (_BLOCK // len(one))
            for piece in gzip_blocks(block, GIB):
                await self._chunk(w, piece)
            return False
        if mode == "endless":  # one line that never ends, uncompressed
            await self._chunked_head(w, "text/event-stream")
            await self._chunk(w, b"data: ")
            piece = b"a" * 65536
            for _ in range(GIB // len(piece)):
                await self._chunk(w, piece)
            return False
        if mode == "big-event":  # one 100 MB event
            await self._chunked_head(w, "text/event-stream")
            await self._chunk(w, b'data: {"choices":[{"delta":{"content":"')
            piece = b"a" * 65536
            for _ in range(100 * 1024 * 1024 // len(piece)):
                await self._chunk(w, piece)
            await self._chunk(w, b'"}}]}\n\n')
            return False
        if mode == "drip":
            await self._chunked_head(w, "text/event-stream")
            await self._drip(w, sse_reply(1000))
            return False
        await self._plain(w, 404, "application/json", b'{"error":{"message":"no such mode"}}')
        return True

    async def _plain(
        self, w: asyncio.StreamWriter, status: int, ctype: str, body: bytes, close: bool = False
    ) -> None:
        extra = "Connection: close\r\n" if close else ""
        w.write(
            f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
            f"{extra}\r\n".encode()
            + body
        )
        await w.drain()

    async def _chunked_head(self, w: asyncio.StreamWriter, ctype: str, gzip: bool = False) -> None:
        enc = "Content-Encoding: gzip\r\n" if gzip else ""
        w.write(
            f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\n{enc}"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        await w.drain()

    async def _chunk(self, w: asyncio.StreamWriter, data: bytes) -> None:
        w.write(b"%x\r\n%s\r\n" % (len(data), data))
        await w.drain()

    async def _drip(self, w: asyncio.StreamWriter, data: bytes) -> None:
        for i in range(len(data)):
            await self._chunk(w, data[i : i + 1])
            await asyncio.sleep(self.drip_interval_s)


if __name__ == "__main__":
    server = HostileServer(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(f"hostile server on {server.url('MODE')}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        threading.Event().wait()
