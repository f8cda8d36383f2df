"""A streaming test server that logs the monotonic time at which it wrote every chunk: the
self-test's local server (`python -m app.bench.selftest.chunk_server`) and the benchmarks'."""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from typing import Any

from app.bench.selftest.truth import RequestTruth, truth_json

USAGE = """
OpenAI-style streaming chat/completions at a fixed inter-token latency, HTTP/1.1 keep-alive, on
raw asyncio streams (uvloop when installed) so the server costs little CPU. The write time of
each token chunk (time.perf_counter_ns: CLOCK_MONOTONIC on Linux, the clock the client reads)
is kept per X-Request-Id; GET /truth returns them and forgets them. Prints "READY <port>".

  python benchmarks/chunk_server.py --port 0 --itl-ms 20 --tokens 128 --ttft-ms 5
"""

clock = time.perf_counter_ns
RUNNING = re.compile(r"^(vllm:num_requests_running\{[^}]*\}) \S+$", re.MULTILINE)


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def _sse(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


class ChunkServer:
    def __init__(self, itl_ms: float, tokens: int, ttft_ms: float, role_chunk: bool) -> None:
        self.itl_ns = int(itl_ms * 1e6)
        self.tokens = tokens
        self.ttft_ns = int(ttft_ms * 1e6)
        self.role_chunk = role_chunk
        self.truth: dict[str, RequestTruth] = {}
        self.metrics_page = ""  # a Prometheus page served at /metrics, running gauge kept live
        self.in_flight = 0

    def _frames(
        self, chat: bool, model: str, n: int, include_usage: bool
    ) -> tuple[bytes, bytes, bytes]:
        """(token chunk, role-only chunk, last token chunk + usage + [DONE] + end of body)."""
        base = {"id": "cmpl-bench", "created": 1, "model": model}
        if chat:
            base["object"] = "chat.completion.chunk"
            tok = {"index": 0, "delta": {"content": " tok"}, "logprobs": None}
        else:
            base["object"] = "text_completion"
            tok = {"index": 0, "text": " tok", "logprobs": None}
        role = {"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": None}
        token = {**base, "choices": [{**tok, "finish_reason": None}]}
        # Like vLLM at max_tokens: the last token and finish_reason share one chunk.
        last = {**base, "choices": [{**tok, "finish_reason": "length"}]}
        usage = {"prompt_tokens": 8, "completion_tokens": n, "total_tokens": 8 + n}
        # like vLLM: a usage message only when the request asked for it
        tail = _sse({**base, "choices": [], "usage": usage}) if include_usage else b""
        return (
            _chunk(_sse(token)),
            _chunk(_sse({**base, "choices": [{**role, "finish_reason": None}]})),
            _chunk(_sse(last) + tail + b"data: [DONE]\n\n") + b"0\r\n\r\n",
        )

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                length = int(headers.get("content-length", "0"))
                body = await reader.readexactly(length) if length else b""
                recv_ns = clock()  # the request is complete: the server's TTFT starts here
                if method == "GET" and path == "/truth":
                    data = truth_json(self.truth)
                    self.truth = {}
                    self._reply(writer, 200, data)
                elif method == "GET" and path == "/metrics" and self.metrics_page:
                    live = f"\\g<1> {self.in_flight}"
                    self._reply(writer, 200, RUNNING.sub(live, self.metrics_page).encode())
                elif method == "GET" and path.endswith("/models"):
                    self._reply(writer, 200, b'{"object":"list","data":[{"id":"bench"}]}')
                elif method == "POST" and path.endswith("completions"):
                    req = json.loads(body or b"{}")
                    rid = headers.get("x-request-id", "")
                    await self._stream(writer, path.endswith("chat/completions"), req, rid, recv_ns)
                else:
                    self._reply(writer, 404, b'{"error":{"message":"not found"}}')
                await writer.drain()
        finally:
            writer.close()

    def _reply(self, writer: asyncio.StreamWriter, status: int, data: bytes) -> None:
        writer.write(
            b"HTTP/1.1 %d X\r\ncontent-type: application/json\r\ncontent-length: %d"
            b"\r\n\r\n%s" % (status, len(data), data)
        )

    async def _stream(
        self, writer: asyncio.StreamWriter, chat: bool, req: dict[str, Any], rid: str, recv_ns: int
    ) -> None:
        n = int(req.get("max_tokens") or self.tokens)
        model = str(req.get("model", "bench"))
        include_usage = bool((req.get("stream_options") or {}).get("include_usage"))
        token, role, last = self._frames(chat, model, n, include_usage)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        writes: list[int] = []
        self.truth[rid] = RequestTruth(recv_ns, writes)
        self.in_flight += 1
        try:
            await self._tokens(writer, chat, n, token, role, last, writes, recv_ns)
        finally:
            self.in_flight -= 1

    async def _tokens(
        self,
        writer: asyncio.StreamWriter,
        chat: bool,
        n: int,
        token: bytes,
        role: bytes,
        last: bytes,
        writes: list[int],
        recv_ns: int,
    ) -> None:
        target = recv_ns + self.ttft_ns
        loop_sleep = asyncio.sleep
        for i in range(n):
            delay = target - clock()
            if delay > 0:
                await loop_sleep(delay / 1e9)
            if i == 0 and chat and self.role_chunk:
                writer.write(role)
            writer.write(last if i == n - 1 else token)
            writes.append(clock())
            target += self.itl_ns


async def serve(args: argparse.Namespace) -> None:
    app = ChunkServer(args.itl_ms, args.tokens, args.ttft_ms, args.role_chunk)
    if args.metrics_page:
        with open(args.metrics_page, encoding="utf-8") as fh:
            app.metrics_page = fh.read()
    server = await asyncio.start_server(app.handle, args.host, args.port, backlog=4096)
    port = server.sockets[0].getsockname()[1]
    print(f"READY {port}", flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--itl-ms", type=float, default=20.0)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--ttft-ms", type=float, default=5.0)
    parser.add_argument("--role-chunk", action="store_true", help="send a role-only first delta")
    parser.add_argument(
        "--metrics-page",
        help="a Prometheus text file to serve at /metrics (vllm:num_requests_running follows "
        "the streams in flight), so a window's /metrics reader costs what it would on vLLM",
    )
    run_server(parser.parse_args())


def run_server(args: argparse.Namespace) -> None:
    """Serve until interrupted (uvloop when installed: the server should cost little CPU)."""
    try:
        import uvloop

        runner = asyncio.Runner(loop_factory=uvloop.new_event_loop)
    except ImportError:
        runner = asyncio.Runner()
    try:
        with runner:
            runner.run(serve(args))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
