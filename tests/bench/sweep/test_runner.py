"""run_sweep in-process against a purpose-built server that plays a crafted stream."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from app.bench.capacity.slo import parse_slos
from app.bench.datasets.prompts import SampleRequest
from app.bench.http.endpoint import resolve_endpoint
from app.bench.results.read import load_result
from app.bench.schema.point_blocks import ClientBlock
from app.bench.schema.point_doc import PointDoc, read_point_doc
from app.bench.sweep.contract import Event, PointFinished, RunError, ServerMetrics, Tokens
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.plan import plan_points
from app.bench.sweep.roofline_point import check_roofline
from app.bench.sweep.run_context import RunContext
from app.bench.sweep.runner import run_sweep
from tests.documents import document

# (delay before the message in seconds, SSE payload): a role-only opening delta, then three
# content chunks that carry 5 tokens between them, a usage-only message and [DONE].
SCRIPT = [
    (0.10, {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
    (0.10, {"choices": [{"index": 0, "delta": {"content": "Hello world"}}]}),
    (0.05, {"choices": [{"index": 0, "delta": {"content": " foo bar"}}]}),
    (0.05, {"choices": [{"index": 0, "delta": {"content": " baz"}, "finish_reason": "length"}]}),
    (
        0.0,
        {"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}},
    ),
    (0.0, "[DONE]"),
]


class CraftedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # body ends when the connection closes: simplest streaming

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = json.dumps({"object": "list", "data": [{"id": "crafted", "object": "model"}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.flush()
        start = time.monotonic()
        due = 0.0
        for delay, payload in SCRIPT:
            due += delay
            time.sleep(max(0.0, start + due - time.monotonic()))
            text = payload if isinstance(payload, str) else json.dumps(payload)
            self.wfile.write(f"data: {text}\n\n".encode())
            self.wfile.flush()


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-stream (cancel tests) is expected here


@pytest.fixture
def crafted_server() -> Iterator[str]:
    server = QuietServer(("127.0.0.1", 0), CraftedHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


class Recorder(SweepObserver):
    """A SweepObserver that keeps every event (the progress bar and event writer are others)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Event]] = []

    def on_event(self, event: Event) -> None:
        self.calls.append((event.kind, event))

    def names(self) -> list[str]:
        return [name for name, _ in self.calls if name not in ("progress", "tokens")]


def config_for(base_url: str, tmp_path: Path, **overrides: Any) -> RunContext:
    samples = [SampleRequest(f"prompt {i}", 3, 5, str(i)) for i in range(2)]
    values: dict[str, Any] = dict(
        resolved=resolve_endpoint(base_url, "/v1/chat/completions", "openai-chat"),
        model="crafted",
        backend="openai-chat",
        samples=samples,
        rates=[float("inf")],
        concurrencies=[1],
        result_dir=tmp_path,
        label="crafted",
        save_detailed=True,
    )
    values.update(overrides)
    return RunContext(**values)


def test_plan_is_rate_major() -> None:
    points = plan_points([1.0, 2.0], [4, 8])
    assert [(p.index, p.request_rate, p.max_concurrency) for p in points] == [
        (0, 1.0, 4),
        (1, 1.0, 8),
        (2, 2.0, 4),
        (3, 2.0, 8),
    ]


def test_crafted_stream_gives_vllms_numbers(crafted_server: str, tmp_path: Path) -> None:
    recorder = Recorder()
    outcome = asyncio.run(run_sweep(config_for(crafted_server, tmp_path), [recorder]))
    assert outcome.paths == [tmp_path / "crafted_rateinf_conc1.json"]
    point = load_result(outcome.paths[0])
    tol = 40.0  # ms: a shared 2-core machine schedules the server thread late now and then
    assert point.completed == 2 and point.total_output_tokens == 10  # from usage, not chunks
    assert point.total_input_tokens == 22  # usage's prompt_tokens, not the dataset's 3
    # vLLM: TTFT at the role-only delta (100 ms), ITLs per message 100/50/50, E2EL 300 ms,
    # TPOT = (300 - 100) / (5 - 1) = 50 ms
    assert point.metric("ttft", "mean") == pytest.approx(100, abs=tol)
    assert point.metric("itl", "median") == pytest.approx(50, abs=tol)
    assert point.metric("itl", "p99") == pytest.approx(100, abs=tol)
    assert point.metric("e2el", "mean") == pytest.approx(300, abs=tol)
    assert point.metric("tpot", "mean") == pytest.approx(50, abs=10)
    assert len(point.doc.vllm.itls[0]) == 3  # one gap per message, however many tokens it has
    block = document(point)["tpotbench"]
    assert block["ttft_first_content_ms"]["mean"] == pytest.approx(200, abs=tol)
    assert block["tokens_per_chunk"]["mean"] == pytest.approx(5 / 3)
    # the second request waited for the only slot while the first ran (~300 ms)
    assert block["slot_wait_ms"]["p99"] == pytest.approx(300, abs=3 * tol)
    assert recorder.names() == [
        "run_started",
        "point_started",
        "request",
        "request",
        "point_finished",
        "run_finished",
    ]
    tokens = [event for _, event in recorder.calls if isinstance(event, Tokens)]
    gaps = [gap for event in tokens for gap in event.itl_ms]
    assert len(gaps) == 4 and all(gap == pytest.approx(50, abs=tol) for gap in gaps)


def test_cancel_mid_sweep_keeps_the_finished_point(crafted_server: str, tmp_path: Path) -> None:
    async def scenario():
        cancel = asyncio.Event()

        class CancelAfterFirst(Recorder):
            def point_finished(self, event: PointFinished) -> None:
                cancel.set()

        config = config_for(crafted_server, tmp_path, concurrencies=[1, 2, 3], grace_s=0.05)
        return await run_sweep(config, [CancelAfterFirst()], cancel)

    outcome = asyncio.run(scenario())
    assert outcome.cancelled
    assert [p.name for p in outcome.paths] == ["crafted_rateinf_conc1.json"]
    assert load_result(outcome.paths[0]).completed == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crafted_rateinf_conc1.json", "sweep.csv"]


def test_server_metrics_are_scraped_on_the_side(sim, tmp_path: Path) -> None:
    recorder = Recorder()
    config = config_for(
        sim.base_url,
        tmp_path,
        model="qwen2.5-7b",
        server_metrics=True,
        concurrencies=[2],
        samples=[SampleRequest("hello there", 3, 8, str(i)) for i in range(2)],
    )
    outcome = asyncio.run(run_sweep(config, [recorder]))
    block = outcome.results[0].typed_blocks.server_metrics
    assert block is not None and block.server == "vllm"
    assert block.metrics_url is not None and block.metrics_url.endswith("/metrics")
    ttft = block.phase("ttft")
    assert ttft is not None and ttft.count == 2  # histogram delta over this point only
    assert set(block.vs_client or {}) == {"ttft_ms", "itl_ms", "e2el_ms"}
    samples = [event for _, event in recorder.calls if isinstance(event, ServerMetrics)]
    assert samples and samples[0].t_s >= 0 and samples[-1].running is not None


def test_the_event_carries_the_document_the_file_holds(sim, tmp_path: Path) -> None:
    # Built typed once: the finished event's document is the one written, and it equals the
    # file read back strictly (the server's figures as rounded there, the why that read them).
    recorder = Recorder()
    config = config_for(
        sim.base_url,
        tmp_path,
        model="qwen2.5-7b",
        server_metrics=True,
        concurrencies=[2],
        samples=[SampleRequest("hello there", 3, 8, str(i)) for i in range(6)],
        roofline=check_roofline({"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16",
                                 "kv_dtype": "fp16"}),
        slos=parse_slos(["tpot:p99:0.001"]),  # fails: its why is in the document
    )  # fmt: skip
    outcome = asyncio.run(run_sweep(config, [recorder]))
    [finished] = [e for name, e in recorder.calls if name == "point_finished"]
    assert finished.summary is outcome.results[0]
    written = json.loads(outcome.paths[0].read_text(encoding="utf-8"))
    assert finished.summary == read_point_doc(written, strict=True)
    blocks = finished.summary.typed_blocks
    assert blocks.why is not None and blocks.server_metrics is not None
    assert blocks.roofline is not None and blocks.roofline.floor_tpot_ms is not None


class _SilentHandler(CraftedHandler):
    """Takes a request and never answers it: a warmup here ends only if it is abandoned."""

    arrived: Callable[[], None] = staticmethod(lambda: None)
    hold = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        type(self).arrived()
        self.hold.wait(60)


def test_cancel_during_warmups_saves_nothing(tmp_path: Path) -> None:
    # The cancel comes when the first warmup reaches the server, and warmups never answer:
    # the sweep returns only because it abandons them (wait_for is a hang guard).
    server = QuietServer(("127.0.0.1", 0), _SilentHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}"

    async def scenario():
        cancel = asyncio.Event()
        loop = asyncio.get_running_loop()
        _SilentHandler.arrived = staticmethod(lambda: loop.call_soon_threadsafe(cancel.set))
        config = config_for(base_url, tmp_path, num_warmups=2)
        return await asyncio.wait_for(run_sweep(config, [Recorder()], cancel), timeout=60)

    try:
        outcome = asyncio.run(scenario())
    finally:
        _SilentHandler.hold.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert outcome.cancelled and outcome.paths == []
    assert list(tmp_path.iterdir()) == []


def test_a_part_built_wrong_is_reported_and_the_point_kept(
    crafted_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.bench.sweep import point as point_module

    built = point_module.point_document

    def with_a_bad_part(*args: Any, **kwargs: Any) -> PointDoc:
        doc = built(*args, **kwargs)
        bad = ClientBlock(cpu_share="a lot")  # type: ignore[arg-type] - a bug of the builder's
        return replace(doc, blocks=replace(doc.typed_blocks, client=bad))

    monkeypatch.setattr(point_module, "point_document", with_a_bad_part)
    recorder = Recorder()
    outcome = asyncio.run(run_sweep(config_for(crafted_server, tmp_path), [recorder]))
    [error] = [e for name, e in recorder.calls if name == "error"]
    assert isinstance(error, RunError)
    assert error.message.startswith("point 0: left out of the point's file: tpotbench.client")
    point = load_result(outcome.paths[0])
    assert point.completed == 2 and point.blocks.client is None  # the rest of it kept
