"""Per-request stream state: each SSE message's choices, text, usage and errors, stamped."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from app.bench.http.chunk_shape import REASONING, ChunkShape, plain
from app.bench.http.error_reply import error_detail, one_line
from app.bench.http.record import RequestRecord
from app.bench.http.sse import DONE

ChunkObserver = Callable[[RequestRecord, int], None]

_raw_decode = json.JSONDecoder().raw_decode

_MALFORMED = object()
# A token chunk the shape did not match is learned from (reasoning, then answer text), but a
# stream whose chunks keep changing shape (an id per chunk) stops after this many tries: each
# costs one parse more.
_SHAPE_TRIES = 8


class Collector:
    """Per-request stream state; ``message`` handles one SSE data payload stamped ``t``."""

    __slots__ = (
        "chat",
        "chunk_ns",
        "cum_tokens",
        "done",
        "error",
        "extra_parts",
        "finish_reason",
        "first_choice_ns",
        "first_output_ns",
        "kind",
        "messages",
        "on_chunk",
        "on_text",
        "reasoning_chunks",
        "rec",
        "shape",
        "shape_tries",
        "text_parts",
        "usage",
    )

    def __init__(
        self,
        rec: RequestRecord,
        chat: bool,
        on_chunk: ChunkObserver | None,
        on_text: Callable[[str], None] | None = None,
    ) -> None:
        self.rec = rec
        self.chat = chat
        self.on_chunk = on_chunk
        self.on_text = on_text
        self.chunk_ns = rec.chunk_ns
        self.text_parts: list[str] = []
        self.extra_parts: list[str] = []  # reasoning / tool-call text: tokens, not shown
        self.cum_tokens: list[object] = []  # usage.completion_tokens as sent, checked later
        self.usage: dict[str, Any] | None = None
        self.finish_reason: str | None = None
        self.first_choice_ns: int | None = None
        self.first_output_ns: int | None = None
        self.reasoning_chunks = 0
        self.kind: str | None = None
        self.error = ""
        self.done = False
        self.messages = 0
        # the stream's token chunk shape, once learned: the reader takes matching events with
        # token() without parsing them (chunk_shape.py)
        self.shape: ChunkShape | None = None
        self.shape_tries = 0

    def fail(self, kind: str, error: str) -> bool:
        self.kind = kind
        self.error = error
        return True

    def message(self, payload: bytes, t: int, final: bool = False) -> bool:
        """Returns True when the stream must stop (a failure was recorded)."""
        self.messages += 1
        if payload == DONE:
            self.done = True
            return False
        try:
            # raw_decode on str is about twice as fast as json.loads on bytes; the end check
            # keeps "{...} trailing junk" malformed, and json.loads covers leading whitespace.
            text = payload.decode()
            obj, end = _raw_decode(text)
            if end != len(text) and text[end:].strip():
                raise ValueError("trailing data")
        except ValueError:
            try:
                obj = json.loads(payload)
            except ValueError:
                obj = _MALFORMED
        if obj is _MALFORMED:
            if payload.strip() == DONE:
                self.done = True
                return False
            if final:  # the body ended in the middle of this message
                return self.fail(
                    "stream_cut", "the stream ended inside a message: " + excerpt(payload)
                )
            return self.fail("malformed_chunk", "a stream message is not JSON: " + excerpt(payload))
        if type(obj) is not dict:
            return self.fail(
                "malformed_chunk",
                "a stream message is not a JSON object: " + excerpt(payload),
            )
        try:
            return self._fields(obj, t, payload)
        except (TypeError, AttributeError, KeyError, IndexError):
            # a field of an unexpected type ("usage": [1], "choices": 5, "content": 5 ...)
            return self.fail(
                "malformed_chunk",
                "a stream message has fields of unexpected types: " + excerpt(payload),
            )

    def _fields(self, obj: dict[str, Any], t: int, payload: bytes) -> bool:
        choices = obj.get("choices")
        u = obj.get("usage")
        if u and type(u) is not dict:
            raise TypeError("usage")
        if choices:
            c0 = choices[0]
            fr = c0.get("finish_reason")
            if fr:
                if type(fr) is not str:
                    raise TypeError("finish_reason")
                self.finish_reason = fr
            if self.first_choice_ns is None:
                self.first_choice_ns = t
            if self.chat:
                delta = c0.get("delta") or c0.get("message") or {}
                piece = delta.get("content")
                other = delta.get("reasoning_content") or delta.get("reasoning")
                if other:
                    if type(other) is not str:
                        raise TypeError("reasoning")
                    self.extra_parts.append(other)
                    self.reasoning_chunks += 1
                elif delta.get("tool_calls"):
                    self.extra_parts.append(json.dumps(delta["tool_calls"]))
                elif not piece and fr is None and "role" in delta:
                    return False  # the role-only opening delta: no generated token yet
            else:
                piece = c0.get("text")
            if piece:
                if type(piece) is not str:
                    raise TypeError("content")
                self._text(piece, t)
            self.chunk_ns.append(t)
            if u:
                self.cum_tokens.append(u.get("completion_tokens"))
            elif self.shape_tries < _SHAPE_TRIES:
                self.shape_tries += 1
                self.shape = ChunkShape.learn(payload, obj, self.chat) or self.shape
            if self.on_chunk is not None:
                self.on_chunk(self.rec, t)
        if u:
            self.usage = u
        elif not choices and ("error" in obj or obj.get("object") == "error"):
            return self.fail(
                "stream_error", "the server sent an error in the stream: " + error_detail(payload)
            )
        return False

    def shaped(self, data: bytes, t: int) -> bool:
        """Take a read that is one SSE event of the stream's learned shape (``self.shape``)
        the way message() would, without parsing it; False (nothing done) for any other
        read. The SSE decoder must be between events (SSEDecoder.idle)."""
        shape = self.shape
        # slices and ==: cheaper than startswith/endswith's argument parsing
        if shape is None or data[: shape.skip] != shape.head or data[shape.cut :] != shape.tail:
            return False
        piece = plain(data[shape.skip : shape.cut])
        if piece is None:
            return False
        self.messages += 1
        if self.first_choice_ns is None:
            self.first_choice_ns = t
        if shape.kind == REASONING:
            self.extra_parts.append(piece)
            self.reasoning_chunks += 1
        else:
            self._text(piece, t)
        self.chunk_ns.append(t)
        if self.on_chunk is not None:
            self.on_chunk(self.rec, t)
        return True

    def _text(self, piece: str, t: int) -> None:
        """A piece of visible text, stamped ``t``."""
        if self.first_output_ns is None:
            self.first_output_ns = t
        self.text_parts.append(piece)
        if self.on_text is not None:
            self.on_text(piece)


def excerpt(payload: bytes) -> str:
    return one_line(payload.decode("utf-8", "replace"), 120)
