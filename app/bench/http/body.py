"""Response bodies read within limits: raw and decoded size caps, bounded decompression, and a
total deadline for the small GETs (/v1/models, /metrics) beside the silence timeout."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import httpx

MIB = 1024 * 1024
# A streamed reply, decoded: 32k tokens with top-20 logprobs is about 40 MB of events.
MAX_STREAM_BODY_BYTES = 128 * MIB
# /v1/models of a gateway with hundreds of models is a few hundred kB.
MAX_MODELS_BODY_BYTES = 8 * MIB
# vLLM's /metrics with every histogram is a few hundred kB.
MAX_METRICS_BODY_BYTES = 16 * MIB
# An inflater hands out at most this much at a time, however well the input compresses.
_PIECE = 256 * 1024
# A benchmark must not time decompression, and identity makes the sizes the ones on the wire.
IDENTITY = {"Accept-Encoding": "identity"}


class BodyError(Exception):
    """A response body that cannot be read within the limits; ``kind`` is a failure kind."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def oversized(what: str, limit: int) -> BodyError:
    return BodyError(
        "oversized", f"{what} is larger than {limit // MIB} MiB; stopped reading it there"
    )


class Inflater:
    """Decodes a gzip or deflate body in pieces of at most 256 kB, so a body that inflates a
    thousandfold never sits in memory whole. Raises BodyError ("malformed_stream") for an
    encoding it cannot read or data that does not decompress."""

    def __init__(self, encoding: str) -> None:
        encoding = encoding.strip().lower()
        if encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._z = zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib or gzip header, auto
        else:
            raise BodyError(
                "malformed_stream",
                f"the server compressed the reply as '{encoding}' although TPOT Bench asked for "
                "none (Accept-Encoding: identity)",
            )
        self._raw_deflate = encoding == "deflate"

    def feed(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        try:
            while data:
                piece = self._z.decompress(data, _PIECE)
                if piece:
                    out.append(piece)
                data = self._z.unconsumed_tail
                if self._z.eof:
                    break
        except zlib.error as exc:
            if self._raw_deflate and not out:
                # "deflate" is sometimes sent without the zlib header: retry as raw deflate
                self._raw_deflate = False
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                return self.feed(data)
            raise BodyError("malformed_stream", f"the compressed reply is corrupt: {exc}") from None
        self._raw_deflate = False
        return out


def content_encoding(response: httpx.Response) -> str | None:
    """The response's content coding, or None for identity."""
    value = response.headers.get("content-encoding", "").strip().lower()
    return None if value in ("", "identity") else value


async def inflated(
    raw: AsyncIterator[bytes], encoding: str, *, max_raw: int, what: str
) -> AsyncIterator[bytes]:
    """Decoded pieces of a compressed body, raw bytes capped at ``max_raw`` (BodyError)."""
    inflater = Inflater(encoding)
    size = 0
    async for data in raw:
        size += len(data)
        if size > max_raw:
            raise oversized(what, max_raw)
        for piece in inflater.feed(data):
            yield piece


@dataclass(frozen=True, slots=True)
class SmallReply:
    status: int
    headers: httpx.Headers
    body: bytes

    def json(self) -> object:
        import json

        return json.loads(self.body)


async def get_small(
    client: httpx.AsyncClient,
    url: str,
    *,
    headers: dict[str, str] | None = None,
    max_bytes: int,
    deadline_s: float | None,
    what: str = "the reply",
    on_status: Callable[[int], None] | None = None,
) -> SmallReply:
    """GET a small document within ``max_bytes`` (raw and decoded) and ``deadline_s`` seconds
    in total. Raises BodyError (oversized, malformed_stream), TimeoutError past the deadline,
    and httpx's errors for the connection. ``on_status`` hears the status as soon as the
    headers are in, so a caller can tell a server that answered badly from one never reached."""
    async with asyncio.timeout(deadline_s):
        async with client.stream("GET", url, headers={**(headers or {}), **IDENTITY}) as resp:
            if on_status is not None:
                on_status(resp.status_code)
            encoding = content_encoding(resp)
            raw = resp.aiter_raw()
            pieces = inflated(raw, encoding, max_raw=max_bytes, what=what) if encoding else raw
            parts: list[bytes] = []
            size = 0
            async for piece in pieces:
                size += len(piece)
                if size > max_bytes:
                    raise oversized(what, max_bytes)
                parts.append(piece)
            return SmallReply(resp.status_code, resp.headers, b"".join(parts))
