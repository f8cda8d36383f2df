"""SSE parsing as a pure function, fed whole, split and broken streams."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.bench.http.sse import SSEDecoder, SSEError, SSEOversizedError, decode_data, parse_sse

STREAM = (
    b'data: {"choices":[{"delta":{"content":"A"}}]}\n\n'
    b": ping comment\n\n"
    b'data:{"choices":[{"delta":{"content":"B"}}]}\n\n'
    b"event: message\nid: 7\nretry: 100\n"
    b'data: {"choices":[{"delta":{"content":"C"}}]}\n\n'
    b'data: {"choices":[],"usage":{"completion_tokens":3}}\n\n'
    b"data: [DONE]\n\n"
)


def _contents(messages):
    out = []
    for m in messages:
        if m.kind == "done":
            out.append("DONE")
        elif m.kind == "json" and m.payload["choices"]:
            out.append(m.payload["choices"][0]["delta"]["content"])
        elif m.kind == "json":
            out.append(("usage", m.payload["usage"]["completion_tokens"]))
        else:
            out.append(m.kind)
    return out


EXPECTED = ["A", "B", "C", ("usage", 3), "DONE"]


def test_whole_stream() -> None:
    assert _contents(parse_sse([STREAM])) == EXPECTED


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 13, 64])
def test_any_split_gives_the_same_messages(size: int) -> None:
    pieces = [STREAM[i : i + size] for i in range(0, len(STREAM), size)]
    assert _contents(parse_sse(pieces)) == EXPECTED


@pytest.mark.parametrize("size", [1, 2, 3, 4, 9, 1000])
def test_crlf_and_cr_line_ends_even_split_between_reads(size: int) -> None:
    crlf = STREAM.replace(b"\n", b"\r\n")
    pieces = [crlf[i : i + size] for i in range(0, len(crlf), size)]
    assert _contents(parse_sse(pieces)) == EXPECTED
    cr = STREAM.replace(b"\n", b"\r")
    pieces = [cr[i : i + size] for i in range(0, len(cr), size)]
    assert _contents(parse_sse(pieces)) == EXPECTED


def test_str_chunks_and_multibyte_text_split_inside_a_character() -> None:
    data = 'data: {"choices":[{"delta":{"content":"显存"}}]}\n\n'.encode()
    cut = data.index("存".encode()) + 1  # in the middle of a 3-byte character
    assert _contents(parse_sse([data[:cut], data[cut:]])) == ["显存"]
    assert _contents(parse_sse(["data: [DONE]\n", "\n"])) == ["DONE"]


def test_an_event_is_emitted_in_the_read_that_completes_it() -> None:
    dec = SSEDecoder()
    assert dec.feed(b'data: {"a":') == []
    assert dec.feed(b"1}\n") == []
    assert dec.feed(b"\ndata: [DO") == [b'{"a":1}']
    assert dec.feed(b"NE]\n\n") == [b"[DONE]"]
    assert dec.pending == b""


def test_trailing_cr_does_not_hold_back_the_event() -> None:
    dec = SSEDecoder()
    assert dec.feed(b'data: {"a":1}\r\n\r') == [b'{"a":1}']
    # the LF that completes that CRLF opens the next read and must not end another line
    assert dec.feed(b'\ndata: {"b":2}\r\n\r\n') == [b'{"b":2}']


def test_multi_line_data_is_joined_with_newlines() -> None:
    msgs = parse_sse([b'data: {"a":\ndata: 1}\n\n'])
    assert msgs[0].kind == "json"
    assert msgs[0].payload == {"a": 1}


def test_events_without_data_and_blank_keepalives_are_skipped() -> None:
    assert parse_sse([b"\n\n\n\n: keep-alive\n\nevent: ping\n\n", b"id: 3\n\n"]) == []


def test_broken_json_is_malformed() -> None:
    msgs = parse_sse([b"data: {not json}\n\n", b"data: <html>\n\n"])
    assert [m.kind for m in msgs] == ["malformed", "malformed"]
    assert msgs[0].data == b"{not json}"


def test_unterminated_last_event_complete_json_is_kept() -> None:
    # some servers end the body without the final blank line; vLLM accepts that
    msgs = parse_sse([b'data: {"a":1}\n\ndata: {"b":2}'])
    assert [m.payload for m in msgs] == [{"a": 1}, {"b": 2}]
    assert [m.kind for m in parse_sse([b"data: [DONE]"])] == ["done"]


def test_unterminated_last_event_cut_mid_json_is_truncated() -> None:
    msgs = parse_sse([b'data: {"a":1}\n\ndata: {"choices":[{"del'])
    assert [m.kind for m in msgs] == ["json", "truncated"]


def test_decode_data_kinds() -> None:
    assert decode_data(b"[DONE]").kind == "done"
    assert decode_data(b" [DONE] ").kind == "done"
    assert decode_data(b"[1, 2]").payload == [1, 2]
    assert decode_data(b"").kind == "malformed"
    assert decode_data(b"{", final=True).kind == "truncated"


# ---- limits, BOM, and properties (hypothesis) ------------------------------------------------


def test_a_bom_at_the_start_is_skipped_even_split_over_reads() -> None:
    data = b"\xef\xbb\xbf" + STREAM
    assert _contents(parse_sse([data])) == EXPECTED
    assert _contents(parse_sse([data[:1], data[1:2], data[2:]])) == EXPECTED
    # only at the very start: later it is data
    assert parse_sse([b"data: \xef\xbb\xbfx\n\n"])[0].data == b"\xef\xbb\xbfx"


def test_an_endless_line_is_cut_at_the_event_limit() -> None:
    dec = SSEDecoder(max_event_bytes=1000)
    with pytest.raises(SSEOversizedError, match="grew past"):
        for _ in range(100):
            dec.feed(b"data: " + b"a" * 64)
    assert dec.pending == b""  # what was held is let go


def test_a_large_event_in_many_reads_is_joined_once() -> None:
    dec = SSEDecoder()
    piece = b"a" * 4096
    assert dec.feed(b"data: ") == []
    for _ in range(1024):  # 4 MiB in 4 kB reads
        assert dec.feed(piece) == []
    (data,) = dec.feed(b"\n\n")
    assert len(data) == 4 * 1024 * 1024
    assert dec.pending == b""


def test_an_event_end_split_between_two_reads() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: 1\n") == []
    assert dec.feed(b"\ndata: 2\n") == [b"1"]
    assert dec.flush() == [b"2"]


_PIECES = st.lists(st.binary(max_size=40), max_size=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=_PIECES, limit=st.integers(min_value=1, max_value=200))
def test_the_decoder_raises_only_its_own_error(pieces: list[bytes], limit: int) -> None:
    dec = SSEDecoder(max_event_bytes=limit)
    try:
        for piece in pieces:
            for data in dec.feed(piece):
                assert isinstance(data, bytes)
                decode_data(data)
        dec.flush()
    except SSEError:
        pass


_LINES = st.lists(
    st.one_of(
        st.binary(max_size=12).map(lambda b: b"data: " + b.replace(b"\r", b"").replace(b"\n", b"")),
        st.sampled_from([b"", b": comment", b"event: x", b"id: 1", b"data:[DONE]"]),
    ),
    max_size=20,
)


@settings(max_examples=300, deadline=None)
@given(
    lines=_LINES,
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
    ending=st.sampled_from([b"\n", b"\r\n", b"\r"]),
)
def test_any_split_of_any_stream_gives_the_same_events(
    lines: list[bytes], cuts: list[int], ending: bytes
) -> None:
    stream = b"".join(line + ending for line in lines)
    whole = SSEDecoder()
    expected = whole.feed(stream) + whole.flush()
    points = sorted({c for c in cuts if c < len(stream)})
    pieces = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]
    split = SSEDecoder()
    got = [d for p in pieces for d in split.feed(p)] + split.flush()
    assert got == expected
