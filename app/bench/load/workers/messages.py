"""What a load worker is given and what it reports back (pickled over a pipe or by Ray)."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.bench.http.client import Transport
from app.bench.http.endpoint import ResolvedEndpoint
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.load.workers.plan import WorkerShare


@dataclass
class WorkerJob:
    """Everything one worker needs to run its share of a point. The key travels in memory
    (a pipe to a child process, or Ray's object transfer), never in argv, env or a file."""

    share: WorkerShare
    specs: list[RequestSpec]  # one per share index, same order
    resolved: ResolvedEndpoint
    api_key: str | None = field(default=None, repr=False)
    extra_headers: dict[str, str] | None = field(default=None, repr=False)
    verify_tls: bool = True
    transport: Transport = "native"
    tokenizer_path: str | None = None
    grace_s: float = 5.0
    cpu: int | None = None  # pin the worker to this core where the OS allows
    tick_s: float = 0.1
    timeout_s: float | None = 600.0  # longest silence (RunContext.timeout_s)
    request_timeout_s: float | None = 1800.0  # whole request (RunContext.request_timeout_s)

    @property
    def worker(self) -> int:
        return self.share.worker


@dataclass
class WorkerReady:
    worker: int


@dataclass
class WorkerRecord:
    worker: int
    index: int  # the request's index in the whole point
    record: RequestRecord


@dataclass
class WorkerTick:
    """Token chunks seen since the last tick (arrival clock ns, gap to the previous chunk of
    the same request in ms) and the worker's live counters."""

    worker: int
    chunk_ns: list[int]
    itl_ms: list[float]
    sent: int
    in_flight: int


@dataclass
class WorkerFinished:
    worker: int
    cancelled: bool
    aborted: int
    not_sent: int
    cpu_s: float
    max_rss_kib: int = 0  # the worker process's peak resident memory (0 where not known)


@dataclass
class WorkerLost:
    """The worker ended without finishing (process died, actor lost, or an error in it)."""

    worker: int
    reason: str


WorkerMessage = WorkerReady | WorkerRecord | WorkerTick | WorkerFinished | WorkerLost
