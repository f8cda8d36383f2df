"""A stream's repeated token chunk: its bytes around the token text, so later chunks of the
same shape are taken without parsing their JSON.

A server streams hundreds of chunks per request that differ only in the token's text (vLLM:
``data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m",
"choices":[{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":null}]}``).
Parsing each costs ~3 us of the ~28 us a token costs the client at 256 streams; a match here
costs a few hundred nanoseconds.

Exact, not a guess: a shape is learned from a chunk the full parser read, by putting a marker
where the token text was and parsing that once more. If the marker comes back as exactly the
token field's value, the bytes between ``head`` and ``tail`` are the whole inside of that one
JSON string. A later read ``head + M + tail`` where M has no quote, backslash, control
character (so also no line end: one SSE event) or invalid UTF-8 is then, by JSON's grammar, the
same object with that string = M: what the full path would have made of it, field by field.
Anything else (a finish_reason, usage, an error, another id, an escape in the text, a read that
is not exactly one event) goes the full way.
"""

from __future__ import annotations

import json
from typing import Any, Final

CONTENT: Final = "content"  # chat: choices[0].delta.content, visible text
REASONING: Final = "reasoning"  # chat: delta.reasoning_content (or .reasoning), not shown
TEXT: Final = "text"  # completions: choices[0].text, visible text

_MARKER = "tpotbenchShapeMarker"
_SSE_HEAD = b"data: "
_SSE_TAIL = b"\n\n"
_raw_decode = json.JSONDecoder().raw_decode


class ChunkShape:
    """The bytes of one SSE event around its token text (``head`` and ``tail``), and which
    field the text is (``kind``). The collector's ``shaped`` takes a read of this shape."""

    __slots__ = ("cut", "head", "kind", "skip", "tail")

    def __init__(self, head: bytes, tail: bytes, kind: str) -> None:
        self.head = head
        self.tail = tail
        self.kind = kind
        self.skip = len(head)
        self.cut = -len(tail)

    @classmethod
    def learn(cls, payload: bytes, obj: dict[str, Any], chat: bool) -> ChunkShape | None:
        """The shape of ``payload`` (one SSE event's data, parsed to ``obj`` by the full path),
        if it is a plain token chunk whose token text sits in its bytes as written."""
        kind = token_field(obj, chat)
        if kind is None:
            return None
        piece = _field(obj, kind, chat)
        if not isinstance(piece, str):
            return None
        raw = piece.encode()
        if plain(raw) != piece:
            return None
        at = payload.find(b'"' + raw + b'"')
        while at >= 0:
            head, tail = payload[: at + 1], payload[at + 1 + len(raw) :]
            if _is_field(head + _MARKER.encode() + tail, kind, chat):
                if b"\n" in head or b"\r" in head or b"\n" in tail or b"\r" in tail:
                    return None
                return cls(_SSE_HEAD + head, tail + _SSE_TAIL, kind)
            at = payload.find(b'"' + raw + b'"', at + 1)
        return None


def token_field(obj: dict[str, Any], chat: bool) -> str | None:
    """Which field carries a plain token chunk's text (one the collector takes as exactly one
    token of text or reasoning, nothing else), or None for any other message."""
    if obj.get("usage"):
        return None
    choices = obj.get("choices")
    if type(choices) is not list or not choices:
        return None
    c0 = choices[0]
    if type(c0) is not dict or c0.get("finish_reason"):
        return None
    if not chat:
        return TEXT
    delta = c0.get("delta") or c0.get("message")
    if type(delta) is not dict or delta.get("tool_calls"):
        return None
    if delta.get("reasoning_content") or delta.get("reasoning"):
        return None if delta.get("content") else REASONING
    return CONTENT


def _field(obj: dict[str, Any], kind: str, chat: bool) -> object:
    c0 = obj["choices"][0]
    if not chat:
        return c0.get("text")
    delta = c0.get("delta") or c0.get("message")
    if kind == CONTENT:
        return delta.get("content")
    return delta.get("reasoning_content") or delta.get("reasoning")


def _is_field(payload: bytes, kind: str, chat: bool) -> bool:
    """Whether ``payload`` parses whole to an object whose ``kind`` field is the marker."""
    try:
        text = payload.decode()
        obj, end = _raw_decode(text)
    except ValueError:
        return False
    if end != len(text) or type(obj) is not dict:
        return False
    try:
        return token_field(obj, chat) == kind and _field(obj, kind, chat) == _MARKER
    except (TypeError, AttributeError, KeyError, IndexError):
        return False


def plain(middle: bytes) -> str | None:
    """The text of a token chunk's middle bytes if they can only be the inside of one JSON
    string as written, else None (the read then takes the full path)."""
    # 34 is '"', 92 a backslash: an int, as ``bytes in bytes`` first tries its needle as an
    # int and pays ~0.4 us for the TypeError
    if not middle or 34 in middle or 92 in middle:
        return None
    try:
        text = middle.decode()
    except UnicodeDecodeError:
        return None
    # isprintable is False for every control character (JSON forbids them raw) and for line
    # ends (a second SSE line); it is also False for a few other characters, which then simply
    # take the full path
    return text if text.isprintable() else None
