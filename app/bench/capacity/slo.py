"""Service-level objectives: limits on a point's latency statistics, and the verdict per point.

Two spellings. `--slo ttft:p99:2000 tpot:p99:50` limits a statistic of the point (a percentile
`pNN`, `median` or `mean`, in milliseconds) of TTFT, TPOT, ITL or E2EL; a point passes an SLO
when that statistic is at or below the limit. `--goodput ttft:2000 tpot:50` is vLLM's meaning:
each *request* must meet every limit, and goodput is the good requests per second; a point
then passes when at least `good_share` (default 99 %) of its requests were good. Either way
the point also fails when more than `MAX_FAILED_SHARE` of its requests failed outright, since
vLLM's statistics leave failed requests out and a point that drops requests must not look fast.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.bench.metrics.options import GOODPUT_METRICS, parse_goodput
from app.bench.schema.point_blocks import (
    ShareCheck,
    SloBlock,
    SloCheck,
    SloLimit,
    SloTargets,
    StatCheck,
)

if TYPE_CHECKING:  # results read this module's verdicts: no import at run time
    from app.bench.results.point_result import PointResult

SLO_METRICS = ("ttft", "tpot", "itl", "e2el")
PER_REQUEST = ("ttft", "tpot", "e2el")  # ITL is pooled over gaps, not one value per request
DEFAULT_GOOD_SHARE = 0.99
MAX_FAILED_SHARE = 0.01
_STAT = re.compile(r"^(mean|median|p(\d+(?:\.\d+)?))$")


# One limit: `stat` of `metric` at most `limit_ms` (stat 'mean', 'median' or 'p99'); declared
# once, as the point file and search.json hold it.
SLO = SloLimit


@dataclass(frozen=True)
class SLOSet:
    """What a run is held to: statistic limits, per-request (goodput) limits, or both."""

    limits: tuple[SLO, ...] = ()
    per_request: dict[str, float] | None = None
    good_share: float = DEFAULT_GOOD_SHARE

    def __bool__(self) -> bool:
        return bool(self.limits or self.per_request)

    def goodput_limits(self) -> dict[str, float]:
        """The per-request limits goodput is counted with: vLLM's --goodput when given, else
        the statistic limits on per-request metrics (the tightest per metric)."""
        if self.per_request:
            return dict(self.per_request)
        out: dict[str, float] = {}
        for slo in self.limits:
            if slo.metric in GOODPUT_METRICS:
                out[slo.metric] = min(out.get(slo.metric, math.inf), slo.limit_ms)
        return out

    def targets(self) -> SloTargets:
        """As a point file and search.json record them (the share only with per-request
        limits)."""
        return SloTargets(
            self.limits, self.per_request, self.good_share if self.per_request else None
        )

    @classmethod
    def of(cls, targets: SloTargets | None) -> SLOSet:
        """The SLOs a file recorded (empty for None)."""
        if targets is None:
            return cls()
        share = targets.good_share
        return cls(
            tuple(targets.limits),
            targets.per_request_ms,
            DEFAULT_GOOD_SHARE if share is None else share,
        )


def parse_slo(text: str) -> SLO:
    """'tpot:p99:50' -> SLO('tpot', 'p99', 50.0); ValueError with a one-line hint."""
    parts = text.strip().split(":")
    hint = "use METRIC:STAT:MS, e.g. tpot:p99:50 or ttft:mean:500"
    if len(parts) != 3:
        raise ValueError(f"--slo: {text!r} is not METRIC:STAT:MS; {hint}")
    metric, stat, value = (p.strip().lower() for p in parts)
    if metric not in SLO_METRICS:
        raise ValueError(f"--slo: unknown metric {metric!r}; choose from {', '.join(SLO_METRICS)}")
    match = _STAT.match(stat)
    if not match or (match.group(2) is not None and not 0 < float(match.group(2)) <= 100):
        raise ValueError(f"--slo: {stat!r} is not a statistic; use mean, median or pNN (p99)")
    try:
        limit = float(value)
    except ValueError:
        raise ValueError(f"--slo: {value!r} is not a number of milliseconds; {hint}") from None
    if not limit > 0 or math.isinf(limit):
        raise ValueError(f"--slo: the limit of {metric}:{stat} must be a positive number of ms")
    if match.group(2) is not None:
        number = float(match.group(2))
        stat = "p" + (str(int(number)) if number == int(number) else str(number))
    return SLO(metric, stat, limit)


def parse_slos(
    slo_items: Sequence[str] | None,
    goodput_items: Sequence[str] | None = None,
    good_share: float = DEFAULT_GOOD_SHARE,
) -> SLOSet:
    """--slo and --goodput flags -> an SLOSet (empty when neither is given)."""
    limits = tuple(parse_slo(item) for item in slo_items or [])
    seen: set[tuple[str, str]] = set()
    for slo in limits:
        if (slo.metric, slo.stat) in seen:
            raise ValueError(f"--slo: {slo.metric}:{slo.stat} is given twice")
        seen.add((slo.metric, slo.stat))
    per_request = parse_goodput(goodput_items) if goodput_items else None
    if not 0 < good_share <= 1:
        raise ValueError("--good-share must be in (0, 1], e.g. 0.99")
    return SLOSet(limits, per_request or None, good_share)


def stat_value(stats: Mapping[str, float | None], slo: SLO) -> float | None:
    """The statistic an SLO reads from a {'mean':..,'median':..,'p99':..} dict (ms)."""
    value = stats.get(slo.stat)
    if value is None and slo.stat == "p50":
        value = stats.get("median")
    if value is None and slo.stat == "median":
        value = stats.get("p50")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Verdict:
    """How one point did: pass/fail per check (`checks` in order) and overall."""

    passed: bool
    checks: tuple[SloCheck, ...]

    @property
    def failed_labels(self) -> list[str]:
        return [c.slo for c in self.checks if not c.passed]


def evaluate(
    slos: SLOSet,
    stats: Mapping[str, Mapping[str, float | None]],
    *,
    completed: int,
    failed: int,
    good_requests: int | None = None,
) -> Verdict:
    """Judge one point from its statistics (metric -> {'p99': ms, ...}) and counts.

    A statistic that is missing (no request produced it) fails its SLO: nothing was shown
    to meet it. `good_requests` is the count meeting every per-request limit.
    """
    checks: list[SloCheck] = []
    total = completed + failed
    for slo in slos.limits:
        value = stat_value(stats.get(slo.metric) or {}, slo) if completed else None
        ok = value is not None and value <= slo.limit_ms
        checks.append(StatCheck(slo.label, "stat", value, slo.limit_ms, ok))
    if slos.per_request:
        share = (good_requests or 0) / total if total else 0.0
        label = "goodput:" + ",".join(f"{k}<={v:g}" for k, v in slos.per_request.items())
        ok = total > 0 and share >= slos.good_share
        checks.append(ShareCheck(label, "good_share", share, slos.good_share, ok))
    failed_share = failed / total if total else 1.0
    ok = total > 0 and failed_share <= MAX_FAILED_SHARE
    checks.append(ShareCheck("failed_requests", "failed_share", failed_share, MAX_FAILED_SHARE, ok))
    return Verdict(all(c.passed for c in checks), tuple(checks))


def slo_block(
    slos: SLOSet,
    stats: Mapping[str, Mapping[str, float | None]],
    *,
    completed: int,
    failed: int,
    goodput: float | None,
    duration_s: float,
) -> SloBlock:
    """tpotbench.slo of a point file: the SLOs, the verdict per SLO, goodput (req/s, counted
    with `goodput_limits`) and how many requests met every per-request limit."""
    good = round(goodput * duration_s) if goodput is not None and duration_s > 0 else None
    verdict = evaluate(slos, stats, completed=completed, failed=failed, good_requests=good)
    targets = slos.targets()
    return SloBlock(
        limits=targets.limits,
        per_request_ms=targets.per_request_ms,
        good_share=targets.good_share,
        passed=verdict.passed,
        checks=verdict.checks,
        failed=tuple(verdict.failed_labels),
        goodput_limits_ms=slos.goodput_limits() or None,
        request_goodput=goodput,
        good_requests=good,
    )


def point_verdict(point: PointResult, slos: SLOSet | None = None) -> Verdict | None:
    """The verdict of a PointResult: computed afresh from its statistics when `slos` is given
    (works for vLLM's own files too), else the one its file recorded (None without one)."""
    recorded = point.blocks.slo
    if slos is None:
        if recorded is None or recorded.passed is None:
            return None
        return Verdict(recorded.passed, recorded.checks)
    good = recorded.good_requests if recorded is not None else None
    if good is None and point.request_goodput is not None and slos.per_request:
        good = round(point.request_goodput * point.duration_s)
    return evaluate(
        slos,
        point.stats,
        completed=point.completed,
        failed=point.failed or 0,
        good_requests=good,
    )


def recorded_slos(point: PointResult) -> SLOSet:
    """The SLOs a point file was held to (empty for files written without any)."""
    return SLOSet.of(point.blocks.slo)
