"""The figures a compare reports, with the direction in which each is better."""

from __future__ import annotations

from dataclasses import dataclass

LATENCY_METRICS = ("ttft", "tpot", "itl", "e2el")
LATENCY_STATS = ("mean", "median", "p99")
# The statistic's name in result files (vLLM's keys) and in --fail-on.
STAT_LABEL = {"mean": "mean", "median": "p50", "p99": "p99"}


@dataclass(frozen=True)
class Figure:
    """One compared figure: a latency statistic (metric, stat) or a throughput (metric,
    stat=None). `lower_is_better` holds for latencies, not for throughputs."""

    metric: str
    stat: str | None

    @property
    def lower_is_better(self) -> bool:
        return self.metric in LATENCY_METRICS

    @property
    def key(self) -> str:
        return self.metric if self.stat is None else f"{self.metric}:{STAT_LABEL[self.stat]}"

    @property
    def unit(self) -> str:
        if self.metric == "goodput":
            return "req/s"
        return "ms" if self.lower_is_better else "tok/s"


FIGURES: tuple[Figure, ...] = (
    *(Figure(m, s) for m in LATENCY_METRICS for s in LATENCY_STATS),
    Figure("output_throughput", None),
    Figure("goodput", None),
)
