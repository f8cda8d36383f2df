"""The observer's thread contract (app.bench.sweep.observer.SweepObserver), checked on real runs
against the simulator: `server_metrics` arrives on the /metrics scraper's thread, every other
event on the thread that runs the measuring loop."""

from __future__ import annotations

import asyncio
import threading
import typing
from pathlib import Path
from typing import Any

from app.bench.capacity.search import SearchSettings
from app.bench.capacity.search_run import run_search
from app.bench.capacity.slo import parse_slos
from app.bench.datasets.prompts import SampleRequest
from app.bench.http.endpoint import resolve_endpoint
from app.bench.sweep.contract import EVENT_CLASSES, Event
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.run_context import RunContext
from app.bench.sweep.runner import run_sweep


class ThreadLog(SweepObserver):
    """Records, for every observer method called, the thread it was called on."""

    def __init__(self) -> None:
        # (method, thread, the event loop running on that thread at the call, if any)
        self.calls: list[tuple[str, threading.Thread, asyncio.AbstractEventLoop | None]] = []

    def record(self, method: str, event: Event) -> None:
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        self.calls.append((method, threading.current_thread(), loop))

    def methods(self) -> set[str]:
        return {name for name, _, _ in self.calls}


def _recording(method: str) -> Any:
    def call(self: ThreadLog, event: Event) -> None:
        self.record(method, event)

    return call


# Every method of the interface, found from the event classes (one method per `kind`).
for _cls in EVENT_CLASSES:
    setattr(ThreadLog, _cls.kind, _recording(_cls.kind))


def test_the_observer_has_one_method_per_event_named_after_its_kind() -> None:
    for cls in EVENT_CLASSES:
        method = getattr(SweepObserver, cls.kind)
        assert typing.get_type_hints(method)["event"] is cls
    assert {cls.kind for cls in EVENT_CLASSES} >= SweepObserver.SCRAPER_THREAD_METHODS


def _assert_contract(log: ThreadLog, caller: threading.Thread) -> None:
    on_scraper = SweepObserver.SCRAPER_THREAD_METHODS
    scraper = {t for name, t, _ in log.calls if name in on_scraper}
    others = {(t, loop) for name, t, loop in log.calls if name not in on_scraper}
    [(thread, loop)] = others  # one thread and one loop for all of them, in order...
    assert thread is caller and loop is not None  # ... the measuring loop, on its thread
    assert scraper, "no /metrics sample arrived: the contract was not exercised"
    assert all(t is not caller and t.name == "metrics" for t in scraper)


def _config(url: str, tmp_path: Path, **overrides: Any) -> RunContext:
    values: dict[str, Any] = dict(
        resolved=resolve_endpoint(url, "/v1/chat/completions", "openai-chat"),
        model="qwen2.5-7b",
        backend="openai-chat",
        samples=[SampleRequest("hello there", 3, 8, str(i)) for i in range(4)],
        rates=[float("inf")],
        concurrencies=[1, 2],
        result_dir=tmp_path,
        label="threads",
        server_metrics=True,
    )
    values.update(overrides)
    return RunContext(**values)


def test_a_sweep_keeps_the_thread_contract(sim, tmp_path: Path) -> None:
    log = ThreadLog()
    asyncio.run(run_sweep(_config(sim.base_url, tmp_path), [log]))
    assert {"run_started", "point_started", "request", "progress", "point_finished"} <= (
        log.methods()
    )
    assert {"run_finished", "server_metrics"} <= log.methods()
    _assert_contract(log, threading.current_thread())


def test_a_search_keeps_the_thread_contract(sim, tmp_path: Path) -> None:
    log = ThreadLog()
    settings = SearchSettings(
        start=1, growth=2, maximum=2, num_prompts=4, min_prompts=4, prompts_per_unit=2
    )
    config = _config(
        sim.base_url, tmp_path, concurrencies=[None], slos=parse_slos(["tpot:p99:100000"])
    )
    asyncio.run(run_search(config, settings, [log]))
    assert {"search_value", "search_finished", "point_finished", "server_metrics"} <= (
        log.methods()
    )
    _assert_contract(log, threading.current_thread())
