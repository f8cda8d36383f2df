"""SSE parsing as a pure function, fed whole, split and broken streams."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.bench.http.sse import SSEDecoder, SSEError, SSEOversizedError

STREAM = (
    b'data: {"choices":[{"delta":{"content":"A"}}]}\n\n'
    b": ping comment\n\n"
    b'data:{"choices":[{"delta":{"content":"B"}}]}\n\n'
    b"event: message\nid: 7\nretry: 100\n"
    b'data: {"choices":[{"delta":{"content":"C"}}]}\n\n'
    b'data: {"choices":[],"usage":{"completion_tokens":3}}\n\n'
    b"data: [DONE]\n\n"
)


def _data(chunks):
    """Every event's data from a whole stream given as its network reads, as the stream
    reader gets it: what each read completes, then what the end of the body completes."""
    decoder = SSEDecoder()
    return [d for chunk in chunks for d in decoder.feed(chunk)] + decoder.flush()


def _contents(datas):
    out = []
    for data in datas:
        if data == b"[DONE]":
            out.append("DONE")
            continue
        payload = json.loads(data)
        if payload["choices"]:
            out.append(payload["choices"][0]["delta"]["content"])
        else:
            out.append(("usage", payload["usage"]["completion_tokens"]))
    return out


EXPECTED = ["A", "B", "C", ("usage", 3), "DONE"]


def test_whole_stream() -> None:
    assert _contents(_data([STREAM])) == EXPECTED


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 13, 64])
def test_any_split_gives_the_same_messages(size: int) -> None:
    pieces = [STREAM[i : i + size] for i in range(0, len(STREAM), size)]
    assert _contents(_data(pieces)) == EXPECTED


@pytest.mark.parametrize("size", [1, 2, 3, 4, 9, 1000])
def test_crlf_and_cr_line_ends_even_split_between_reads(size: int) -> None:
    crlf = STREAM.replace(b"\n", b"\r\n")
    pieces = [crlf[i : i + size] for i in range(0, len(crlf), size)]
    assert _contents(_data(pieces)) == EXPECTED
    cr = STREAM.replace(b"\n", b"\r")
    pieces = [cr[i : i + size] for i in range(0, len(cr), size)]
    assert _contents(_data(pieces)) == EXPECTED


def test_str_chunks_and_multibyte_text_split_inside_a_character() -> None:
    data = 'data: {"choices":[{"delta":{"content":"显存"}}]}\n\n'.encode()
    cut = data.index("存".encode()) + 1  # in the middle of a 3-byte character
    assert _contents(_data([data[:cut], data[cut:]])) == ["显存"]
    assert _contents(_data(["data: [DONE]\n", "\n"])) == ["DONE"]


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
    assert _data([b'data: {"a":\ndata: 1}\n\n']) == [b'{"a":\n1}']


def test_events_without_data_and_blank_keepalives_are_skipped() -> None:
    assert _data([b"\n\n\n\n: keep-alive\n\nevent: ping\n\n", b"id: 3\n\n"]) == []


def test_data_that_is_not_json_is_passed_on_as_it_came() -> None:
    # the stream reader fails such a request as malformed_chunk (tests/bench/test_stream.py)
    assert _data([b"data: {not json}\n\n", b"data: <html>\n\n"]) == [b"{not json}", b"<html>"]


def test_unterminated_last_event_complete_json_is_kept() -> None:
    # some servers end the body without the final blank line; vLLM accepts that
    assert _data([b'data: {"a":1}\n\ndata: {"b":2}']) == [b'{"a":1}', b'{"b":2}']
    assert _data([b"data: [DONE]"]) == [b"[DONE]"]


def test_unterminated_last_event_cut_mid_json_comes_out_at_the_end() -> None:
    # the stream reader fails it as stream_cut "inside a message" (tests/bench/test_stream.py)
    got = _data([b'data: {"a":1}\n\ndata: {"choices":[{"del'])
    assert got == [b'{"a":1}', b'{"choices":[{"del']


# ---- limits, BOM, and properties (hypothesis) ------------------------------------------------


def test_a_bom_at_the_start_is_skipped_even_split_over_reads() -> None:
    data = b"\xef\xbb\xbf" + STREAM
    assert _contents(_data([data])) == EXPECTED
    assert _contents(_data([data[:1], data[1:2], data[2:]])) == EXPECTED
    # only at the very start: later it is data
    assert _data([b"data: \xef\xbb\xbfx\n\n"]) == [b"\xef\xbb\xbfx"]


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
