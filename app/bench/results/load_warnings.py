"""Whether a point's load happened as planned: typed warnings when it did not.

Three checks, each against a stated limit (why each limit is what it is, below):

- `concurrency_not_reached`: a closed-loop point (rate inf) whose concurrency target was never
  reached: fewer prompts than streams, or a peak of requests in flight under the target. Its
  figures describe a lower concurrency than its label says.
- `arrivals_late`: a point with an arrival schedule (a Poisson/gamma rate, or a trace replay)
  whose sends fell behind it: send lateness p99 over the limit. The server then saw another
  arrival process than the one asked for, whether a concurrency cap held the sends (all slots
  busy) or the client was late.
- `client_saturated`: the client's own CPU or event loop was the bottleneck (the thresholds the
  *why* uses for its "client" cause): its send times and timestamps are at risk.

Each warning carries the measured value, the limit, the words' parameters and an English
sentence; the window and the HTML report translate from the kind and parameters.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.bench.capacity.why import CLIENT_CPU_SHARE, CLIENT_LOOP_LAG_MS
from app.bench.results.completeness import Completeness, completeness_of_doc
from app.bench.results.naming import rate_from_file
from app.bench.results.send_lateness import held_by_cap
from app.bench.schema.point_blocks import (
    ClientBlock,
    LoadWarningBlock,
    PointBlocks,
    TraceBlock,
    WarningParams,
)
from app.bench.schema.point_doc import PointDoc, VllmKeys
from app.jsonfile import number

# A closed-loop point counts as reaching its target when its peak in flight is at least this
# share of it. vLLM's peak (kept in the file) counts successful requests only and the first
# replies can end before the last streams are sent, so a point that really ran at its target
# can read one or two under it; anything lower is a different load (32 of 64 is 50 %).
CONCURRENCY_REACHED = 0.9
# Send lateness p99 may be as large as the mean gap between planned arrivals (1 / rate) but
# never needs to be under this floor. Beyond one mean gap, the late tail went out after the
# next request was due: arrivals bunch and the server sees a different process. The floor
# keeps fast rates from being flagged for client jitter: a busy loop wakes a few ms late and a
# fresh connection takes ms to open (lateness.LATE_MS counts a send 10 ms late as late), which
# is small beside a TTFT and changes nothing the server sees.
LATENESS_FLOOR_MS = 50.0

# Warnings that put a point's figures at another load than its label (fewer streams in flight)
# or make them untrustworthy (a saturated client): like a fragment, such a point is drawn apart
# from the curves and left out of knees. Late arrivals are not among them: a concurrency cap
# holding a Poisson stream is how experiment A is defined, and its figures are that load's.
OFF_CURVE_KINDS = frozenset({"concurrency_not_reached", "client_saturated"})

TEMPLATES: dict[str, str] = {
    "concurrency_prompts": (
        "Concurrency {target} was never reached: only {prompts} prompts for {target} streams, "
        "so at most {peak} requests were in flight; these are figures for a lower concurrency."
    ),
    "concurrency_peak": (
        "Concurrency {target} was never reached: at most {peak} requests were in flight "
        "(limit {limit}); these are figures for a lower concurrency."
    ),
    "arrivals_cap": (
        "Arrivals fell behind their schedule: {late} of {count} sends were late, p99 "
        "{p99_s:.2f} s (limit {limit_s:.2f} s), held by the concurrency cap of {cap} (all slots "
        "busy); the server did not see the planned arrivals."
    ),
    "arrivals_client": (
        "Arrivals fell behind their schedule: {late} of {count} sends were late, p99 "
        "{p99_s:.2f} s (limit {limit_s:.2f} s); the client sent late, so the server did not "
        "see the planned arrivals."
    ),
    "client_cpu": (
        "The client was saturated: it used {cpu:.0%} of a CPU core (limit {limit:.0%}); its "
        "send times and timestamps are at risk."
    ),
    "client_lag": (
        "The client was saturated: its event loop ran {lag:.0f} ms late (median, limit "
        "{limit:.0f} ms); its send times and timestamps are at risk."
    ),
}


@dataclass(frozen=True)
class LoadWarning:
    kind: str  # 'concurrency_not_reached' | 'arrivals_late' | 'client_saturated'
    template: str  # a key of TEMPLATES (which sentence, translated by the window and report)
    value: float  # the measured figure
    limit: float  # the limit it broke
    unit: str  # 'requests' | 'ms' | 'share'
    params: WarningParams = field(default_factory=dict)

    @property
    def text(self) -> str:
        return TEMPLATES[self.template].format(**self.params)

    def block(self) -> LoadWarningBlock:
        """The warning as an entry of the point's tpotbench.load_warnings."""
        return LoadWarningBlock(
            self.kind, self.template, self.value, self.limit, self.unit, self.params, self.text
        )

    @classmethod
    def from_block(cls, block: LoadWarningBlock) -> LoadWarning | None:
        """A warning of a typed document; None when it is not one this version can read."""
        if block.template not in TEMPLATES:
            return None
        warning = cls(
            block.kind, block.template, block.value, block.limit, block.unit, dict(block.params)
        )
        try:
            warning.text  # noqa: B018 - the parameters must fill the sentence
        except (KeyError, ValueError, TypeError):
            return None
        return warning


def _rate(value: Any) -> float:
    try:
        return rate_from_file(value)
    except (TypeError, ValueError):  # a foreign value: no schedule to hold it to
        return math.inf


def _concurrency(head: VllmKeys, blocks: PointBlocks) -> LoadWarning | None:
    target = head.max_concurrency
    if target is None or isinstance(target, bool) or target <= 1:
        return None
    # At a finite rate the concurrency is a cap, not a target: the rate sets the load.
    # Conversations pause between turns (think time): their sessions are the target, not
    # requests in flight.
    if math.isfinite(_rate(head.request_rate)) or blocks.conversations is not None:
        return None
    peak = number(head.max_concurrent_requests)
    prompts = number(head.num_prompts)
    if prompts is not None and prompts < target:
        shown = int(min(peak, prompts)) if peak is not None else int(prompts)
        params = {"target": target, "prompts": int(prompts), "peak": shown}
        return LoadWarning(
            "concurrency_not_reached", "concurrency_prompts", shown, target, "requests", params
        )
    # No success: no peak to read (the failures say what happened instead). A point cut short
    # is marked as a fragment already; its peak is whatever the cut left.
    if peak is None or not head.completed or not completeness_of_doc(head, blocks).complete:
        return None
    limit = math.ceil(CONCURRENCY_REACHED * target)
    if peak >= limit:
        return None
    params = {"target": target, "peak": int(peak), "limit": limit}
    return LoadWarning(
        "concurrency_not_reached", "concurrency_peak", int(peak), limit, "requests", params
    )


def _planned_gap_ms(head: VllmKeys, trace: TraceBlock | None) -> float | None:
    """The mean gap between planned arrivals (ms): the trace's replayed span over its sends,
    else 1 / rate; None for a point without a schedule (rate inf, everything at once)."""
    if trace is not None:
        span, requests = number(trace.replay_span_s), number(trace.requests)
        if span is not None and requests and requests > 1:
            return span * 1000.0 / (requests - 1)
    rate = _rate(head.request_rate)
    return 1000.0 / rate if math.isfinite(rate) and rate > 0 else None


def _arrivals(head: VllmKeys, blocks: PointBlocks) -> LoadWarning | None:
    late = blocks.schedule_lateness_ms
    gap = _planned_gap_ms(head, blocks.trace)
    if late is None or gap is None:
        return None
    p99 = number(late.p99_ms)
    if p99 is None:
        return None
    limit = max(LATENESS_FLOOR_MS, gap)
    if p99 <= limit:
        return None
    cap = head.max_concurrency
    held = held_by_cap(cap, blocks, p99)
    params: dict[str, float] = {
        "late": int(number(late.late) or 0),
        "count": int(number(late.count) or 0),
        "p99_s": p99 / 1000.0,
        "limit_s": limit / 1000.0,
    }
    if held and cap is not None:  # held_by_cap: only a point with a cap is held by it
        params["cap"] = cap
    template = "arrivals_cap" if held else "arrivals_client"
    return LoadWarning("arrivals_late", template, p99, limit, "ms", params)


def _client(client: ClientBlock | None) -> LoadWarning | None:
    if client is None:
        return None
    cpu = number(client.cpu_share)
    lag = number(client.loop_lag_ms.median) if client.loop_lag_ms is not None else None
    if cpu is not None and cpu >= CLIENT_CPU_SHARE:
        params = {"cpu": cpu, "limit": CLIENT_CPU_SHARE}
        return LoadWarning("client_saturated", "client_cpu", cpu, CLIENT_CPU_SHARE, "share", params)
    if lag is not None and lag >= CLIENT_LOOP_LAG_MS:
        params = {"lag": lag, "limit": CLIENT_LOOP_LAG_MS}
        return LoadWarning("client_saturated", "client_lag", lag, CLIENT_LOOP_LAG_MS, "ms", params)
    return None


def check_load(doc: PointDoc) -> list[LoadWarning]:
    """The warnings of one point's result document (empty: the load happened as planned)."""
    blocks = doc.typed_blocks
    found = (
        _concurrency(doc.vllm, blocks),
        _arrivals(doc.vllm, blocks),
        _client(blocks.client),
    )
    return [w for w in found if w is not None]


def warnings_of(doc: PointDoc) -> list[LoadWarning]:
    """The warnings a point's document stores (`tpotbench.load_warnings`), else (a file written
    before the checks, or by vLLM) the checks run on it now."""
    stored = doc.typed_blocks.load_warnings
    if stored is None:
        return check_load(doc)
    found = (LoadWarning.from_block(w) for w in stored)
    return [w for w in found if w is not None]


def off_curve(warnings: Sequence[LoadWarning]) -> bool:
    """Whether these warnings take a point off the curves and knees (OFF_CURVE_KINDS)."""
    return any(w.kind in OFF_CURVE_KINDS for w in warnings)


def on_the_curve(completeness: Completeness, warnings: Sequence[LoadWarning]) -> bool:
    """A full measurement of the load it names: complete, and no warning that moves it. The
    one rule for what knees and curves may use (a point row, a result file, a search run)."""
    return completeness.complete and not off_curve(warnings)


def point_on_the_curve(doc: PointDoc) -> bool:
    """on_the_curve for a point's document."""
    return on_the_curve(completeness_of_doc(doc.vllm, doc.typed_blocks), warnings_of(doc))
