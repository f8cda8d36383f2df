"""Which metrics and percentiles a point reports, and the goodput limits: vLLM's flag spellings."""

from __future__ import annotations

import math
from collections.abc import Sequence

from app.bench.load.grid import split_items

DEFAULT_PERCENTILES: tuple[float, ...] = (50.0, 90.0, 95.0, 99.0)

PERCENTILE_METRICS = (
    "ttft",
    "tpot",
    "itl",
    "e2el",
    "client_queue_time",
    "e2el_including_client_queue",
)

GOODPUT_METRICS = ("ttft", "tpot", "e2el")

METRIC_TITLES = {
    "ttft": ("TTFT", "Time to First Token"),
    "tpot": ("TPOT", "Time per Output Token (excl. 1st token)"),
    "itl": ("ITL", "Inter-token Latency"),
    "e2el": ("E2EL", "End-to-end Latency"),
    "client_queue_time": ("Client Queue Time", "Client-side Queueing"),
    "e2el_including_client_queue": (
        "E2EL incl. Client Queue",
        "Queue-inclusive End-to-end Latency",
    ),
}


def percentile_word(p: float) -> str:
    """The key fragment vLLM uses: 99 -> '99', 99.9 -> '99.9'."""
    return str(int(p)) if int(p) == p else str(p)


def parse_percentiles(text: str) -> tuple[float, ...]:
    """`--metric-percentiles 50,90,99` -> (50.0, 90.0, 99.0); ValueError names the bad item."""
    values = []
    for item in split_items(text):
        try:
            value = float(item)
        except ValueError:
            raise ValueError(f"--metric-percentiles: {item!r} is not a number") from None
        if not 0.0 <= value <= 100.0:
            raise ValueError(f"--metric-percentiles: {item} is outside 0..100")
        values.append(value)
    if not values:
        raise ValueError("--metric-percentiles: give at least one, e.g. 50,90,99")
    return tuple(values)


def parse_percentile_metrics(text: str) -> tuple[str, ...]:
    names = tuple(split_items(text))
    if not names:
        raise ValueError("--percentile-metrics: name at least one, e.g. ttft,tpot,itl,e2el")
    for name in names:
        if name not in PERCENTILE_METRICS:
            raise ValueError(
                f"--percentile-metrics: unknown metric {name!r}; choose from "
                + ", ".join(PERCENTILE_METRICS)
            )
    return names


def parse_goodput(pairs: Sequence[str]) -> dict[str, float]:
    """`--goodput ttft:500 tpot:50` -> {'ttft': 500.0, 'tpot': 50.0} (milliseconds)."""
    slos: dict[str, float] = {}
    for pair in pairs:
        name, sep, value = pair.partition(":")
        try:
            if not sep:
                raise ValueError
            number = float(value)
        except ValueError:
            raise ValueError(
                f"--goodput: {pair!r} is not KEY:MILLISECONDS (e.g. ttft:500 tpot:50)"
            ) from None
        if name not in GOODPUT_METRICS:
            raise ValueError(
                f"--goodput: unknown metric {name!r}; choose from {', '.join(GOODPUT_METRICS)}"
            )
        if not 0 <= number < math.inf:
            raise ValueError(f"--goodput: {name} must be a finite number of ms, not negative")
        if name in slos:  # which of two limits was meant is not ours to guess
            raise ValueError(f"--goodput: {name} is given twice; give each metric once")
        slos[name] = number
    return slos
