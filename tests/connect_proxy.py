"""A CONNECT proxy on 127.0.0.1 for tests: tunnels each accepted CONNECT to its target and
copies bytes both ways; records what it was asked; can demand a password or refuse."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import threading


class ConnectProxy:
    def __init__(self, *, password: tuple[str, str] | None = None, refuse: bool = False) -> None:
        self.password = password
        self.refuse = refuse
        self.targets: list[str] = []  # the CONNECT targets it tunnelled
        self.auth: list[str | None] = []  # each request's Proxy-Authorization, decoded
        self.forwarded = 0  # requests that were not CONNECT (a forwarding proxy's kind)
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self._thread.start()
        started.wait(10)

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> None:
            self._server = await asyncio.start_server(self._conn, "127.0.0.1", 0)
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
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        if self.password:
            return f"http://{self.password[0]}:{self.password[1]}@127.0.0.1:{port}"
        return f"http://127.0.0.1:{port}"

    async def _conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        lines = head.split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        auth = None
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "proxy-authorization":
                auth = base64.b64decode(value.strip().split(" ", 1)[1]).decode()
        self.auth.append(auth)
        if method != "CONNECT":
            self.forwarded += 1
            writer.write(b"HTTP/1.1 405 Not Allowed\r\nContent-Length: 0\r\n\r\n")
            writer.close()
            return
        wanted = None if self.password is None else ":".join(self.password)
        if self.refuse or auth != wanted:
            status = b"403 Forbidden" if self.refuse else b"407 Proxy Authentication Required"
            writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\n\r\n")
            writer.close()
            return
        host, _, port = target.rpartition(":")
        try:
            up_reader, up_writer = await asyncio.open_connection(host.strip("[]"), int(port))
        except OSError:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            writer.close()
            return
        self.targets.append(target)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            for w in (writer, up_writer):
                w.close()

    def close(self) -> None:
        async def stop() -> None:
            if self._server is not None:
                self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def __enter__(self) -> ConnectProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()
