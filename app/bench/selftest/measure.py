"""One self-test step for real: N streams of the benchmark's own client (in this process, or
split over load worker processes as `--workers` does) against the local chunk server, and the
client's error against the server's log of when it wrote each chunk."""

from __future__ import annotations

import asyncio
import math
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from app.bench.http.client import make_client, run
from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.http.stream import send_request
from app.bench.selftest.decide import StepResult
from app.bench.selftest.truth import RequestTruth, read_truth
from app.paths import cli_command

SERVER_START_TIMEOUT_S = 20.0


@contextmanager
def local_server(itl_ms: float, tokens: int) -> Iterator[str]:
    """The chunk server as a child process on 127.0.0.1 (its CPU is not the client's), with no
    time to first token and a fixed gap; yields its base URL and stops it after."""
    cmd = [*cli_command(), "selftest", "--serve", f"{itl_ms:g}", str(tokens)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "READY <port>", or "" if it died
        if not line.startswith("READY"):
            raise RuntimeError("the self-test's local server did not start")
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def _pct(values: Sequence[float], q: float) -> float:
    """numpy's percentile (linear interpolation, as every figure of a point); NaN for none."""
    return float(np.percentile(values, q)) if len(values) else math.nan


def evaluate(
    streams: int,
    records: Sequence[RequestRecord],
    truth: Mapping[str, RequestTruth],
    cpu_s: float,
    wall_s: float,
) -> StepResult:
    """The step's figures: TTFT excess = client TTFT - server TTFT (request received to first
    write), its median; gap error = |client gap - server gap| over every pair of successive
    chunks, its p99."""
    excess: list[float] = []
    gaps: list[float] = []
    failed = tokens = 0
    for r in records:
        t = truth.get(r.request_id)
        if not r.ok or t is None:
            failed += 1
            continue
        client, server = r.chunk_ns, t.write_ns
        n = min(len(client), len(server))
        tokens += len(server)
        if n < 1:
            continue
        excess.append(((client[0] - r.send_ns) - (server[0] - t.recv_ns)) / 1e6)
        gaps += [
            abs((client[i] - client[i - 1]) - (server[i] - server[i - 1])) / 1e6
            for i in range(1, n)
        ]
    return StepResult(
        streams=streams,
        requests=len(records),
        failed=failed,
        tokens=tokens,
        ttft_excess_ms=_pct(excess, 50),
        gap_error_p99_ms=_pct(gaps, 99),
        cpu_ms_per_1k=cpu_s * 1e3 / (tokens / 1e3) if tokens else math.nan,
        wall_s=wall_s,
    )


def _truth(url: str) -> dict[str, RequestTruth]:
    """The server's write times per request id (it forgets them once read)."""
    with urllib.request.urlopen(f"{url}/truth", timeout=30) as reply:
        return read_truth(reply.read())


def _specs(tag: str, total: int, tokens: int) -> list[RequestSpec]:
    return [RequestSpec("hi", 1, tokens, request_id=f"{tag}-{i}") for i in range(total)]


def _in_process(url: str, streams: int, specs: list[RequestSpec]) -> tuple[list[Any], float]:
    resolved = resolve_endpoint(url, None, "chat", model="bench")

    async def main() -> tuple[list[RequestRecord], float]:
        async with make_client(streams) as client:
            # A first request: lazy imports and connection set-up are not per-token costs.
            await send_request(client, resolved, RequestSpec("hi", 1, 2, request_id="warm"))
            sem = asyncio.Semaphore(streams)

            async def one(spec: RequestSpec) -> RequestRecord:
                async with sem:
                    return await send_request(client, resolved, spec)

            cpu0 = time.process_time()
            records = await asyncio.gather(*(one(s) for s in specs))
            return list(records), time.process_time() - cpu0

    return run(main())


def _with_workers(
    url: str, streams: int, specs: list[RequestSpec], workers: int
) -> tuple[list[Any], float]:
    from app.bench.load.arrivals import LoadState, arrival_offsets
    from app.bench.load.workers.driver import run_workers
    from app.bench.load.workers.local import LocalPool
    from app.bench.load.workers.messages import WorkerJob
    from app.bench.load.workers.plan import split_load

    resolved = resolve_endpoint(url, None, "chat", model="bench")
    shares = split_load(arrival_offsets(len(specs), math.inf), streams, workers)
    jobs = [
        WorkerJob(share=s, specs=[specs[i] for i in s.indices], resolved=resolved, cpu=s.worker)
        for s in shares
    ]

    async def main() -> Any:
        return await run_workers(LocalPool(), jobs, cancel=asyncio.Event(), state=LoadState())

    cpu0 = time.process_time()
    out = run(main())
    return list(out.load.records), time.process_time() - cpu0 + sum(out.cpu_s.values())


def measure_step(
    url: str, streams: int, tokens: int, requests_per_stream: int, workers: int = 0
) -> StepResult:
    """Run `streams` streams (each `requests_per_stream` requests of `tokens` tokens) and
    measure the client's error and CPU; `workers` > 0 splits them over worker processes."""
    _truth(url)  # forget anything an earlier step left (the warm-up request)
    specs = _specs(f"s{streams}w{workers}", streams * requests_per_stream, tokens)
    wall0 = time.perf_counter()
    if workers > 0:
        records, cpu_s = _with_workers(url, streams, specs, workers)
    else:
        records, cpu_s = _in_process(url, streams, specs)
    wall_s = time.perf_counter() - wall0
    return evaluate(streams, records, _truth(url), cpu_s, wall_s)
