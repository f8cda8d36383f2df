"""Stepping the stream count up and deciding the client's ceiling from each step's error, with
the measurement injected (pure: tests give it numbers, the self-test gives it real runs)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from app.bench.schema.codec import SchemaError, wire


@dataclass(frozen=True)
class Limits:
    """How much error the client may add and still count as faithful."""

    # Median of (client TTFT - server TTFT): on a shared machine one preempted request among a
    # handful would move a mean by milliseconds and say nothing about the client.
    ttft_excess_ms: float = 1.0
    gap_error_p99_ms: float = 0.5  # p99 of |client gap - server gap| between chunks


def _finite_or_null(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _null_as_nan(value: object) -> float:
    if value is None:
        return math.nan
    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)):
        return value  # a whole number stays an int: written again, it reads the same
    raise SchemaError(f"must be a number or null, got {value!r:.60}")


# A step with no tokens has no figures: NaN in memory, null in strict JSON (the saved file, the
# --json and --jsonl lines), NaN again once read back.
NAN_AS_NULL = wire(transform=_finite_or_null, read=_null_as_nan)


@dataclass(frozen=True)
class StepResult:
    """One step: `streams` concurrent streams against the local server, and the client's error
    measured against the server's own log of when it wrote each chunk."""

    streams: int
    requests: int
    failed: int
    tokens: int
    ttft_excess_ms: float = field(metadata=NAN_AS_NULL)  # median over the step's requests
    gap_error_p99_ms: float = field(metadata=NAN_AS_NULL)
    # the client's CPU (all its processes) per 1,000 tokens
    cpu_ms_per_1k: float = field(metadata=NAN_AS_NULL)
    wall_s: float = field(metadata=NAN_AS_NULL)

    def broken(self, limits: Limits) -> list[str]:
        """The limits this step broke, in words ([] when it kept them all)."""
        out = []
        if self.failed:
            out.append(f"{self.failed} of {self.requests} requests failed")
        if not self.ttft_excess_ms <= limits.ttft_excess_ms:  # NaN breaks it too
            out.append(
                f"TTFT excess p50 {self.ttft_excess_ms:.2f} ms > {limits.ttft_excess_ms:g} ms"
            )
        if not self.gap_error_p99_ms <= limits.gap_error_p99_ms:
            out.append(
                f"gap error p99 {self.gap_error_p99_ms:.2f} ms > {limits.gap_error_p99_ms:g} ms"
            )
        return out


@dataclass
class Ceiling:
    """The decision: the most streams that kept the limits, and why the stepping stopped.

    stopped: 'limit' (the next step broke a limit), 'max' (every step up to the largest asked
    kept them: the ceiling is at least that), 'time' (the time budget ran out first).
    """

    streams: int  # 0: not even the first step kept the limits
    cpu_ms_per_1k: float | None  # at the ceiling's step
    stopped: str
    limits: Limits
    steps: list[StepResult] = field(default_factory=list)
    why: str = ""  # the limits the first failing step broke

    @property
    def at_least(self) -> bool:
        """True when the true ceiling may be higher (no step failed)."""
        return self.stopped != "limit"

    def document(self) -> CeilingDoc:
        """The decision as `tpotbench selftest --json` prints it and the saved file keeps it."""
        return CeilingDoc(
            self.streams,
            self.at_least,
            self.cpu_ms_per_1k,
            self.stopped,
            self.why,
            self.limits,
            list(self.steps),
        )


@dataclass(frozen=True)
class CeilingDoc:
    """A ceiling on the wire: its figures, its limits and every step measured."""

    streams: int
    at_least: bool
    cpu_ms_per_1k: float | None
    stopped: str
    why: str
    limits: Limits
    steps: list[StepResult]


def stream_steps(max_streams: int, start: int = 1) -> list[int]:
    """1, 2, 4, ... doubling up to `max_streams` (included even when not a power of two)."""
    if max_streams < 1 or start < 1:
        raise ValueError("stream counts must be at least 1")
    steps, n = [], start
    while n < max_streams:
        steps.append(n)
        n *= 2
    steps.append(max_streams)
    return steps


def find_ceiling(
    measure: Callable[[int], StepResult],
    steps: list[int],
    limits: Limits,
    time_left_s: Callable[[], float],
    on_step: Callable[[StepResult, list[str]], None] | None = None,
) -> Ceiling:
    """Measure each step in order until one breaks a limit twice running (a shared machine
    can stall any one step: the step is measured again before it counts), the steps run out,
    or the next step would not finish in the time left (a step of twice the streams is taken
    to last about twice as long as the last one)."""
    done: list[StepResult] = []
    best: StepResult | None = None
    stopped, why = "max", ""
    for streams in steps:
        broken: list[str] = []
        for _attempt in range(2):
            if done and time_left_s() < 2 * done[-1].wall_s:
                stopped = "time"
                break
            result = measure(streams)
            done.append(result)
            broken = result.broken(limits)
            if on_step is not None:
                on_step(result, broken)
            if not broken:
                break
        if stopped == "time":
            break
        if broken:
            stopped, why = "limit", "; ".join(broken)
            break
        best = result
    cpu = best.cpu_ms_per_1k if best is not None and math.isfinite(best.cpu_ms_per_1k) else None
    return Ceiling(best.streams if best else 0, cpu, stopped, limits, done, why)
