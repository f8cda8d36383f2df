"""Arrival stamps on TPOT Bench's own transport, against a real server on 127.0.0.1: a chunk is
stamped when it arrived, not when its reader's turn came."""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from app.bench.http.client import make_client, run
from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.http.stream import send_request
from app.bench.http.wire import stamps
from app.bench.http.wire.stamps import SO_TIMESTAMPNS as _SO_TIMESTAMPNS
from app.bench.http.wire.stamps import arrival_ns as _arrival_ns

MS = 1_000_000
HANG_S = 20.0  # hang guards only: every wait below ends on a condition long before


def _chunk(obj: dict | str) -> bytes:
    data = (obj if isinstance(obj, str) else json.dumps(obj)).encode()
    event = b"data: " + data + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(event), event)


def _token(piece: str) -> dict:
    return {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}


_END = (
    _chunk({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    + _chunk({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}})
    + _chunk("[DONE]")
    + b"0\r\n\r\n"
)


def _until_acknowledged(conn: socket.socket) -> None:
    """Wait until the peer's kernel acknowledged every byte written on ``conn`` (Linux:
    TIOCOUTQ on a TCP socket counts the bytes sent and not yet acknowledged)."""
    import fcntl
    import termios

    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        unacked = struct.unpack("i", fcntl.ioctl(conn, termios.TIOCOUTQ, b"\0\0\0\0"))[0]
        if unacked == 0:
            return
        select.select([], [], [], 0.0005)  # a poll of the condition above, not a pacing
    raise AssertionError("the client never acknowledged the second token")


class TwoStreams:
    """Answers two streaming requests: each gets its first token at once; the second tokens
    of both are written only when ``go`` is set, and the end only when ``finish`` is."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.finish = threading.Event()
        self.sent = threading.Semaphore(0)  # one release per second token written
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self._threads: list[threading.Thread] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        for _ in range(2):
            conn, _ = self._sock.accept()
            thread = threading.Thread(target=self._answer, args=(conn,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _answer(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(
                next(
                    x for x in head.split(b"\r\n") if x.lower().startswith(b"content-length")
                ).split(b":")[1]
            )
            while len(body) < length:
                body += conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n" + _chunk(_token("a"))
            )
            self.go.wait(HANG_S)
            conn.sendall(_chunk(_token("b")))
            # Written is not yet received: on a busy machine the kernel may hand a loopback
            # packet to the other socket later (softirq work deferred). The client's kernel
            # has it once it acknowledged every byte (nothing left unacked in our queue).
            _until_acknowledged(conn)
            self.sent.release()
            self.finish.wait(HANG_S)
            conn.sendall(_END)

    def close(self) -> None:
        self.go.set()
        self.finish.set()
        self._sock.close()


@pytest.fixture
def two_streams() -> Iterator[TwoStreams]:
    server = TwoStreams()
    yield server
    server.close()


@pytest.mark.parametrize("use_uvloop", [True, False], ids=["uvloop", "asyncio"])
def test_a_chunk_is_stamped_when_it_arrived_not_when_its_reader_ran(two_streams, use_uvloop):
    """Both second tokens arrive while the loop is busy; the reader that runs first then works
    for 20 ms (as parsing 64 chunks in turn would). The other reader's stamp must still be the
    arrival: before that work began, not after it."""
    import asyncio

    server = two_streams
    resolved = resolve_endpoint(f"http://127.0.0.1:{server.port}", None, "chat", model="m")
    firsts: list[str] = []
    seconds: list[tuple[str, int, int]] = []  # (request, work began, work ended)

    def hold_the_loop_until_both_second_tokens_are_written() -> None:
        server.go.set()
        for _ in range(2):
            assert server.sent.acquire(timeout=HANG_S)

    def on_chunk(rec: RequestRecord, _t: int) -> None:
        if len(rec.chunk_ns) == 1:
            firsts.append(rec.request_id)
            if len(firsts) == 2:
                asyncio.get_running_loop().call_soon(
                    hold_the_loop_until_both_second_tokens_are_written
                )
        elif len(rec.chunk_ns) == 2:
            began = time.perf_counter_ns()
            if not seconds:  # the first reader's work: a condition on the clock, not a sleep
                while time.perf_counter_ns() - began < 20 * MS:
                    pass
            seconds.append((rec.request_id, began, time.perf_counter_ns()))
            if len(seconds) == 2:
                server.finish.set()

    async def main() -> list[RequestRecord]:
        async with make_client(2, timeout_s=HANG_S) as client:
            return await asyncio.gather(
                *(
                    send_request(
                        client, resolved, RequestSpec("hi", 3, 2, request_id=rid), on_chunk=on_chunk
                    )
                    for rid in ("r1", "r2")
                )
            )

    records = {rec.request_id: rec for rec in run(main(), use_uvloop=use_uvloop)}
    assert all(rec.ok for rec in records.values()), [r.error for r in records.values()]
    (_, first_began, first_ended), (later, later_began, _) = seconds
    assert first_ended - first_began >= 20 * MS
    # The later reader ran after the first one's 20 ms of work ...
    assert later_began >= first_ended
    # ... but its chunk is stamped when the loop received it, before that work began.
    assert records[later].chunk_ns[1] <= first_began
    # Every stamp is a reading of the same clock, in order.
    for rec in records.values():
        assert rec.send_ns <= rec.chunk_ns[0] <= rec.chunk_ns[1] <= rec.end_ns


@contextlib.contextmanager
def _kernel_stamping_on() -> Iterator[None]:
    """Linux turns receive stamping on a moment after the first socket asks (deferred work):
    a probe connection that asks, held open, and a byte sent until one comes back stamped."""
    with (
        socket.create_server(("127.0.0.1", 0)) as listener,
        socket.create_connection(listener.getsockname()) as probe,
    ):
        peer, _ = listener.accept()
        with peer:
            probe.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
            deadline = time.monotonic() + HANG_S
            while time.monotonic() < deadline:
                peer.sendall(b"x")
                _data, anc, _, _ = probe.recvmsg(16, socket.CMSG_SPACE(16))
                if anc:
                    break
            else:
                pytest.fail("the kernel never stamped a read")
            yield


@pytest.mark.skipif(sys.platform != "linux", reason="kernel receive stamps are Linux's")
def test_on_linux_the_kernel_stamps_a_chunk_that_came_while_the_loop_was_busy(two_streams):
    """The loop run() picks on Linux reads with the kernel's receive stamp: a chunk that lay
    in the socket while the loop was held is stamped when it came, before the loop could
    have looked at it (a stamp taken in data_received would be after ``seen``)."""
    import asyncio

    server = two_streams
    resolved = resolve_endpoint(f"http://127.0.0.1:{server.port}", None, "chat", model="m")
    seen: list[int] = []

    def hold_the_loop_until_the_second_token_lies_in_the_socket() -> None:
        loop = asyncio.get_running_loop()
        fds = [
            key.fd
            for key in loop._selector.get_map().values()  # type: ignore[attr-defined]
            if key.fd != loop._ssock.fileno()  # type: ignore[attr-defined]
        ]
        server.go.set()
        assert server.sent.acquire(timeout=HANG_S)
        readable, _, _ = select.select(fds, [], [], HANG_S)
        assert readable
        seen.append(time.perf_counter_ns())

    def on_chunk(rec: RequestRecord, _t: int) -> None:
        if len(rec.chunk_ns) == 1:
            asyncio.get_running_loop().call_soon(
                hold_the_loop_until_the_second_token_lies_in_the_socket
            )
        elif len(rec.chunk_ns) == 2:
            server.finish.set()

    async def main() -> RequestRecord:
        async with make_client(1, timeout_s=HANG_S) as client:
            return await send_request(
                client, resolved, RequestSpec("hi", 3, 2, request_id="r1"), on_chunk=on_chunk
            )

    with _kernel_stamping_on():
        rec = run(main())
    assert rec.ok, rec.error
    assert rec.stamping == "kernel", rec.stamping_why
    assert len(rec.chunk_ns) >= 2 and len(seen) == 1
    assert rec.send_ns <= rec.chunk_ns[0] <= rec.chunk_ns[1] <= seen[0]


@pytest.mark.skipif(sys.platform != "linux", reason="kernel receive stamps are Linux's")
def test_a_kernel_stamp_from_a_wall_clock_step_is_not_used():
    """The kernel stamps on the wall clock; a stamp 'from the future' or hours old means the
    clock was set in between, and the loop's own reading is used instead (None)."""
    now = time.clock_gettime_ns(time.CLOCK_REALTIME)

    def anc(ns: int) -> list[tuple[int, int, bytes]]:
        sec, nsec = divmod(ns, 1_000_000_000)
        return [(socket.SOL_SOCKET, _SO_TIMESTAMPNS, struct.pack("@ll", sec, nsec))]

    before = time.perf_counter_ns()
    stamp = _arrival_ns(anc(now - 2_000_000))  # 2 ms old
    assert stamp is not None and stamp <= time.perf_counter_ns() - 2_000_000
    assert stamp >= before - 2_000_000 - 50 * MS  # the same clock as perf_counter_ns
    assert _arrival_ns(anc(now + 3_600 * 1_000_000_000)) is None
    assert _arrival_ns(anc(now - 3_600 * 1_000_000_000)) is None
    assert _arrival_ns([]) is None


def test_a_kernel_stamp_is_converted_with_clock_readings_no_preemption_split(monkeypatch):
    """The wall clock and perf_counter_ns are read together to turn a kernel stamp into
    perf time; a thread descheduled between two readings would shift the stamp by the pause.
    Injected clocks: the first bracket is split by a 300 us pause, the second is tight; the
    tight one converts the stamp."""
    from app.bench.http.wire import stamps as module

    # perf runs 4 s ahead of the wall clock; the pause falls between the first two readings
    wall = iter([1_000_000_000, 1_000_300_001, 1_000_400_000, 1_000_400_002])
    perf = iter([5_000_300_000, 5_000_400_001])
    monkeypatch.setattr(module, "_gettime", lambda _clock: next(wall))
    monkeypatch.setattr(module, "_perf", lambda: next(perf))
    sec, nsec = divmod(1_000_400_001 - 2_000_000, 1_000_000_000)  # 2 ms before the tight pair
    payload = struct.pack("@ll", sec, nsec)
    stamp = _arrival_ns([(socket.SOL_SOCKET, _SO_TIMESTAMPNS, payload)])
    assert stamp == 5_000_400_001 - 2_000_000


@pytest.mark.skipif(sys.platform != "linux", reason="kernel receive stamps are Linux's")
def test_the_kernels_stamping_is_on_before_the_first_connection_and_stays_on():
    """Linux turns packet stamping on from a work queue when the first socket asks: the
    transport's first connection waits until a datagram comes back stamped, and a socket of
    its own keeps stamping on, so every later socket's first packet is stamped too."""
    assert asyncio.run(stamps.ready())
    assert asyncio.run(stamps.ready())  # once per process: the second answer is immediate
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        assert stamps.enable(sock)
        sock.sendto(b"x", sock.getsockname())
        _data, ancdata, _flags, _addr = sock.recvmsg(1, stamps.CMSG_SPACE)
    assert _arrival_ns(ancdata) is not None
