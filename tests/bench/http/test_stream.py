"""send_request against real servers on 127.0.0.1: crafted streams with hand-computed timings,
every failure kind, and the built-in simulator."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from app.bench.http.client import make_client, warm_pool
from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.failures import KINDS, classify_exception, fix_for, kind_for_status
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec, build_body
from app.bench.http.stream import send_request
from app.bench.http.tokens import TokenCounter, TokenizerError, estimate_tokens

MS = 1_000_000
T0 = 1_000 * MS  # the scripted clock at the moment of sending
READ_WAIT_S = 10.0  # a hang guard: how long a write waits for the client to read the last one


@dataclass
class Script:
    """What the crafted server answers: status, headers, then (scripted clock ms, bytes) writes.

    The server sets the scripted clock to each write's time just before writing, and the client
    under test reads that clock, so every arrival time is exactly the scripted one. In a 200
    reply the next write waits until the client has read (stamped) the previous one, so two
    writes are never merged into one read, however busy the machine.
    """

    writes: list[tuple[float, bytes]] = field(default_factory=list)
    status: int = 200
    content_type: str = "text/event-stream"
    end: str = "chunked"  # "chunked": proper end of body; "abort": drop the connection mid-body
    stall_s: float = 0.0  # silence after the headers, before the first write


class ScriptServer:
    """A small blocking HTTP/1.1 server: one request per connection, answers with a Script."""

    def __init__(self) -> None:
        self.script = Script()
        self.vclock = T0
        self._stamped = threading.Event()  # the client read the clock since the last write
        self.requests: list[tuple[dict[str, str], dict]] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def clock(self) -> int:
        self._stamped.set()
        return self.vclock

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            with conn, contextlib.suppress(OSError):
                self._handle(conn)

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        data = b""
        while b"\r\n\r\n" not in data:
            more = conn.recv(65536)
            if not more:
                return
            data += more
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(body) < length:
            body += conn.recv(65536)
        self.requests.append((headers, json.loads(body) if body else {}))
        script = self.script
        chunked = script.status == 200 and script.content_type == "text/event-stream"
        framing = "transfer-encoding: chunked" if chunked else "connection: close"
        conn.sendall(
            f"HTTP/1.1 {script.status} Status\r\ncontent-type: {script.content_type}\r\n"
            f"{framing}\r\n\r\n".encode()
        )
        time.sleep(script.stall_s)
        for number, (t_ms, payload) in enumerate(script.writes):
            if script.status == 200 and number > 0:
                # The client stamps every read of a 200 reply: wait for the previous write's.
                self._stamped.wait(READ_WAIT_S)
            self._stamped.clear()
            self.vclock = T0 + int(t_ms * MS)
            conn.sendall(b"%x\r\n%s\r\n" % (len(payload), payload) if chunked else payload)
        if chunked and script.end == "chunked":
            conn.sendall(b"0\r\n\r\n")
        if script.end == "abort":
            conn.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
            )
        time.sleep(0.01)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sock.close()


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptServer]:
    srv = ScriptServer()
    yield srv
    srv.close()


def sse(obj: dict | str) -> bytes:
    return (
        b"data: " + (obj.encode() if isinstance(obj, str) else json.dumps(obj).encode()) + b"\n\n"
    )


def chat(
    content: str | None = None, finish: str | None = None, role: bool = False, **extra
) -> dict:
    delta: dict = {}
    if role:
        delta["role"] = "assistant"
    if content is not None:
        delta["content"] = content
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def text(piece: str, finish: str | None = None, **extra) -> dict:
    return {
        "object": "text_completion",
        "choices": [{"index": 0, "text": piece, "finish_reason": finish}],
        **extra,
    }


def usage(completion: int, prompt: int = 11) -> dict:
    return {
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def run_one(server: ScriptServer, script: Script, api: str = "chat", **kwargs) -> RequestRecord:
    server.script = script
    server.vclock = T0
    resolved = resolve_endpoint(server.base_url, None, api, model="m")
    spec = kwargs.pop("spec", None) or RequestSpec("hi", 3, 16, request_id="r1")
    timeout_s = kwargs.pop("timeout_s", 10.0)
    transport = kwargs.pop("transport", "native")

    async def go() -> RequestRecord:
        async with make_client(2, timeout_s=timeout_s, transport=transport) as client:
            return await send_request(client, resolved, spec, clock=server.clock, **kwargs)

    return asyncio.run(go())


def ms(ns: int | None) -> float | None:
    return None if ns is None else (ns - T0) / MS


@pytest.mark.parametrize("transport", ["native", "httpx"])
def test_role_only_first_chunk_multi_token_chunks_and_one_stamp_per_read(server, transport):
    script = Script(
        [
            (50, sse(chat("", role=True))),  # role only: no token yet
            (120, sse(chat("Hel"))),  # first token: TTFT 120 ms
            (140, sse(chat("lo wor"))),  # a 2-token chunk: still one gap
            (200, sse(chat("ld")) + sse(chat("!"))),  # two messages, one read, one stamp
            (230, sse(chat("", "stop")) + sse(usage(6)) + b"data: [DONE]\n\n"),
        ]
    )
    rec = run_one(server, script, transport=transport)
    assert rec.ok and rec.error_kind is None and rec.http_status == 200
    assert rec.send_ns == T0
    assert [ms(t) for t in rec.chunk_ns] == [120, 140, 200, 200, 230]
    assert rec.ttft_s == pytest.approx(0.120)
    assert ms(rec.first_choice_ns) == 50  # vLLM's own TTFT stamp, kept for comparison
    assert rec.e2el_s == pytest.approx(0.230)
    assert rec.output_tokens == 6 and rec.output_tokens_source == "usage"
    assert rec.tpot_s == pytest.approx((0.230 - 0.120) / 5)  # = 22 ms
    assert rec.prompt_len == 11  # from usage, like vLLM
    assert rec.generated_text == "Hello world!"
    assert rec.finish_reason == "stop" and rec.done_seen
    assert rec.messages == 8 and rec.reads == 5
    assert rec.chunk_tokens is None


def test_request_body_and_headers(server):
    script = Script([(10, sse(chat("a", "length")) + sse(usage(1)) + b"data: [DONE]\n\n")])
    spec = RequestSpec(
        "hello",
        5,
        7,
        ignore_eos=True,
        model="qwen",
        request_id="req-9",
        extra_body={"temperature": 0},
    )
    rec = run_one(server, script, spec=spec, api_key=" sk-test-key ", extra_headers={"X-A": "b"})
    assert rec.ok and rec.request_id == "req-9" and rec.output_len_requested == 7
    headers, body = server.requests[-1]
    assert body == {
        "model": "qwen",
        "messages": [{"role": "user", "content": "hello"}],
        "max_tokens": 7,
        "stream": True,
        "stream_options": {"include_usage": True},
        "ignore_eos": True,
        "temperature": 0,
    }
    assert headers["authorization"] == "Bearer sk-test-key"
    assert headers["x-request-id"] == "req-9" and headers["x-a"] == "b"
    assert headers["content-type"] == "application/json"
    # a benchmark must not time decompression: the reply is asked for uncompressed
    assert headers["accept-encoding"] == "identity"
    # TPOT needs two tokens; one token has none
    assert rec.output_tokens == 1 and rec.tpot_s is None


def test_completions_with_continuous_usage_gives_tokens_per_chunk(server):
    script = Script(
        [
            (30, sse(text("a", usage={"completion_tokens": 1}))),
            (50, sse(text("b c", usage={"completion_tokens": 3}))),
            (90, sse(text("d", "length", usage={"completion_tokens": 4}))),
            (91, sse(usage(4)) + b"data: [DONE]\n\n"),
        ]
    )
    rec = run_one(server, script, api="completions")
    assert rec.ok
    body = server.requests[-1][1]
    assert body["prompt"] == "hi" and "messages" not in body
    assert rec.chunk_tokens == [1, 2, 1]
    assert [ms(t) for t in rec.chunk_ns] == [30, 50, 90]
    assert rec.tpot_s == pytest.approx((0.090 - 0.030) / 3)
    assert rec.generated_text == "ab cd"


def _no_usage_script() -> Script:
    return Script(
        [
            (20, sse(chat("hello", role=True))),  # role + content in one delta is a token chunk
            (40, sse(chat(" world"))),
            (60, sse(chat(" hello", "stop")) + b"data: [DONE]\n\n"),
        ]
    )


def test_no_usage_uses_the_tokenizer(server, tmp_path):
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    tok = Tokenizer(WordLevel({"hello": 0, "world": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tok.pre_tokenizer = Whitespace()
    tok.save(str(tmp_path / "tokenizer.json"))
    counter = TokenCounter(tmp_path)
    rec = run_one(server, _no_usage_script(), tokenizer=counter)
    assert rec.ok and rec.usage is None
    assert rec.output_tokens == 3 and rec.output_tokens_source == "tokenizer"
    assert rec.ttft_s == pytest.approx(0.020)
    assert rec.tpot_s == pytest.approx((0.060 - 0.020) / 2)


def test_no_usage_no_tokenizer_is_an_estimate(server):
    rec = run_one(server, _no_usage_script())
    # "hello world hello": 17 ASCII characters / 4 per token
    assert rec.output_tokens == 4 and rec.output_tokens_source == "estimate"
    assert estimate_tokens("显存带宽") == 3  # 4 CJK characters / 1.5
    assert estimate_tokens("") == 0


def test_tokenizer_dir_without_tokenizer_json(tmp_path):
    with pytest.raises(TokenizerError, match=r"no tokenizer\.json"):
        TokenCounter(tmp_path)
    (tmp_path / "tokenizer.json").write_text("{broken")
    with pytest.raises(TokenizerError, match="cannot read tokenizer"):
        TokenCounter(tmp_path)


def test_stream_without_done_but_with_finish_reason_is_ok(server):
    rec = run_one(server, Script([(10, sse(chat("a"))), (30, sse(chat("b", "length")))]))
    assert rec.ok and not rec.done_seen and rec.output_tokens_source == "estimate"


def test_unterminated_last_message_is_accepted_like_vllm(server):
    script = Script(
        [
            (10, sse(chat("a"))),
            (30, b'data: {"choices":[{"delta":{"content":"b"},"finish_reason":"stop"}]}'),
        ]
    )
    rec = run_one(server, script)
    assert rec.ok and [ms(t) for t in rec.chunk_ns] == [10, 30]


# ---- failures: each kind, one line, never raised -------------------------------------------


def _assert_failed(rec: RequestRecord, kind: str, *words: str) -> None:
    assert not rec.ok
    assert rec.error_kind == kind, (rec.error_kind, rec.error)
    assert "\n" not in rec.error and 0 < len(rec.error) <= 240
    for word in words:
        assert word in rec.error, (word, rec.error)
    assert kind in KINDS


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, "http_401"),
        (404, "http_404"),
        (429, "http_429"),
        (500, "http_5xx"),
        (418, "http_4xx"),
        (503, "http_5xx"),
    ],
)
def test_http_errors_by_status_with_the_servers_message(server, status, kind):
    body = json.dumps(
        {"error": {"message": "Incorrect API key provided: sk-test-key.", "type": "x"}}
    ).encode()
    script = Script([(5, body)], status=status, content_type="application/json")
    rec = run_one(server, script, api_key="sk-test-key")
    _assert_failed(rec, kind, f"HTTP {status}", "Incorrect API key provided")
    assert "sk-test-key" not in rec.error  # the key never reaches a message
    assert rec.http_status == status
    assert rec.first_token_ns is None and rec.ttft_s is None


def test_malformed_chunk(server):
    rec = run_one(server, Script([(10, sse(chat("a"))), (20, b"data: {not json\n\n")]))
    _assert_failed(rec, "malformed_chunk", "{not json")
    assert [ms(t) for t in rec.chunk_ns] == [10]


def test_stream_cut_by_a_dropped_connection(server):
    rec = run_one(server, Script([(10, sse(chat("a"))), (30, sse(chat("b")))], end="abort"))
    _assert_failed(rec, "stream_cut")
    assert [ms(t) for t in rec.chunk_ns] == [10, 30]  # what arrived is kept


@pytest.mark.parametrize("transport", ["native", "httpx"])
def test_stream_cut_without_finish_or_done(server, transport):
    rec = run_one(server, Script([(10, sse(chat("a"))), (30, sse(chat("b")))]), transport=transport)
    _assert_failed(rec, "stream_cut", "2 chunks", "finish_reason")


def test_stream_cut_inside_a_message(server):
    rec = run_one(server, Script([(10, sse(chat("a"))), (30, b'data: {"choices":[{"de')]))
    _assert_failed(rec, "stream_cut", "inside a message")


def test_no_choices_for_example_a_chat_model_on_completions(server):
    script = Script(
        [
            (
                10,
                sse({"object": "text_completion", "model": "m"})
                + sse(usage(0))
                + b"data: [DONE]\n\n",
            )
        ]
    )
    rec = run_one(server, script, api="completions")
    _assert_failed(rec, "no_choices", "none of 3 stream messages")
    assert "choices" in fix_for("no_choices")


def test_error_event_inside_the_stream(server):
    script = Script([(10, sse({"error": {"message": "KV cache exhausted", "code": 500}}))])
    rec = run_one(server, script)
    _assert_failed(rec, "stream_error", "KV cache exhausted")


def test_json_reply_instead_of_a_stream(server):
    body = json.dumps({"choices": [{"message": {"content": "hi"}}]}).encode()
    rec = run_one(server, Script([(10, body)], content_type="application/json"))
    _assert_failed(rec, "not_sse", "application/json")


def test_read_timeout(server):
    rec = run_one(server, Script([(10, sse(chat("a")))], stall_s=0.6), timeout_s=0.2)
    _assert_failed(rec, "timeout", "timed out")


def test_connection_refused():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there

    async def go(transport: str) -> RequestRecord:
        resolved = resolve_endpoint(f"http://127.0.0.1:{port}/v1")
        async with make_client(1, transport=transport) as client:
            return await send_request(client, resolved, RequestSpec("x", 1, 4))

    for transport in ("native", "httpx"):
        rec = asyncio.run(go(transport))
        _assert_failed(rec, "connect", "cannot connect")
        assert rec.http_status is None and rec.end_ns >= rec.send_ns


def test_tls_to_a_plain_http_server():
    plain = socket.create_server(("127.0.0.1", 0))
    port = plain.getsockname()[1]

    def answer_in_plain_http() -> None:
        for _ in range(2):
            conn, _ = plain.accept()
            with conn:
                conn.recv(4096)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    thread = threading.Thread(target=answer_in_plain_http, daemon=True)
    thread.start()

    async def go(transport: str) -> RequestRecord:
        resolved = resolve_endpoint(f"https://127.0.0.1:{port}/v1")
        async with make_client(1, transport=transport) as client:
            return await send_request(client, resolved, RequestSpec("x", 1, 4))

    try:
        for transport in ("native", "httpx"):
            _assert_failed(asyncio.run(go(transport)), "tls", "TLS", "WRONG_VERSION_NUMBER")
    finally:
        thread.join(5)
        plain.close()


def test_dns_failure_classification():
    # A real lookup would leave 127.0.0.1, so the resolver's error is built here: the chain
    # each transport raises for an unknown host.
    root = socket.gaierror(-2, "Name or service not known")
    try:
        try:
            raise root
        except OSError as exc:
            raise httpx.ConnectError("[Errno -2] Name or service not known") from exc
    except httpx.ConnectError as exc:
        kind, message = classify_exception(exc, after_headers=False)
    assert kind == "dns" and "Name or service not known" in message


def test_status_kinds_and_fix_sentences():
    assert [kind_for_status(s) for s in (400, 401, 403, 404, 405, 429, 451, 500, 502)] == [
        "http_400",
        "http_401",
        "http_403",
        "http_404",
        "http_405",
        "http_429",
        "http_4xx",
        "http_5xx",
        "http_5xx",
    ]
    assert "--api-key-env" in fix_for("http_401")
    assert fix_for("http_502") == fix_for("http_5xx")
    for kind in KINDS.values():
        assert kind.fix.endswith(".") and "\n" not in kind.fix


def test_build_body_for_both_apis():
    spec = RequestSpec([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], 4, 9)
    assert build_body("chat", "m", spec)["messages"][0]["role"] == "system"
    body = build_body("completions", "m", RequestSpec("p", 1, 9))
    assert body == {
        "model": "m",
        "prompt": "p",
        "max_tokens": 9,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


# ---- the built-in simulator ---------------------------------------------------------------


@pytest.mark.parametrize("api", ["chat", "completions"])
def test_against_the_simulator(sim, api):
    resolved = resolve_endpoint(sim.base_url, None, api, model="qwen2.5-7b")

    async def go() -> tuple[list[RequestRecord], int]:
        async with make_client(4) as client:
            warmed = await warm_pool(client, resolved.models_url, 4)
            specs = [
                RequestSpec(
                    "Explain memory bandwidth.", 10, 12, ignore_eos=True, request_id=f"s{i}"
                )
                for i in range(4)
            ]
            records = await asyncio.gather(*(send_request(client, resolved, s) for s in specs))
            return list(records), warmed

    records, warmed = asyncio.run(go())
    assert warmed == 4
    for rec in records:
        assert rec.ok, rec.error
        assert rec.output_tokens == 12 and rec.output_tokens_source == "usage"
        assert rec.finish_reason == "length" and rec.done_seen
        assert len(rec.chunk_ns) == 12  # the simulator sends one token per chunk
        assert 0 < rec.ttft_s < rec.e2el_s
        # the reference case decodes at ~20 ms per token
        assert 0.010 < rec.tpot_s < 0.060


def test_send_time_is_stamped_when_the_request_body_goes_out(server):
    # a clock that counts its readings: 1 when send_request starts, 2 when the transport
    # reads the body (the request goes out), 3 for the one network read of the reply, 4 at
    # the end of the stream
    server.script = Script([(10, sse(chat("a", "stop")) + b"data: [DONE]\n\n")])
    readings = iter(range(1, 100))
    resolved = resolve_endpoint(server.base_url, None, "chat", model="m")

    async def go(transport: str) -> RequestRecord:
        async with make_client(1, transport=transport) as client:
            return await send_request(
                client, resolved, RequestSpec("x", 1, 4), clock=lambda: next(readings)
            )

    for transport, base in (("native", 0), ("httpx", 4)):
        rec = asyncio.run(go(transport))
        assert rec.ok
        assert (rec.submit_ns, rec.send_ns, rec.chunk_ns) == (base + 1, base + 2, [base + 3])


def test_json_followed_by_junk_is_malformed(server):
    rec = run_one(server, Script([(10, b'data: {"choices":[]} trailing\n\n')]))
    _assert_failed(rec, "malformed_chunk", "trailing")


def test_the_native_transport_hands_reads_to_the_exchange_directly(server):
    # The per-token fast path (no async generator, no task switch per read) needs the reply's
    # body to be the transport's own stream, not one of httpx's wrappers around it.
    from app.bench.http.wire.transport import WireStream

    server.script = Script([(5, sse(chat("a", "stop")) + b"data: [DONE]\n\n")])
    request = httpx.Request("GET", server.base_url + "/v1/chat/completions")

    async def stream_of(transport: str) -> object:
        async with make_client(1, transport=transport) as client:
            response = await client.send_stream(request)
            try:
                return response.stream
            finally:
                await response.aclose()

    assert isinstance(asyncio.run(stream_of("native")), WireStream)
    assert not isinstance(asyncio.run(stream_of("httpx")), WireStream)


@pytest.fixture
def own_server() -> Iterator[ScriptServer]:
    """A server of its own: no handler of an earlier test still moving the scripted clock."""
    srv = ScriptServer()
    yield srv
    srv.close()


def _think(piece: str) -> dict:
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"reasoning_content": piece}, "finish_reason": None}],
    }


def _reasoning_script(final_usage: dict) -> Script:
    return Script(
        [
            (50, sse(chat("", role=True))),
            (100, sse(_think("Let"))),  # TTFT: the first token of any kind
            (120, sse(_think(" me"))),
            (140, sse(_think(" think"))),
            (200, sse(chat("Blue"))),  # TTFO: the first visible answer token
            (220, sse(chat(" light"))),
            (250, sse(chat(".", "stop")) + sse(final_usage) + b"data: [DONE]\n\n"),
        ]
    )


def test_reasoning_reply_ttft_ttfo_answer_tpot_and_reported_reasoning_tokens(own_server):
    final = usage(6, prompt=40)
    final["usage"]["completion_tokens_details"] = {"reasoning_tokens": 3}
    final["usage"]["prompt_tokens_details"] = {"cached_tokens": 32}
    rec = run_one(own_server, _reasoning_script(final))
    assert rec.ok
    assert rec.ttft_s == pytest.approx(0.100) and rec.ttfo_s == pytest.approx(0.200)
    assert rec.reasoning_tokens == 3 and rec.reasoning_tokens_source == "usage"
    assert rec.reasoning_chunks == 3
    assert rec.tpot_s == pytest.approx((0.250 - 0.100) / 5)  # whole reply, as vLLM
    assert rec.answer_tpot_s == pytest.approx((0.250 - 0.200) / 2)  # 3 answer tokens
    assert rec.cached_tokens == 32
    assert rec.generated_text == "Blue light."


def test_reasoning_tokens_counted_from_deltas_when_usage_does_not_say(own_server):
    rec = run_one(own_server, _reasoning_script(usage(6)))
    assert rec.reasoning_tokens == 3 and rec.reasoning_tokens_source == "counted"
    assert rec.cached_tokens is None  # no prompt_tokens_details: the server said nothing


def test_ordinary_reply_has_ttfo_equal_to_ttft_and_no_reasoning(own_server):
    script = Script(
        [(120, sse(chat("Hi"))), (150, sse(chat("!", "stop")) + sse(usage(2)))],
    )
    rec = run_one(own_server, script)
    assert rec.ttfo_s == rec.ttft_s == pytest.approx(0.120)
    assert rec.reasoning_tokens is None and rec.reasoning_tokens_source is None
