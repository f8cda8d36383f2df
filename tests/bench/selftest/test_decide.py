"""Stepping the streams up and deciding the ceiling, with the measurements given as numbers."""

from __future__ import annotations

import math

import pytest

from app.bench.selftest.decide import Limits, StepResult, find_ceiling, stream_steps

LIMITS = Limits(ttft_excess_ms=1.0, gap_error_p99_ms=0.5)


def step(streams: int, ttft: float = 0.2, gap: float = 0.1, failed: int = 0) -> StepResult:
    # 10 requests of 100 tokens; the CPU figure tells the steps apart (streams x 10 ms/1k).
    return StepResult(streams, 10, failed, 1000, ttft, gap, streams * 10.0, wall_s=1.0)


def scripted(results: dict[int, list[StepResult]]):  # type: ignore[no-untyped-def]
    """A measure() that hands out each stream count's results in order, and logs the calls."""
    calls: list[int] = []

    def measure(streams: int) -> StepResult:
        calls.append(streams)
        return results[streams].pop(0)

    return measure, calls


def forever() -> float:
    return math.inf


def test_steps_double_up_to_the_largest() -> None:
    assert stream_steps(100) == [1, 2, 4, 8, 16, 32, 64, 100]
    assert stream_steps(8) == [1, 2, 4, 8]
    assert stream_steps(1) == [1]
    with pytest.raises(ValueError):
        stream_steps(0)


def test_the_ceiling_is_the_last_step_before_one_that_breaks_a_limit_twice() -> None:
    measure, calls = scripted(
        {
            1: [step(1)],
            2: [step(2)],
            4: [step(4, gap=0.4)],
            8: [step(8, gap=2.0), step(8, ttft=1.5)],  # broken, and again when repeated
        }
    )
    seen: list[tuple[int, list[str]]] = []
    ceiling = find_ceiling(
        measure, [1, 2, 4, 8, 16], LIMITS, forever, lambda r, b: seen.append((r.streams, b))
    )
    assert calls == [1, 2, 4, 8, 8]  # 16 never run
    assert (ceiling.streams, ceiling.stopped, ceiling.at_least) == (4, "limit", False)
    assert ceiling.cpu_ms_per_1k == 40.0  # the ceiling's own step
    assert ceiling.why == "TTFT excess p50 1.50 ms > 1 ms"
    assert seen[3] == (8, ["gap error p99 2.00 ms > 0.5 ms"])
    assert len(ceiling.document().steps) == 5


def test_one_stalled_step_is_measured_again_before_it_counts() -> None:
    measure, calls = scripted({1: [step(1)], 2: [step(2, gap=9.0), step(2)], 4: [step(4)]})
    ceiling = find_ceiling(measure, [1, 2, 4], LIMITS, forever)
    assert calls == [1, 2, 2, 4]
    assert (ceiling.streams, ceiling.stopped, ceiling.at_least) == (4, "max", True)


def test_failed_requests_and_nan_break_the_limits() -> None:
    assert step(1, failed=1).broken(LIMITS) == ["1 of 10 requests failed"]
    assert step(1, ttft=math.nan).broken(LIMITS) == ["TTFT excess p50 nan ms > 1 ms"]
    measure, _ = scripted({1: [step(1, failed=2), step(1, failed=2)]})
    ceiling = find_ceiling(measure, [1, 2], LIMITS, forever)
    assert (ceiling.streams, ceiling.cpu_ms_per_1k) == (0, None)  # not enough evidence
    assert "2 of 10 requests failed" in ceiling.why


def test_no_step_starts_that_would_not_fit_in_the_time_left() -> None:
    measure, calls = scripted({1: [step(1)], 2: [step(2)], 4: [step(4)]})
    left = iter([5.0, 1.5])  # before step 2: room for 2 x 1 s; before step 4: not
    ceiling = find_ceiling(measure, [1, 2, 4], LIMITS, lambda: next(left))
    assert calls == [1, 2]
    assert (ceiling.streams, ceiling.stopped, ceiling.at_least) == (2, "time", True)
