"""Receive stamps: when the bytes of a read arrived, on the perf_counter_ns clock.

``kernel``: Linux stamps each packet as the network stack receives it (SO_TIMESTAMPNS) and
hands the stamp over with ``recvmsg``. One rule for a read that covers several packets: the
read carries the stamp of the NEWEST packet in it, and so does every SSE event it completes.
That is the kernel's rule and cannot be bettered from user space: TCP merges packets that wait
unread in the receive queue into one buffer carrying the newest packet's stamp (measured:
three 100-byte writes 5 ms apart, read 30 ms later with three 100-byte ``recvmsg`` calls, all
three come back stamped with the third write's time). Reading smaller pieces therefore buys
nothing, and a stream whose reader was descheduled for longer than its inter-token gap sees
those tokens stamped together, late; shorter stalls (the usual case) leave one packet per
read and cost nothing.

``loop``: no kernel stamp (another OS, the kernel refused the option, a proxy the CONNECT tunnel
cannot use, https:// or socks, leaves the request to httpx's transport): the clock is read when
the event loop hands the read over. Through an http:// proxy's tunnel the reads are the
transport's own, stamped as on a direct connection (proxy.py).

``tls-record``: TLS; asyncio's SSL transport decrypts, the clock is read as each decrypted
record is handed over (a TLS record read later than it arrived is stamped late).
"""

from __future__ import annotations

import asyncio
import socket
import struct
import sys
import time
from typing import Final

KERNEL: Final = "kernel"
LOOP: Final = "loop"
TLS_RECORD: Final = "tls-record"

# Why each kind was used, in the words a point file and the report show.
WHY: Final = {
    KERNEL: "plain HTTP on Linux: each read carries the kernel's receive stamp (SO_TIMESTAMPNS)"
    ", the newest packet's for a read of several",
    LOOP: "no kernel stamp here: the clock is read when the event loop hands each read over",
    TLS_RECORD: "TLS: the clock is read when asyncio's SSL transport hands over each decrypted "
    "record",
}

# Linux names; Python 3.11's socket module lacks SO_TIMESTAMPNS (35 on every Linux arch)
SO_TIMESTAMPNS: Final = int(getattr(socket, "SO_TIMESTAMPNS", 35))
_TIMESPEC = struct.Struct("@ll")
AVAILABLE: Final = sys.platform == "linux"
CMSG_SPACE: Final = socket.CMSG_SPACE(_TIMESPEC.size) if AVAILABLE else 0
# a stamp older than this is a clock step, not a packet: the loop's own reading is used
_MAX_AGE_NS = 60 * 1_000_000_000
_SOL_SOCKET = socket.SOL_SOCKET
_unpack = _TIMESPEC.unpack_from
_perf = time.perf_counter_ns
_realtime = time.CLOCK_REALTIME
_gettime = time.clock_gettime_ns


# A socket that keeps the kernel's receive stamping switched on for the life of the process.
_keeper: socket.socket | None = None
# How long ready() waits for the switch: the kernel flips it on a work queue, a few ms on a
# busy machine.
_READY_TRIES = 200
_READY_PAUSE_S = 0.001


async def ready() -> bool:
    """Switch the kernel's receive stamping on for good, and wait until it is on.

    Linux stamps packets only while some socket on the machine asks for stamps, and when the
    first one asks it turns stamping on later, from a work queue (net_enable_timestamp): the
    first packets of a connection opened while no other socket asked carry no stamp, and its
    reads fall back to the loop's clock. Measured here: the first request of a process, and
    any after every stamped socket had closed, came back loop-stamped now and then on a busy
    machine. So one socket of our own keeps asking for as long as the process runs, and the
    first connection waits (at most ~0.2 s, once) until a datagram to itself comes back
    stamped. False where stamps are not available or never came."""
    global _keeper
    if not AVAILABLE:
        return False
    if _keeper is not None:
        return True
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.bind(("127.0.0.1", 0))
        probe.setblocking(False)
        probe.setsockopt(_SOL_SOCKET, SO_TIMESTAMPNS, 1)
    except OSError:
        probe.close()
        return False
    _keeper = probe
    address = probe.getsockname()
    for _ in range(_READY_TRIES):
        try:
            probe.sendto(b"s", address)
            _data, ancdata, _flags, _addr = probe.recvmsg(1, CMSG_SPACE)
        except (BlockingIOError, InterruptedError):
            ancdata = []
        except OSError:
            return False
        if arrival_ns(ancdata) is not None:
            return True
        await asyncio.sleep(_READY_PAUSE_S)
    return False


def enable(sock: socket.socket) -> bool:
    """Ask the kernel to stamp the reads of ``sock``; False where it cannot."""
    if not AVAILABLE:
        return False
    try:
        sock.setsockopt(_SOL_SOCKET, SO_TIMESTAMPNS, 1)
    except OSError:
        return False
    return True


def arrival_ns(ancdata: list[tuple[int, int, bytes]]) -> int | None:
    """The kernel's receive stamp of a read, on the perf_counter_ns clock, or None."""
    for level, kind, payload in ancdata:
        if kind == SO_TIMESTAMPNS and level == _SOL_SOCKET and len(payload) >= 16:
            sec, nsec = _unpack(payload)
            # The kernel stamps on the wall clock; only the packet's age is taken from it (a
            # few milliseconds, so a wall-clock step can only matter if it falls inside them).
            wall, perf = _clocks_now()
            age: int = wall - (sec * 1_000_000_000 + nsec)
            if 0 <= age < _MAX_AGE_NS:
                return perf - age
    return None


# Two clock readings farther apart than this were split by a preemption: read again.
_PAIR_SPREAD_NS = 20_000
_PAIR_TRIES = 4


def _clocks_now() -> tuple[int, int]:
    """The wall clock and perf_counter_ns read at one moment. The thread can be descheduled
    between two readings (on a busy machine, by tens to hundreds of microseconds), which
    would move every converted stamp that much later (seen: a stamp 91 us past a moment the
    packet had already arrived before). So perf is read between two wall readings and the
    tightest of a few such brackets is kept, the wall time taken at its middle."""
    best_spread, best = -1, (0, 0)
    for _ in range(_PAIR_TRIES):
        before = _gettime(_realtime)
        perf = _perf()
        after = _gettime(_realtime)
        spread = after - before
        if best_spread < 0 or spread < best_spread:
            best_spread, best = spread, ((before + after) // 2, perf)
        if spread <= _PAIR_SPREAD_NS:
            break
    return best
