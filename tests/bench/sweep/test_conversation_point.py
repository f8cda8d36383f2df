"""A conversation point and a trace replay report through the typed observer calls, like a
plain point: one RequestDone per turn or trace request, and the JSON-lines writer's stream of
them decodes back to the same objects (against the simulator)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

from app.bench.datasets.conversations import Conversation, Turn
from app.bench.datasets.prompts import SampleRequest
from app.bench.http.endpoint import resolve_endpoint
from app.bench.load.schedule import trace_plan
from app.bench.schema.point_blocks import TraceBlock
from app.bench.schema.point_doc import PointDoc
from app.bench.sweep.contract import (
    Event,
    PointFinished,
    PointStarted,
    RequestDone,
    RunFinished,
    RunStarted,
)
from app.bench.sweep.conversation_point import ConversationLoad
from app.bench.sweep.event_decode import decode
from app.bench.sweep.events import EventWriter
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.run_context import RunContext
from app.bench.sweep.runner import run_sweep


class Recorder(SweepObserver):
    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)

    def of(self, cls: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]


def _config(base_url: str, tmp_path: Path, **extra: Any) -> RunContext:
    samples = [SampleRequest(f"trace request {i}", 4, 3, str(i)) for i in range(3)]
    return RunContext(
        resolved=resolve_endpoint(base_url, "/v1/chat/completions", "openai-chat"),
        model="qwen2.5-7b",
        backend="openai-chat",
        samples=samples,
        rates=[float("inf")],
        concurrencies=[2],
        result_dir=tmp_path,
        label="typed",
        **extra,
    )


def _run(config: RunContext) -> tuple[Recorder, list[Event]]:
    recorder, stream = Recorder(), io.StringIO()
    writer = EventWriter(stream)
    asyncio.run(asyncio.wait_for(run_sweep(config, [recorder, writer]), timeout=120))
    return recorder, [decode(line) for line in stream.getvalue().splitlines()]


def _check_typed(recorder: Recorder, decoded: list[Event], requests: int) -> list[RequestDone]:
    done: list[RequestDone] = recorder.of(RequestDone)
    assert len(done) == requests and all(r.ok and r.point == 0 for r in done)
    assert all(r.ttft_ms is not None and r.ttft_ms > 0 for r in done)  # ms, not seconds
    [started] = recorder.of(RunStarted)
    assert started.num_prompts == requests
    assert [e.point for e in recorder.of(PointStarted)] == [0]
    [finished] = recorder.of(PointFinished)
    assert isinstance(finished.summary, PointDoc) and finished.summary.vllm.completed == requests
    assert isinstance(recorder.events[-1], RunFinished)
    # The stream carries the same events, in the same order, rounded as the file format is.
    kinds = [e.kind for e in recorder.events if e.kind not in ("progress", "tokens")]
    assert [e.kind for e in decoded if e.kind not in ("progress", "tokens")] == kinds
    wire = [e for e in decoded if isinstance(e, RequestDone)]
    assert [(w.ok, w.output_tokens) for w in wire] == [(r.ok, r.output_tokens) for r in done]
    return done


def test_a_conversation_point_reports_each_turn_as_a_typed_request(sim, tmp_path: Path) -> None:
    turns = (Turn("What is TPOT?", 4, 3), Turn("And TTFT?", 3, 3))
    sessions = [Conversation(f"s{i}", turns) for i in range(2)]
    config = _config(sim.base_url, tmp_path, conversations=ConversationLoad(sessions))
    recorder, decoded = _run(config)
    _check_typed(recorder, decoded, requests=4)


def test_a_trace_replay_reports_each_request_as_a_typed_request(sim, tmp_path: Path) -> None:
    plan = trace_plan([0.0, 40.0, 80.0], speedup=4.0)
    config = _config(sim.base_url, tmp_path, arrival_plan=plan, trace=TraceBlock(speedup=4.0))
    recorder, decoded = _run(config)
    done = _check_typed(recorder, decoded, requests=3)
    assert all(r.prompt_tokens is not None for r in done)
