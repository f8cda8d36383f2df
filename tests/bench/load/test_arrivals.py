"""Arrival schedules (vLLM's gamma process) and the runner's slots, waits and cancellation."""

from __future__ import annotations

import asyncio
import math
import statistics
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from app.bench.http.record import RequestRecord
from app.bench.load.arrivals import arrival_offsets, run_load, run_warmups
from tests.virtual_time import VirtualTimeLoop, virtual_ns

T = TypeVar("T")


def test_seeded_poisson_schedule_is_reproducible_and_ends_at_n_over_rate() -> None:
    offsets = arrival_offsets(5, 4.0, 1.0, seed=0)
    # numpy's legacy generator seeded with 0, rescaled so request 5 leaves at 5 / 4 = 1.25 s
    assert offsets == pytest.approx(
        [0.2306466500154486, 0.594618884530151, 0.8621715245662005, 1.090304611890903, 1.25],
        abs=1e-12,
    )
    assert offsets[-1] == 1.25
    assert arrival_offsets(5, 4.0, 1.0, seed=0) == offsets
    assert arrival_offsets(5, 4.0, 1.0, seed=1) != offsets


def test_inf_rate_and_inf_burstiness() -> None:
    assert arrival_offsets(3, math.inf) == [0.0, 0.0, 0.0]
    assert arrival_offsets(4, 2.0, math.inf) == pytest.approx([0.5, 1.0, 1.5, 2.0])
    assert arrival_offsets(0, 2.0) == []
    with pytest.raises(ValueError, match="burstiness must be positive"):
        arrival_offsets(3, 1.0, 0.0)


@pytest.mark.parametrize(("burstiness", "cv"), [(0.25, 2.0), (1.0, 1.0), (4.0, 0.5)])
def test_burstiness_sets_the_spread_of_gaps(burstiness: float, cv: float) -> None:
    # gamma(shape k) gaps have coefficient of variation 1 / sqrt(k)
    offsets = arrival_offsets(4000, 10.0, burstiness, seed=7)
    gaps = [b - a for a, b in zip([0.0, *offsets], offsets, strict=False)]
    assert statistics.mean(gaps) == pytest.approx(0.1, rel=1e-9)
    assert statistics.pstdev(gaps) / statistics.mean(gaps) == pytest.approx(cv, rel=0.1)


def in_virtual_time(scenario: Coroutine[Any, Any, T]) -> T:
    """Runs the runner's sleeps and deadlines on a virtual clock: exact, whatever the load."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(scenario)


def fake_sender(duration_s: float, log: list[str]):
    """Stands in for send_request: takes `duration_s`, stamps like the real one."""

    async def send(spec: str) -> RequestRecord:
        record = RequestRecord(request_id=spec, send_ns=virtual_ns())
        log.append(spec)
        await asyncio.sleep(duration_s)
        record.end_ns = virtual_ns()
        record.chunk_ns = [record.end_ns]
        record.ok = True
        record.output_tokens = 3
        return record

    return send


def test_concurrency_limit_records_slot_wait() -> None:
    log: list[str] = []
    outcome = in_virtual_time(
        run_load(fake_sender(0.1, log), ["a", "b", "c", "d"], max_concurrency=2, clock=virtual_ns)
    )
    waits = [r.slot_wait_ns / 1e6 for r in outcome.records]
    # two go at once; the other two wait for a slot exactly one request long (100 ms)
    assert waits == pytest.approx([0, 0, 100, 100], abs=1e-3)
    assert [r.request_id for r in outcome.records] == ["a", "b", "c", "d"]
    assert outcome.duration_s == pytest.approx(0.2, abs=1e-6)
    assert not outcome.cancelled and outcome.not_sent == 0


def test_cancel_stops_new_sends_and_keeps_finished() -> None:
    async def scenario():
        cancel = asyncio.Event()
        log: list[str] = []
        asyncio.get_running_loop().call_later(0.05, cancel.set)
        outcome = await run_load(
            fake_sender(0.15, log),
            list("abcdef"),
            max_concurrency=2,
            cancel=cancel,
            grace_s=1.0,
            clock=virtual_ns,
        )
        return outcome, log

    outcome, log = in_virtual_time(scenario())
    assert log == ["a", "b"]  # nothing new after the cancel
    assert [r.request_id for r in outcome.records] == ["a", "b"]  # finished within the grace
    assert outcome.cancelled and outcome.not_sent == 4 and outcome.aborted == 0


def test_grace_period_then_abort() -> None:
    # Requests that never answer: the runner must abort them after the grace period rather
    # than wait for them. If it waited, wait_for would end the test (a hang guard: virtual
    # time jumps to it at once).
    async def scenario():
        cancel = asyncio.Event()
        log: list[str] = []
        cancelled: list[str] = []
        never = asyncio.Event()

        async def silent(spec: str) -> RequestRecord:
            log.append(spec)
            try:
                await never.wait()
            except asyncio.CancelledError:
                cancelled.append(spec)
                raise
            raise AssertionError("a silent request answered")

        asyncio.get_running_loop().call_later(0.05, cancel.set)
        outcome = await asyncio.wait_for(
            run_load(
                silent,
                ["a", "b", "c"],
                max_concurrency=2,
                cancel=cancel,
                grace_s=0.1,
                clock=virtual_ns,
            ),
            timeout=60,
        )
        return outcome, log, cancelled, asyncio.get_running_loop().time()

    outcome, log, cancelled, ended = in_virtual_time(scenario())
    assert outcome.records == [] and outcome.aborted == 2 and outcome.not_sent == 1
    assert log == ["a", "b"] and sorted(cancelled) == ["a", "b"]  # both aborted, c never sent
    assert ended == pytest.approx(0.05 + 0.1)  # the cancel, then exactly the grace period


def test_cancel_during_the_arrival_schedule() -> None:
    async def scenario():
        cancel = asyncio.Event()
        log: list[str] = []
        asyncio.get_running_loop().call_later(0.15, cancel.set)
        # rate 10/s evenly: a at 0.1 s, b at 0.2 s, ... so only a is released before 0.15 s
        outcome = await run_load(
            fake_sender(0.01, log),
            list("abcde"),
            request_rate=10.0,
            burstiness=math.inf,
            cancel=cancel,
            clock=virtual_ns,
        )
        return outcome, log

    outcome, log = in_virtual_time(scenario())
    assert log == ["a"] and outcome.not_sent == 4


def test_warmups_run_the_first_request_and_are_returned_not_counted() -> None:
    log: list[str] = []
    records = in_virtual_time(run_warmups(fake_sender(0.01, log), "first", 3, max_concurrency=1))
    assert log == ["first"] * 3 and len(records) == 3


def test_a_cancel_after_every_request_finished_leaves_a_complete_point() -> None:
    """Esc pressed while a point's last request had already finished (the point was being
    written) once saved it as 'partial (64 of 64)'."""

    async def scenario():
        cancel = asyncio.Event()
        specs = list("abcd")

        def on_record(_index: int, _record: object) -> None:
            if len(finished) == len(specs) - 1:
                cancel.set()  # the cancel lands as the last request is counted
            finished.append(_index)

        finished: list[int] = []
        return await run_load(
            fake_sender(0.1, []),
            specs,
            max_concurrency=2,
            cancel=cancel,
            on_record=on_record,
            clock=virtual_ns,
        )

    outcome = in_virtual_time(scenario())
    assert len(outcome.records) == 4 and outcome.aborted == 0 and outcome.not_sent == 0
    assert not outcome.cancelled
