"""Length-prefixed pickle frames: how a parent and its worker processes talk over pipes.

Pickle is safe here only because both ends are this program (a parent and the children it
started); never read frames from anywhere else."""

from __future__ import annotations

import asyncio
import pickle
import struct
from typing import Any

_HEADER = struct.Struct("!I")
# A record carries one timestamp per chunk: even 100k-token replies stay far below this.
MAX_FRAME = 64 * 1024 * 1024


class FrameError(RuntimeError):
    """The other end sent something that is not a frame (or closed mid-frame)."""


def encode(obj: Any) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    if len(data) > MAX_FRAME:
        raise FrameError(f"frame of {len(data)} bytes is over the {MAX_FRAME}-byte limit")
    return _HEADER.pack(len(data)) + data


async def read_frame(reader: asyncio.StreamReader) -> Any:
    """The next object, or raises EOFError at a clean end of stream."""
    try:
        header = await reader.readexactly(_HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            raise EOFError from None
        raise FrameError("stream ended inside a frame header") from None
    (size,) = _HEADER.unpack(header)
    if size > MAX_FRAME:
        raise FrameError(f"frame of {size} bytes is over the {MAX_FRAME}-byte limit")
    try:
        data = await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        raise FrameError("stream ended inside a frame") from None
    return pickle.loads(data)
