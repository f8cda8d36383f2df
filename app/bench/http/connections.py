"""Which connection a request went out on, on httpx's own transport.

A kept-alive connection can be closed by the server at any moment (keep-alive limits, idle
timeouts): a request written into it as the server closes it fails before any byte of a
response. Such a request is safe to send again, once, on a new connection. TPOT Bench's own
transport says so in its error (wire/errors.ConnectionLost.retryable); httpx's reports new
connections through its trace extension, recorded here. The current request's ``Attempt``
travels in a context variable, so nothing is added per streamed chunk.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Attempt:
    """One send of a request: whether it went out on a reused connection (None: unknown), and
    whether it must use a new one."""

    reused: bool | None = None
    force_fresh: bool = False

    async def httpx_trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook: a TCP connect means a new connection."""
        if event == "connection.connect_tcp.started":
            self.reused = False


ATTEMPT: ContextVar[Attempt | None] = ContextVar("tpotbench_attempt", default=None)
