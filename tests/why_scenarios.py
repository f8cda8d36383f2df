"""Servers whose limiting cause is fixed by construction, for the why's tests and
benchmarks/why_scenarios.py.

Most are the simulator (a child process: its own CPU, so the client's CPU figures are the
client's alone) configured so one cause dominates: two scheduler slots (a queue), a KV pool
too small for the batch (preemptions), tiny prompts (decode at the bandwidth floor), long
prompts beside running decodes (prefill stalls) or alone (prefill). The saturated client is
the simulator with a thread in the client's process holding the interpreter lock. The last,
`UnexplainedServer`, is an idle, fast engine behind a front door that holds every third
response for 400 ms: its /metrics, like vLLM's, see none of it, so nothing in the evidence
explains the failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from app.bench.capacity.slo import parse_slos
from app.bench.datasets.synthetic import sample_random
from app.bench.http.endpoint import resolve_endpoint
from app.bench.schema.point_doc import point_json
from app.bench.sweep.early_stop import EarlyStop
from app.bench.sweep.plan import PointSpec
from app.bench.sweep.point import run_point
from app.bench.sweep.roofline_point import check_roofline
from app.bench.sweep.run_context import RunContext
from app.sim.embedded import start_sim_process
from tests.formula_server import STREAM_HEAD, FormulaServer, chunk

MODEL = "qwen2.5-7b"


@dataclass(frozen=True)
class Scenario:
    name: str
    cause: str  # the why's key this server is built to produce
    concurrency: int
    input_len: int
    output_len: int
    requests: int
    slo: str
    sim_args: tuple[str, ...] = ()
    gpu: str = "rtx3090"
    server: str = "sim"  # 'sim' or 'unexplained'
    client_hog: bool = False
    note: str = ""

    def at(self, **changes: Any) -> Scenario:
        return replace(self, **changes)


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "slots", "queue", 16, 32, 24, 32, "ttft:p99:300", ("--max-num-seqs", "2"),
            note="2 scheduler slots, 16 streams: FIFO queue in the server",
        ),
        Scenario(
            "kv_full", "kv", 24, 256, 64, 48, "tpot:p99:25",
            ("--gpu-memory-utilization", "0.665", "--max-model-len", "1024"),
            note="~2,800 KV tokens for 24 x 320-token sequences: preemptions",
        ),
        Scenario(
            "bandwidth", "bandwidth", 8, 16, 48, 16, "tpot:p99:19",
            note="16-token prompts: pure decode steps, TPOT just above the weights' read",
        ),
        Scenario(
            "prefill_stalls", "chunked_prefill", 8, 768, 48, 16, "tpot:p99:25",
            note="768-token prompts join steps of running decodes: ITL spikes",
        ),
        Scenario(
            "prefill", "prefill", 2, 1536, 8, 12, "ttft:p99:300",
            note="1,536-token prompts, 2 streams: TTFT is the prompt's prefill",
        ),
        Scenario(
            "client", "client", 4, 16, 48, 8, "tpot:p99:10", client_hog=True,
            note="a thread in the client holds the interpreter lock in long sorts",
        ),
        Scenario(
            "unexplained", "unknown", 8, 32, 16, 32, "ttft:p99:200", server="unexplained",
            note="idle fast engine; a front door holds every 3rd response 400 ms",
        ),
    )
}  # fmt: skip


@contextmanager
def gil_hog() -> Iterator[None]:
    """Threads in the client's process that hold the interpreter lock in long C calls
    (sorting a big list does not release it): the client's loop then wakes late."""
    stop = threading.Event()
    # ~130 ms per sort on an idle core, longer on a busy one: the loop waits for the lock
    # ~65 ms at the median, well over the 20 ms the cause needs. Three threads, not one: on a
    # machine busy with other work one hog thread often waited for a core when the loop let
    # the lock go, the loop took it back on time and its median lateness fell under 20 ms
    # (the why then named the simulator's bandwidth); with three, one of them is nearly
    # always ready to take the lock.
    data = [((i * 7919) % 1_000_003) / 3.0 for i in range(600_000)]

    def hog() -> None:
        while not stop.is_set():
            sorted(data)

    threads = [threading.Thread(target=hog, daemon=True) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join()


class UnexplainedServer(FormulaServer):
    """A fast engine (TTFT 15 ms, one token every 12 ms, whatever the load) with vLLM's
    /metrics, behind a front door that holds every third response 400 ms before the engine
    sees the request. The engine's gauges and histograms stay idle: no queue, no KV pressure,
    no preemption, prefills of a few ms."""

    HOLD_S = 0.4
    TTFT_S = 0.015
    TPOT_S = 0.012

    def __init__(self) -> None:
        super().__init__(metrics=True)
        reg = self.registry = CollectorRegistry()
        labels = {"model_name": MODEL}

        def hist(name: str) -> Any:
            return Histogram(name, name, ["model_name"], registry=reg).labels(**labels)

        self.g_running = Gauge("vllm:num_requests_running", "", ["model_name"], registry=reg)
        self.g_waiting = Gauge("vllm:num_requests_waiting", "", ["model_name"], registry=reg)
        self.g_kv = Gauge("vllm:kv_cache_usage_perc", "", ["model_name"], registry=reg)
        self.c_preempt = Counter("vllm:num_preemptions", "", ["model_name"], registry=reg)
        self.c_preempt.labels(**labels)
        self.h_queue = hist("vllm:request_queue_time_seconds")
        self.h_prefill = hist("vllm:request_prefill_time_seconds")
        self.h_ttft = hist("vllm:time_to_first_token_seconds")
        self.h_e2e = hist("vllm:e2e_request_latency_seconds")
        self.count = 0

    async def _handle(
        self,
        method: str,
        path: str,
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        if method == "GET" and path == "/metrics":
            running = self.in_flight
            self.g_running.labels(model_name=MODEL).set(running)
            self.g_waiting.labels(model_name=MODEL).set(0)
            self.g_kv.labels(model_name=MODEL).set(0.02 * running)
            text = generate_latest(self.registry)
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                + f"Content-Length: {len(text)}\r\n\r\n".encode()
                + text
            )
            await writer.drain()
        elif method == "POST" and path.endswith("/completions"):
            await self._engine(json.loads(body or b"{}"), path, reader, writer)
        else:
            await super()._handle(method, path, body, reader, writer)

    async def _engine(
        self,
        request: dict[str, Any],
        path: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        self.count += 1
        if self.count % 3 == 0:
            await asyncio.sleep(self.HOLD_S)  # the front door, not the engine
        self.in_flight += 1
        start = time.monotonic()
        self.h_queue.observe(0.0)
        tokens = int(request.get("max_tokens") or 16)
        prompt = request.get("prompt") or ""
        prompt_tokens = max(1, len(str(prompt).split()))
        chat = path.endswith("/chat/completions")
        writer.write(STREAM_HEAD)

        try:
            for k in range(tokens):
                due = start + self.TTFT_S + k * self.TPOT_S
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                if reader.at_eof():
                    return
                if k == 0:
                    self.h_prefill.observe(time.monotonic() - start)
                    self.h_ttft.observe(time.monotonic() - start)
                finish = "length" if k == tokens - 1 else None
                choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
                if chat:
                    choice["delta"] = {"content": f" t{k}"}
                else:
                    choice["text"] = f" t{k}"
                writer.write(chunk({"choices": [choice]}))
                await writer.drain()
            self.h_e2e.observe(time.monotonic() - start)
            usage = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": tokens,
                "total_tokens": prompt_tokens + tokens,
            }
            writer.write(chunk({"choices": [], "usage": usage}) + chunk("[DONE]") + b"0\r\n\r\n")
            await writer.drain()
        finally:
            self.in_flight -= 1


@contextmanager
def serve(scenario: Scenario) -> Iterator[str]:
    """The scenario's server, running; yields its base URL."""
    if scenario.server == "unexplained":
        server = UnexplainedServer().start()
        try:
            yield server.base_url
        finally:
            server.stop()
        return
    args = ["--gpu", scenario.gpu, *scenario.sim_args]
    with start_sim_process(args) as sim:
        yield sim.base_url


def measure(
    scenario: Scenario,
    tmp_path: Path,
    *,
    metrics: bool = True,
    gpu: bool = True,
    early_stop: bool = False,
) -> dict[str, Any]:
    """One point of the scenario against its server; the point's result document."""
    slos = parse_slos([scenario.slo])
    samples = sample_random(
        scenario.requests, input_len=scenario.input_len, output_len=scenario.output_len
    )
    context = scenario.input_len + scenario.output_len // 2
    roofline = {"gpu_id": scenario.gpu, "model_id": MODEL, "fmt": "bf16", "kv_dtype": "bf16"}
    with serve(scenario) as url:
        config = RunContext(
            resolved=resolve_endpoint(url, "/v1/completions", "completions", None),
            model=MODEL,
            backend="openai",
            samples=samples,
            rates=[float("inf")],
            concurrencies=[scenario.concurrency],
            result_dir=tmp_path,
            ignore_eos=True,
            server_metrics=metrics,
            roofline=check_roofline({**roofline, "context": context}) if gpu else None,
            slos=slos,
        )
        point = PointSpec(0, float("inf"), scenario.concurrency)
        stop = EarlyStop(slos, scenario.requests) if early_stop else None
        with gil_hog() if scenario.client_hog else contextlib.nullcontext():
            _, doc = asyncio.run(run_point(config, point, [], asyncio.Event(), early_stop=stop))
    return point_json(doc)  # as its file holds it
