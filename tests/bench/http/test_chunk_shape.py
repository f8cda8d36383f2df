"""The reader's shortcut for a stream's repeated chunk shape (chunk_shape.py) records exactly
what the full SSE split and JSON parse record, for any stream a server may send."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.bench.http.collector import Collector
from app.bench.http.record import RequestRecord
from app.bench.http.sse import SSEDecoder

_FIELDS = (
    "messages",
    "done",
    "kind",
    "error",
    "usage",
    "finish_reason",
    "first_choice_ns",
    "first_output_ns",
    "reasoning_chunks",
    "text_parts",
    "extra_parts",
    "cum_tokens",
)


def _collect(reads: list[bytes], chat: bool, shortcut: bool) -> tuple[dict[str, Any], int]:
    """The collector's state after ``reads`` (one stamp each), read the way exchange.py's
    reader does: the shortcut first (when allowed), else the SSE split and full parse."""
    rec = RequestRecord()
    col = Collector(rec, chat, None)
    if not shortcut:
        col.shape_tries = 1_000_000  # never learns a shape: every event takes the full path
    decoder = SSEDecoder()
    taken = 0
    for t, data in enumerate(reads, 1):
        if shortcut and decoder.idle and col.shaped(data, t):
            taken += 1
            continue
        if any(col.message(p, t) for p in decoder.feed(data)):
            break
    else:
        for payload in decoder.flush():
            if col.message(payload, len(reads) + 1, final=True):
                break
    state = {name: getattr(col, name) for name in _FIELDS}
    state["chunk_ns"] = list(rec.chunk_ns)
    return state, taken


def _event(obj: object) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n\n"


def _vllm(piece: str, field: str = "content", cid: str = "chatcmpl-1") -> dict[str, Any]:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {field: piece}, "logprobs": None, "finish_reason": None}],
    }


def test_a_vllm_stream_takes_the_shortcut_and_records_the_same() -> None:
    reads = [_event(_vllm("", "content") | {"choices": [{"index": 0, "delta": {"role": "a"}}]})]
    reads += [_event(_vllm(f" t{i}")) for i in range(20)]
    reads += [_event({"id": "chatcmpl-1", "choices": [], "usage": {"completion_tokens": 20}})]
    reads += [b"data: [DONE]\n\n"]
    fast, taken = _collect(reads, True, True)
    full, _ = _collect(reads, True, False)
    assert fast == full
    assert taken == 19  # every token chunk but the one the shape was learned from
    assert fast["text_parts"] == [f" t{i}" for i in range(20)]


def test_reasoning_then_answer_learns_both_shapes() -> None:
    reads = [_event(_vllm(f"r{i}", "reasoning_content")) for i in range(5)]
    reads += [_event(_vllm(f"a{i}")) for i in range(5)]
    fast, taken = _collect(reads, True, True)
    full, _ = _collect(reads, True, False)
    assert fast == full
    assert taken == 8
    assert fast["reasoning_chunks"] == 5 and fast["first_output_ns"] == 6


_GOOD = _event(_vllm("ok"))
_HEAD, _TAIL = _GOOD.split(b"ok")


@pytest.mark.parametrize(
    "read",
    [_HEAD + middle + _TAIL for middle in (b'a"b', b"a\\nb", b"a\x01b", b"a\nb", b"\xff", b"")]
    + [
        _HEAD + b'x"},"usage":{"a":1' + _TAIL,  # the "text" would close the string early
        _GOOD + _GOOD,  # two events in one read
        _GOOD[:30],  # half an event
        _event(_vllm("ok") | {"usage": {"completion_tokens": 1}}),
        _HEAD + b"a" + _TAIL.replace(b"null}]", b'"stop"}]'),
        _HEAD.replace(b"chatcmpl-1", b"chatcmpl-2") + b"a" + _TAIL,
    ],
)
def test_what_the_shape_cannot_vouch_for_takes_the_full_path(read: bytes) -> None:
    """Text with a quote, an escape, a control character, a line end, invalid UTF-8, none;
    a read of two events or half of one; usage, a finish_reason, another id."""
    reads = [_GOOD, _GOOD, read, _GOOD[30:], _GOOD]
    fast, taken = _collect(reads, True, True)
    full, _ = _collect(reads, True, False)
    assert fast == full
    assert taken in (1, 2)  # the second read, and the last one if the stream got that far
    assert _collect(reads[:3], True, True)[1] == 1


def test_the_shape_is_the_text_field_not_the_same_text_elsewhere() -> None:
    """The first chunk's id is its text too: the shape must be where the text field is."""
    reads = [_event(_vllm("ok", cid="ok")), _event(_vllm("ok", cid="zz"))]
    reads.append(_event(_vllm("hi", cid="zz")))
    fast, taken = _collect(reads, True, True)
    assert fast == _collect(reads, True, False)[0]
    assert fast["text_parts"] == ["ok", "ok", "hi"]
    assert taken == 1  # learned from the first chunk, again from the first "zz"


_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=6
)


@st.composite
def _streams(draw: st.DrawFn) -> tuple[list[bytes], bool]:
    chat = draw(st.booleans())
    reads: list[bytes] = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["token", "token", "token", "reasoning", "other", "raw"]))
        cid = draw(st.sampled_from(["c1", "c1", "c1", "c2"]))
        piece = draw(_TEXT)
        if kind == "raw":
            reads.append(draw(st.binary(max_size=40)))
            continue
        if chat:
            obj = _vllm(piece, "reasoning_content" if kind == "reasoning" else "content", cid)
        else:
            obj = {"id": cid, "choices": [{"index": 0, "text": piece, "finish_reason": None}]}
        if kind == "other":
            extra = draw(
                st.sampled_from(
                    [
                        {"usage": {"completion_tokens": 3}},
                        {"usage": [1]},
                        {"choices": []},
                        {"choices": [], "error": {"message": "x"}},
                        {"choices": [{"index": 0, "finish_reason": "stop", "text": piece}]},
                    ]
                )
            )
            obj |= extra
        event = _event(obj)
        if draw(st.booleans()):
            event = event.replace(piece.encode(), draw(_TEXT).encode(), 1) if piece else event
        if draw(st.integers(0, 5)) == 0:
            cut = draw(st.integers(0, len(event)))
            reads += [event[:cut], event[cut:]]
        else:
            reads.append(event)
    return reads, chat


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_streams())
def test_any_stream_records_the_same_with_and_without_the_shortcut(
    stream: tuple[list[bytes], bool],
) -> None:
    reads, chat = stream
    assert _collect(reads, chat, True)[0] == _collect(reads, chat, False)[0]
