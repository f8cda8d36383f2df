"""A CONNECT proxy on 127.0.0.1 for tests: tunnels each accepted CONNECT to its target and
copies bytes both ways; records what it was asked; can demand a password or refuse."""

from __future__ import annotations

import asyncio
import base64
import contextlib

from tests.hostile_server import HostileServer


class ConnectProxy(HostileServer):
    """The hostile server's thread and loop, answering CONNECT instead."""

    def __init__(self, *, password: tuple[str, str] | None = None, refuse: bool = False) -> None:
        self.password = password
        self.refuse = refuse
        self.targets: list[str] = []  # the CONNECT targets it tunnelled
        self.auth: list[str | None] = []  # each request's Proxy-Authorization, decoded
        self.forwarded = 0  # requests that were not CONNECT (a forwarding proxy's kind)
        super().__init__()

    @property
    def proxy_url(self) -> str:
        if self.password:
            return f"http://{self.password[0]}:{self.password[1]}@127.0.0.1:{self.port}"
        return f"http://127.0.0.1:{self.port}"

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
