"""Capacity search: the highest load (concurrency or request rate) that meets every SLO.

Growth then bisection. The load starts at `start` and is multiplied by `growth` until a value
fails (or `maximum` passes); the boundary then lies between the highest pass and the lowest
fail, and bisection halves that interval until it is no wider than `resolution`. Failing
points stop early once their failure is proven (app.bench.sweep.early_stop), so the points above the
boundary cost little. The search assumes that a higher load never does better; it checks that
by measuring one growth step above the first failure (cheap: it fails early) and reports any
pass above a fail instead of hiding it.

With `runs` > 1 every value is measured that many times; per SLO the mean, its 95 % interval
and the coefficient of variation are kept, and a value passes only if the interval's upper end
meets the limit, fails if the mean misses it, and is `marginal` otherwise (counted as a fail:
capacity is what can be promised). A run that stopped early is a proven fail and ends the value.

The driver only knows a `measure(value, run, num_requests)` coroutine: the real one runs a
sweep point (app.bench.capacity.search_run), tests use the virtual-time replay engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.bench.capacity.repeats import Repeated
from app.bench.schema.point_blocks import SloCheck
from app.bench.schema.point_doc import PointDoc
from app.bench.schema.search_doc import OVER as OVER
from app.bench.schema.search_doc import (
    SearchBoundary,
    SearchFigure,
    SearchPoint,
    SearchRun,
    Violation,
)
from app.bench.schema.search_doc import SearchSettings as SearchSettings


@dataclass
class RunMeasurement:
    """One run of one load value, as the measure function reports it."""

    value: float
    run: int
    passed: bool
    checks: Sequence[SloCheck]
    measuring_s: float
    num_requests: int
    early_stop: str | None = None
    path: str | None = None
    result: PointDoc | None = field(default=None, repr=False)

    def figures(self) -> dict[str, float]:
        """check label -> measured figure (ms for statistics, a share for the others)."""
        out = {}
        for check in self.checks:
            value = check.measured
            if value is not None:
                out[check.slo] = float(value)
        return out


@dataclass
class ValueOutcome:
    """A load value over its runs: the decision and, per check, the repeated figure."""

    value: float
    runs: list[RunMeasurement]
    decision: str  # 'pass' | 'fail' | 'marginal'
    failed: list[str]
    figures: dict[str, Repeated]
    phase: str  # 'grow' | 'bisect' | 'check'

    @property
    def passed(self) -> bool:
        return self.decision == "pass"

    def entry(self) -> SearchPoint:
        """Its entry of search.json (and of the search_value event)."""
        return SearchPoint(
            value=self.value,
            phase=self.phase,
            decision=self.decision,
            failed=tuple(self.failed),
            figures={
                k: SearchFigure(v.n, v.mean, (v.low, v.high), v.cv) for k, v in self.figures.items()
            },
            runs=tuple(
                SearchRun(
                    run=r.run,
                    passed=r.passed,
                    num_requests=r.num_requests,
                    measuring_s=round(r.measuring_s, 3),
                    early_stop=r.early_stop,
                    path=r.path,
                    checks=tuple(r.checks),
                )
                for r in self.runs
            ),
        )


def decide(runs: list[RunMeasurement]) -> tuple[str, list[str], dict[str, Repeated]]:
    """Pass / fail / marginal for one value from its runs, with the failing checks."""
    figures: dict[str, Repeated] = {}
    limits: dict[str, tuple[float, bool]] = {}  # label -> (limit, higher is better)
    for run in runs:
        for check in run.checks:
            if check.bound is not None:
                limits[check.slo] = (float(check.bound), check.kind == "good_share")
    for label in limits:
        values = [r.figures()[label] for r in runs if label in r.figures()]
        if values:
            figures[label] = Repeated.of(values)
    if any(r.early_stop for r in runs):
        failed = sorted({label for r in runs if not r.passed for label in _failed(r)})
        return "fail", failed, figures
    if len(runs) == 1:
        return ("pass" if runs[0].passed else "fail"), _failed(runs[0]), figures
    decision, failed = "pass", []
    for label, (limit, higher_better) in limits.items():
        rep = figures.get(label)
        if rep is None:  # never measured (nothing finished): not shown to meet it
            decision = "fail"
            failed.append(label)
            continue
        mean_bad = rep.mean < limit if higher_better else rep.mean > limit
        edge_bad = rep.low < limit if higher_better else rep.high > limit
        if mean_bad:
            decision = "fail"
            failed.append(label)
        elif edge_bad:
            decision = "marginal" if decision == "pass" else decision
            failed.append(label)
    return decision, failed, figures


def _failed(run: RunMeasurement) -> list[str]:
    return [c.slo for c in run.checks if not c.passed]


@dataclass
class SearchOutcome:
    settings: SearchSettings
    values: list[ValueOutcome] = field(default_factory=list)
    highest_pass: float | None = None
    lowest_fail: float | None = None
    stop_reason: str = ""
    cancelled: bool = False
    # Growth stopped at the most streams the prompts can fill (None: it did not).
    fill_limited: float | None = None

    @property
    def measuring_s(self) -> float:
        return sum(r.measuring_s for v in self.values for r in v.runs)

    def at(self, value: float | None) -> ValueOutcome | None:
        found = [v for v in self.values if value is not None and v.value == value]
        return found[-1] if found else None

    @property
    def violations(self) -> list[Violation]:
        """Passes measured above a fail: the monotonic assumption broken (noise or a server
        that recovers); each as the lower failing value and the higher passing one."""
        out = []
        for bad in self.values:
            for good in self.values:
                if not bad.passed and good.passed and good.value > bad.value:
                    out.append(Violation(bad.value, good.value))
        return out

    def boundary(self) -> SearchBoundary:
        fail = self.at(self.lowest_fail)
        return SearchBoundary(
            highest_pass=self.highest_pass,
            lowest_fail=self.lowest_fail,
            interval=(self.highest_pass, self.lowest_fail),
            failed_slos=tuple(fail.failed) if fail else (),
        )


def no_success(outcome: SearchOutcome) -> bool:
    """Not one request succeeded at any load measured (a wrong key, URL or model...)."""
    results = [r.result for v in outcome.values for r in v.runs if r.result is not None]
    return bool(results) and not any(r.vllm.completed for r in results)


def _first_fails(settings: SearchSettings, out: SearchOutcome) -> str:
    """Why the search ended at its first load, with advice only where it can apply."""
    value = out.lowest_fail
    if no_success(out):
        return f"no request succeeded at {value:g}; see the failures above"
    fail = out.at(value)
    failed = ", ".join(fail.failed) if fail and fail.failed else "an SLO"
    if settings.over == "concurrency" and value is not None and value <= 1:
        return (
            f"even 1 stream fails {failed}: no concurrency meets these SLOs on this server "
            "(relax the SLOs, or shorten the prompts or replies)"
        )
    return f"the lowest load ({value:g}) already fails {failed}; lower --start"


Measure = Callable[[float, int, int], Awaitable[RunMeasurement]]
OnValue = Callable[[ValueOutcome, "SearchOutcome"], Any]


class _Cancelled(Exception):
    """The user cancelled: the search ends with what it has."""


class _Search:
    """One search's state: the memo of measured loads, the cancel and the outcome, shared by
    growth, bisection and the check above."""

    def __init__(
        self,
        settings: SearchSettings,
        measure: Measure,
        cancel: asyncio.Event,
        on_value: OnValue | None,
    ) -> None:
        self.settings, self.measure, self.cancel, self.on_value = (
            settings,
            measure,
            cancel,
            on_value,
        )
        self.out = SearchOutcome(settings)
        self.measured: dict[float, ValueOutcome] = {}

    async def visit(self, value: float, phase: str) -> ValueOutcome:
        """Measure `value` (once: later visits get the memo); _Cancelled if the user stopped."""
        settings, out = self.settings, self.out
        value = settings.norm(value)
        if value in self.measured:
            return self.measured[value]
        runs: list[RunMeasurement] = []
        for run in range(1, settings.runs + 1):
            if self.cancel.is_set():
                raise _Cancelled
            result = await self.measure(value, run, settings.requests_for(value))
            if self.cancel.is_set():  # a point cut short by the user is no verdict
                raise _Cancelled
            runs.append(result)
            if result.early_stop:
                break  # a proven fail: more runs cannot make it pass
        decision, failed, figures = decide(runs)
        outcome = ValueOutcome(value, runs, decision, failed, figures, phase)
        self.measured[value] = outcome
        out.values.append(outcome)
        if outcome.passed:
            out.highest_pass = max(out.highest_pass or value, value)
        else:
            out.lowest_fail = min(out.lowest_fail or value, value)
        if self.on_value is not None:
            self.on_value(outcome, out)
        return outcome

    async def grow(self) -> bool:
        """Multiply the load until a value fails (True) or --max passes (False, stop_reason)."""
        settings = self.settings
        value = settings.norm(settings.start)
        cap = settings.fill_limit()
        while True:
            got = await self.visit(value, "grow")
            if not got.passed:
                return True
            if value >= settings.maximum:
                self.out.stop_reason = f"every load up to --max {value:g} met the SLOs"
                return False
            if cap is not None and value >= cap:
                # A higher load would be measured with fewer requests than streams: a pass
                # there is a pass at a load the server never saw.
                self.out.fill_limited = cap
                self.out.stop_reason = (
                    f"every load up to {value:g} met the SLOs; --num-prompts "
                    f"{settings.num_prompts} cannot fill more streams, so no higher load was "
                    "measured (raise --num-prompts to search higher)"
                )
                return False
            value = min(settings.maximum, settings.norm(max(value * settings.growth, value + 1e-6)))
            if settings.over == "concurrency":
                value = max(value, got.value + 1)
            if cap is not None:
                value = min(value, cap)

    async def bisect(self) -> None:
        """Halve the gap between the highest pass and the lowest fail down to the width."""
        settings, out = self.settings, self.out
        while out.lowest_fail is not None and out.highest_pass is not None:
            low, high = out.highest_pass, out.lowest_fail
            if high - low <= settings.width(low) or (
                settings.over == "concurrency" and high - low <= 1
            ):
                return
            mid = settings.norm((low + high) / 2)
            if mid in (low, high):
                return
            await self.visit(mid, "bisect")

    async def check_above(self) -> None:
        """Measure one growth step above the lowest fail: a pass there breaks monotonicity."""
        settings, lowest_fail = self.settings, self.out.lowest_fail
        if lowest_fail is None:
            return
        above = settings.norm(min(settings.maximum, lowest_fail * settings.growth))
        cap = settings.fill_limit()
        if cap is not None:
            above = min(above, cap)  # never a load the prompts cannot fill
        if above > lowest_fail and above not in self.measured:
            await self.visit(above, "check")


async def search(
    settings: SearchSettings,
    measure: Measure,
    *,
    cancel: asyncio.Event | None = None,
    on_value: OnValue | None = None,
) -> SearchOutcome:
    """Run the search; `on_value` is called after every load value (to save search.json)."""
    settings.validate()
    run = _Search(settings, measure, cancel or asyncio.Event(), on_value)
    out = run.out
    try:
        if not await run.grow():
            return out
        if out.highest_pass is None:
            out.stop_reason = _first_fails(settings, out)
            return out
        await run.bisect()
        if settings.check_above:
            await run.check_above()
    except _Cancelled:
        out.cancelled, out.stop_reason = True, "cancelled"
        return out
    out.stop_reason = out.stop_reason or "converged"
    if out.violations:
        # The boundary stays the highest pass below the lowest fail; the pass above is reported.
        lowest_fail = out.lowest_fail
        passes_below = [v.value for v in out.values if v.passed and v.value < (lowest_fail or 0)]
        out.highest_pass = max(passes_below) if passes_below else None
        out.stop_reason = "converged; not monotonic: a load above a failing one passed"
    return out
