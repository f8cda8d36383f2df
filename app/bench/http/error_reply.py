"""What a failed reply says: its status line and the message inside its error body, read
within a limit."""

from __future__ import annotations

import contextlib
import json

import httpx

from app.bench.http.body import (
    BodyError,
    content_encoding,
    inflated,
)
from app.bench.http.failures import kind_for_status

_EXCERPT = 200

_ERROR_BODY_LIMIT = 4096


def one_line(text: str, limit: int = _EXCERPT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def error_detail(body: bytes) -> str:
    """The message inside an OpenAI-style error body, else an excerpt of the body."""
    try:
        obj = json.loads(body)
    except ValueError:
        return one_line(body.decode("utf-8", "replace"))
    if isinstance(obj, dict):
        err = obj.get("error", obj)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or err.get("msg")
            if msg:
                return one_line(str(msg))
        elif isinstance(err, str):
            return one_line(err)
        if "detail" in obj:
            return one_line(str(obj["detail"]))
    return one_line(body.decode("utf-8", "replace"))


async def _read_limited(response: httpx.Response, limit: int = _ERROR_BODY_LIMIT) -> bytes:
    """The first ``limit`` bytes of an error body (decoded if compressed)."""
    parts: list[bytes] = []
    size = 0
    raw = response.aiter_raw()
    encoding = content_encoding(response)
    with contextlib.suppress(BodyError):
        pieces = inflated(raw, encoding, max_raw=limit, what="error") if encoding else raw
        async for data in pieces:
            parts.append(data[: limit - size])
            size += len(parts[-1])
            if size >= limit:
                break
    return b"".join(parts)


async def status_failure(response: httpx.Response) -> tuple[str, str]:
    status = response.status_code
    reason = response.reason_phrase or ""
    kind = kind_for_status(status)
    if kind == "redirect":
        target = one_line(response.headers.get("location", "") or "(no Location header)", 300)
        return kind, f"HTTP {status} {reason}: redirect to {target} (not followed)"
    body = await _read_limited(response)
    detail = error_detail(body) if body else ""
    return kind, one_line(f"HTTP {status} {reason}: {detail}".strip(" :"))
