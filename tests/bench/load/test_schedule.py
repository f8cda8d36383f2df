"""Arrival plans (a trace's own clock at a speed-up) and each send's lateness against its
plan, proven in virtual time: exact figures, whatever the machine's load."""

from __future__ import annotations

import asyncio
import math
from types import SimpleNamespace

import pytest

from app.bench.http.record import RequestRecord
from app.bench.load.arrivals import run_load
from app.bench.load.schedule import rate_plan, trace_plan
from app.bench.load.workers.point import make_jobs
from app.bench.metrics.lateness import lateness_summary
from tests.virtual_loop import VirtualTimeLoop, run_virtual

MS = 1_000_000


def test_trace_plan_starts_at_the_first_request_and_divides_by_the_speedup() -> None:
    plan = trace_plan([5000, 5000, 5100, 6250, 15000], speedup=10)
    assert plan.offsets == pytest.approx((0.0, 0.0, 0.01, 0.125, 1.0))
    assert plan.source == "trace" and plan.speedup == 10
    assert plan.span_s == pytest.approx(1.0) and plan.mean_rate == pytest.approx(4.0)
    assert trace_plan([0, 2000], 1.0).offsets == (0.0, 2.0)
    assert trace_plan([], 2.0).offsets == ()
    assert math.isinf(trace_plan([7, 7], 1.0).mean_rate)  # all due at once


@pytest.mark.parametrize("speedup", [0.0, -1.0, math.inf, math.nan])
def test_trace_plan_refuses_a_speedup_that_means_nothing(speedup: float) -> None:
    with pytest.raises(ValueError, match="speed-up"):
        trace_plan([0, 1], speedup)


def test_trace_plan_refuses_time_going_backwards() -> None:
    with pytest.raises(ValueError, match="backwards"):
        trace_plan([0, 10, 5], 1.0)


def test_rate_plan_is_vllms_arrival_process() -> None:
    plan = rate_plan(4, 2.0, math.inf)
    assert plan.offsets == pytest.approx((0.5, 1.0, 1.5, 2.0)) and plan.source == "rate"


def _sender(loop: VirtualTimeLoop, build_s: float, serve_s: float, log: list[tuple[str, int]]):
    """Takes `build_s` to build and write the request (then stamps send_ns, as the real
    client does when the bytes go out) and `serve_s` for the reply."""

    async def send(spec: str) -> RequestRecord:
        submit_ns = loop.clock_ns()
        await asyncio.sleep(build_s)
        record = RequestRecord(request_id=spec, submit_ns=submit_ns, send_ns=loop.clock_ns())
        log.append((spec, record.send_ns))
        await asyncio.sleep(serve_s)
        record.end_ns = loop.clock_ns()
        record.ok, record.output_tokens = True, 1
        return record

    return send


def _replay(plan_ms: list[float], speedup: float, **kwargs: object):
    async def scenario(loop: VirtualTimeLoop):
        log: list[tuple[str, int]] = []
        plan = trace_plan(plan_ms, speedup)
        specs = [f"r{i}" for i in range(len(plan_ms))]
        hog = kwargs.pop("hog", None)
        if hog is not None:
            at, seconds = hog  # type: ignore[misc]
            loop.call_at(loop.time() + at, loop.advance, seconds)
        outcome = await run_load(
            _sender(loop, 0.003, float(kwargs.pop("serve_s", 0.05)), log),  # type: ignore[arg-type]
            specs,
            offsets=plan.offsets,
            clock=loop.clock_ns,
            **kwargs,  # type: ignore[arg-type]
        )
        return outcome, log

    return run_virtual(scenario)


def test_replay_sends_each_request_on_its_schedule_and_records_the_lateness() -> None:
    outcome, log = _replay([1000, 1100, 1100, 1250, 2000], speedup=10)
    sent_ms = [(t - outcome.origin_ns) / MS for _, t in log]
    # due at 0, 10, 10, 25, 100 ms; each send goes out after its 3 ms of building
    assert sent_ms == pytest.approx([3, 13, 13, 28, 103], abs=1e-3)
    late = [r.schedule_lateness_ns / MS for r in outcome.records]
    assert late == pytest.approx([3.0] * 5, abs=1e-3)
    summary = lateness_summary(outcome.records)
    assert summary is not None
    assert summary.count == 5 and summary.max_ms == pytest.approx(3.0, abs=1e-3)
    assert summary.late == 0
    # handed to the HTTP client exactly on time: the 3 ms are the client's own
    assert summary.submit is not None and summary.submit.max_ms == pytest.approx(0.0, abs=1e-3)


def test_a_concurrency_cap_makes_sends_late_and_the_lateness_says_how_late() -> None:
    # One slot, 53 ms per request: each waits for the one before (AIPerf and vLLM alike
    # treat a cap as a ceiling on the schedule, not a replacement for it).
    outcome, _ = _replay([1000, 1100, 1100, 1250, 2000], speedup=10, max_concurrency=1)
    late = [r.schedule_lateness_ns / MS for r in outcome.records]
    assert late == pytest.approx([3, 46, 99, 137, 115], abs=1e-3)
    waits = [r.slot_wait_ns / MS for r in outcome.records]
    assert waits == pytest.approx(late, abs=1e-3)  # here all of it is the wait for a slot
    summary = lateness_summary(outcome.records)
    assert summary is not None and summary.late == 4 and summary.max_ms == pytest.approx(137)
    assert summary.submit is not None and summary.submit.max_ms == pytest.approx(
        134
    )  # the slot wait, before the HTTP


def test_a_late_wakeup_counts_as_lateness_though_no_slot_was_waited_for() -> None:
    # The loop is held from 5 ms to 25 ms (a busy client): the request due at 10 ms is
    # released at 25 ms. Its slot wait (release to send) is only its 3 ms of building;
    # against the schedule it is 18 ms late.
    outcome, _ = _replay([0, 10, 40], speedup=1.0, hog=(0.005, 0.020))
    late = [r.schedule_lateness_ns / MS for r in outcome.records]
    waits = [r.slot_wait_ns / MS for r in outcome.records]
    assert late == pytest.approx([3, 18, 3], abs=1e-3)
    assert waits == pytest.approx([3, 3, 3], abs=1e-3)


def test_no_schedule_no_lateness() -> None:
    assert lateness_summary([RequestRecord()]) is None


def test_load_workers_split_the_traces_schedule_not_a_rate() -> None:
    # With --workers every request keeps its due time on the trace's clock: the shares
    # together are exactly the plan, whatever rate the point's file records.
    plan = trace_plan([0, 40, 40, 90, 500, 510], speedup=2)
    config = SimpleNamespace(
        burstiness=1.0, seed=0, tokenizer=None, resolved=None, api_key=None,
        extra_headers=None, verify_tls=True, transport="native", grace_s=1.0,
        timeout_s=1.0, request_timeout_s=1.0, ray_address=None, workers=2,
    )  # fmt: skip
    jobs = make_jobs(config, plan.mean_rate, None, list("abcdef"), plan.offsets)
    due = {i: t for job in jobs for i, t in zip(job.share.indices, job.share.offsets, strict=True)}
    assert [due[i] for i in range(6)] == list(plan.offsets)
    assert len(jobs) == 2
