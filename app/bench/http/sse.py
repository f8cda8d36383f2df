"""Server-Sent Events parsing: network reads in, data payloads out, no I/O and no clock."""

from __future__ import annotations

DONE = b"[DONE]"


# One event larger than this is not a token chunk: a runaway or hostile server (an endless
# line without a newline, a 100 MB event). A chunk with top-20 logprobs is a few kB.
MAX_EVENT_BYTES = 16 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


class SSEError(ValueError):
    """The only error SSEDecoder raises: the stream cannot be decoded within its limits."""


class SSEOversizedError(SSEError):
    """One event (or a line that never ends) grew past the decoder's ``max_event_bytes``."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            f"one stream event grew past {limit // 1024 // 1024} MiB ({size:,} bytes without an "
            "end of event): the server sends an endless line or an oversized event"
        )
        self.size = size
        self.limit = limit


class SSEDecoder:
    """Incremental SSE decoder: ``feed`` each network read, get the data of every complete event.

    Handles events split across reads, LF / CRLF / CR line ends (also a CRLF split between two
    reads), comment lines, ``data:`` with or without the space, multi-line data and a UTF-8 BOM
    at the start of the stream. Kept to bytes and one split per read because it runs once per
    streamed chunk. An incomplete event is kept as a list of reads and joined only when it
    completes, so a large event costs time linear in its size; past ``max_event_bytes`` it
    raises SSEOversizedError. ``feed`` and ``flush`` raise nothing else.
    """

    __slots__ = ("_head", "_max", "_parts", "_size", "_skip_lf", "idle")

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._parts: list[bytes] = []  # the reads of the incomplete last event
        self._size = 0
        self._skip_lf = False
        self._head: bytes | None = b""  # the stream's first bytes until the BOM check is done
        self._max = max_event_bytes
        # True while the next read starts a new event: nothing kept from earlier reads (no
        # partial event, no CR waiting for its LF, the stream's start checked for a BOM). A
        # read that is then exactly one "data: ..." line and a blank line gives that line's
        # data and leaves the decoder as it was, which the reader's shortcut relies on.
        self.idle = False

    def feed(self, data: bytes | str) -> list[bytes]:
        self.idle = False
        out = self._feed(data)
        self.idle = self._head is None and not self._parts and not self._skip_lf
        return out

    def _feed(self, data: bytes | str) -> list[bytes]:
        if isinstance(data, str):
            data = data.encode()
        if self._head is not None:
            data = self._head + data
            if len(data) < 3 and _BOM.startswith(data):
                self._head = data  # maybe the first bytes of a BOM: decide on the next read
                return []
            self._head = None
            if data[:3] == _BOM:
                data = data[3:]
        if self._skip_lf:
            self._skip_lf = False
            if data[:1] == b"\n":
                data = data[1:]
        # (an int or find(): ``bytes in bytes`` first tries the needle as an int and pays
        # for a TypeError, ~0.4 us a test, several per read)
        if 13 in data:  # b"\r"
            # A CR at the very end may be the first half of a CRLF: end the line now and drop
            # the LF if it opens the next read, so no event waits for the next read.
            self._skip_lf = data[-1:] == b"\r"
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if not data:
            return []
        parts = self._parts
        if parts:
            if data.find(b"\n\n") < 0 and not (data[:1] == b"\n" and parts[-1][-1:] == b"\n"):
                parts.append(data)
                self._size += len(data)
                if self._size > self._max:
                    self._parts, size, self._size = [], self._size, 0
                    raise SSEOversizedError(size, self._max)
                return []
            parts.append(data)
            buf = b"".join(parts)
            parts.clear()
        elif data.find(b"\n\n") < 0:
            parts.append(data)
            self._size = len(data)
            if self._size > self._max:
                self._parts, size, self._size = [], self._size, 0
                raise SSEOversizedError(size, self._max)
            return []
        else:
            buf = data
        blocks = buf.split(b"\n\n")
        rest = blocks.pop()
        self._size = len(rest)
        if rest:
            parts.append(rest)
            if self._size > self._max:
                self._parts, size, self._size = [], self._size, 0
                raise SSEOversizedError(size, self._max)
        out: list[bytes] = []
        for block in blocks:
            if block[:5] == b"data:" and 10 not in block:  # b"\n"
                out.append(block[6:] if block[5:6] == b" " else block[5:])
            elif block:
                payload = _event_data(block)
                if payload is not None:
                    out.append(payload)
        return out

    def flush(self) -> list[bytes]:
        """Data of a last event the stream ended without a blank line after (may be partial)."""
        block = b"".join(self._parts).strip(b"\n")
        self._parts, self._size = [], 0
        self.idle = False  # the stream ended: no read follows
        if self._head:
            block, self._head = self._head, None
        if not block:
            return []
        payload = _event_data(block)
        return [] if payload is None else [payload]

    @property
    def pending(self) -> bytes:
        return b"".join(self._parts)


def _event_data(block: bytes) -> bytes | None:
    data: list[bytes] = []
    for line in block.split(b"\n"):
        if not line or line[:1] == b":":
            continue
        name, _, value = line.partition(b":")
        if name == b"data":
            data.append(value[1:] if value[:1] == b" " else value)
    return b"\n".join(data) if data else None
