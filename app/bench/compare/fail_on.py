"""`--fail-on tpot:p99:+5% ttft:p99:+10% throughput:-3%`: the regressions a CI run must not
pass. A figure fails when its change is significant (the interval excludes 0) in the bad
direction and the change itself goes past the threshold."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.bench.compare.compare import Comparison, FigureChange
from app.bench.compare.figures import LATENCY_METRICS, Figure

_LATENCY = re.compile(r"^(ttft|tpot|itl|e2el):(mean|median|p50|p99):\+?(\d+(?:\.\d+)?)%$")
_RATE = re.compile(r"^(throughput|output_throughput|goodput):-?(\d+(?:\.\d+)?)%$")


class FailOnError(ValueError):
    """A --fail-on item that cannot be read; the message says what to write."""


@dataclass(frozen=True)
class Threshold:
    figure: Figure
    percent: float
    text: str


def parse_fail_on(items: list[str]) -> list[Threshold]:
    out = []
    for item in items:
        text = item.strip().lower()
        match = _LATENCY.match(text)
        if match:
            metric, stat, pct = match.groups()
            stat = "median" if stat == "p50" else stat
            out.append(Threshold(Figure(metric, stat), float(pct), item))
            continue
        match = _RATE.match(text)
        if match:
            metric = "goodput" if match.group(1) == "goodput" else "output_throughput"
            out.append(Threshold(Figure(metric, None), float(match.group(2)), item))
            continue
        raise FailOnError(
            f"--fail-on {item[:40]!r}: write METRIC:STAT:+N% ({'/'.join(LATENCY_METRICS)}; "
            "mean/p50/p99), e.g. tpot:p99:+5%, or throughput:-N% / goodput:-N%"
        )
    return out


@dataclass(frozen=True)
class Check:
    threshold: Threshold
    point: str
    change: FigureChange
    status: str  # "regression" | "ok" | "unknown"

    def line(self) -> str:
        rel = self.change.relative
        shown = "n/a" if rel is None else f"{rel:+.1%}"
        if self.status == "unknown":
            return (
                f"cannot check {self.threshold.text} at {self.point}: interval unknown "
                f"({self.change.why_unknown})"
            )
        word = "REGRESSION" if self.status == "regression" else "ok"
        return f"{word}: {self.threshold.text} at {self.point}: {shown} ({self.change.verdict})"


def check(comparison: Comparison, thresholds: list[Threshold]) -> list[Check]:
    checks = []
    for threshold in thresholds:
        for point in comparison.points:
            change = next(f for f in point.figures if f.figure == threshold.figure)
            if change.verdict == "unknown" or change.relative is None:
                status = "unknown"
            else:
                beyond = change.relative * 100
                beyond = beyond if threshold.figure.lower_is_better else -beyond
                bad = change.verdict == "worse" and beyond > threshold.percent
                status = "regression" if bad else "ok"
            checks.append(Check(threshold, point.name, change, status))
    return checks
