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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.bench.metrics.options import GOODPUT_METRICS, parse_goodput

if TYPE_CHECKING:  # results read this module's verdicts: no import at run time
    from app.bench.results.point_result import PointResult

SLO_METRICS = ("ttft", "tpot", "itl", "e2el")
PER_REQUEST = ("ttft", "tpot", "e2el")  # ITL is pooled over gaps, not one value per request
DEFAULT_GOOD_SHARE = 0.99
MAX_FAILED_SHARE = 0.01
_STAT = re.compile(r"^(mean|median|p(\d+(?:\.\d+)?))$")


@dataclass(frozen=True)
class SLO:
    """One limit: `stat` of `metric` at most `limit_ms`. stat is 'mean', 'median' or 'p99'."""

    metric: str
    stat: str
    limit_ms: float

    @property
    def label(self) -> str:
        return f"{self.metric}:{self.stat}:{self.limit_ms:g}"

    @property
    def quantile(self) -> float | None:
        """The percentile (0..100) the statistic is, None for the mean."""
        if self.stat == "mean":
            return None
        if self.stat == "median":
            return 50.0
        return float(self.stat[1:])

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "stat": self.stat, "limit_ms": self.limit_ms}


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "limits": [s.to_dict() for s in self.limits],
            "per_request_ms": self.per_request,
            "good_share": self.good_share if self.per_request else None,
        }

    @classmethod
    def from_dict(cls, data: Any) -> SLOSet:
        if not isinstance(data, dict):
            return cls()
        limits = []
        for item in data.get("limits") or []:
            try:
                limits.append(SLO(str(item["metric"]), str(item["stat"]), float(item["limit_ms"])))
            except (KeyError, TypeError, ValueError):
                continue
        per = data.get("per_request_ms")
        share = data.get("good_share")
        return cls(
            tuple(limits),
            {str(k): float(v) for k, v in per.items()} if isinstance(per, dict) else None,
            float(share) if isinstance(share, int | float) else DEFAULT_GOOD_SHARE,
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


def stat_value(stats: dict[str, Any], slo: SLO) -> float | None:
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
    checks: tuple[dict[str, Any], ...]

    @property
    def failed_labels(self) -> list[str]:
        return [c["slo"] for c in self.checks if not c["passed"]]

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "checks": list(self.checks), "failed": self.failed_labels}


def evaluate(
    slos: SLOSet,
    stats: dict[str, dict[str, Any]],
    *,
    completed: int,
    failed: int,
    good_requests: int | None = None,
) -> Verdict:
    """Judge one point from its statistics (metric -> {'p99': ms, ...}) and counts.

    A statistic that is missing (no request produced it) fails its SLO: nothing was shown
    to meet it. `good_requests` is the count meeting every per-request limit.
    """
    checks: list[dict[str, Any]] = []
    total = completed + failed
    for slo in slos.limits:
        value = stat_value(stats.get(slo.metric) or {}, slo) if completed else None
        ok = value is not None and value <= slo.limit_ms
        checks.append(
            {
                "slo": slo.label,
                "kind": "stat",
                "value_ms": value,
                "limit_ms": slo.limit_ms,
                "passed": ok,
            }
        )
    if slos.per_request:
        share = (good_requests or 0) / total if total else 0.0
        label = "goodput:" + ",".join(f"{k}<={v:g}" for k, v in slos.per_request.items())
        checks.append(
            {
                "slo": label,
                "kind": "good_share",
                "value": share,
                "limit": slos.good_share,
                "passed": total > 0 and share >= slos.good_share,
            }
        )
    failed_share = failed / total if total else 1.0
    checks.append(
        {
            "slo": "failed_requests",
            "kind": "failed_share",
            "value": failed_share,
            "limit": MAX_FAILED_SHARE,
            "passed": total > 0 and failed_share <= MAX_FAILED_SHARE,
        }
    )
    return Verdict(all(c["passed"] for c in checks), tuple(checks))


def slo_block(
    slos: SLOSet,
    stats: dict[str, dict[str, Any]],
    *,
    completed: int,
    failed: int,
    goodput: float | None,
    duration_s: float,
) -> dict[str, Any]:
    """tpotbench.slo of a point file: the SLOs, the verdict per SLO, goodput (req/s, counted
    with `goodput_limits`) and how many requests met every per-request limit."""
    good = round(goodput * duration_s) if goodput is not None and duration_s > 0 else None
    verdict = evaluate(slos, stats, completed=completed, failed=failed, good_requests=good)
    return {
        **slos.to_dict(),
        **verdict.to_dict(),
        "goodput_limits_ms": slos.goodput_limits() or None,
        "request_goodput": goodput,
        "good_requests": good,
    }


def point_verdict(point: PointResult, slos: SLOSet | None = None) -> Verdict | None:
    """The verdict of a PointResult: computed afresh from its statistics when `slos` is given
    (works for vLLM's own files too), else the one its file recorded (None without one)."""
    recorded = point.blocks.slo
    if slos is None:
        if recorded is None or recorded.passed is None:
            return None
        # The checks as the file holds them: Verdict's checks are its JSON entries.
        return Verdict(recorded.passed, tuple((point.tpotbench or {})["slo"].get("checks") or ()))
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
    recorded = point.blocks.slo
    if recorded is None:
        return SLOSet()
    return SLOSet(
        tuple(SLO(s.metric, s.stat, s.limit_ms) for s in recorded.limits),
        recorded.per_request_ms,
        DEFAULT_GOOD_SHARE if recorded.good_share is None else recorded.good_share,
    )
