"""Server-Sent Events parsing: network reads in, data payloads out, no I/O and no clock."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

DONE = b"[DONE]"

MessageKind = Literal["json", "done", "malformed", "truncated"]


class SSEDecoder:
    """Incremental SSE decoder: ``feed`` each network read, get the data of every complete event.

    Handles events split across reads, LF / CRLF / CR line ends (also a CRLF split between two
    reads), comment lines, ``data:`` with or without the space and multi-line data. Kept to
    bytes and one split per read because it runs once per streamed chunk.
    """

    __slots__ = ("_buf", "_skip_lf")

    def __init__(self) -> None:
        self._buf = b""
        self._skip_lf = False

    def feed(self, data: bytes | str) -> list[bytes]:
        if isinstance(data, str):
            data = data.encode()
        if self._skip_lf:
            self._skip_lf = False
            if data[:1] == b"\n":
                data = data[1:]
        if b"\r" in data:
            # A CR at the very end may be the first half of a CRLF: end the line now and drop
            # the LF if it opens the next read, so no event waits for the next read.
            self._skip_lf = data[-1:] == b"\r"
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        buf = self._buf + data if self._buf else data
        if b"\n\n" not in buf:
            self._buf = buf
            return []
        blocks = buf.split(b"\n\n")
        self._buf = blocks.pop()
        out: list[bytes] = []
        for block in blocks:
            if block[:5] == b"data:" and b"\n" not in block:
                out.append(block[6:] if block[5:6] == b" " else block[5:])
            elif block:
                payload = _event_data(block)
                if payload is not None:
                    out.append(payload)
        return out

    def flush(self) -> list[bytes]:
        """Data of a last event the stream ended without a blank line after (may be partial)."""
        block, self._buf = self._buf.strip(b"\n"), b""
        if not block:
            return []
        payload = _event_data(block)
        return [] if payload is None else [payload]

    @property
    def pending(self) -> bytes:
        return self._buf


def _event_data(block: bytes) -> bytes | None:
    data: list[bytes] = []
    for line in block.split(b"\n"):
        if not line or line[:1] == b":":
            continue
        name, _, value = line.partition(b":")
        if name == b"data":
            data.append(value[1:] if value[:1] == b" " else value)
    return b"\n".join(data) if data else None


@dataclass(frozen=True, slots=True)
class SSEMessage:
    kind: MessageKind
    data: bytes
    payload: Any = None


def decode_data(data: bytes, *, final: bool = False) -> SSEMessage:
    """Classify one event's data; ``final``: a last event with no blank line after it."""
    if data.strip() == DONE:
        return SSEMessage("done", data)
    try:
        return SSEMessage("json", data, json.loads(data))
    except ValueError:
        return SSEMessage("truncated" if final else "malformed", data)


def parse_sse(chunks: Iterable[bytes | str]) -> list[SSEMessage]:
    """Parse a whole stream given as its network reads."""
    decoder = SSEDecoder()
    out = [decode_data(d) for chunk in chunks for d in decoder.feed(chunk)]
    out.extend(decode_data(d, final=True) for d in decoder.flush())
    return out
