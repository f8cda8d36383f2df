"""Stop a point as soon as it has provably failed an SLO, whatever its remaining requests do.

Only certain failures stop a point, never a likely one, so an early-stopped point fails exactly
as the full point would have. With `total` requests in the point and `over` of them already
above a per-request limit, the point's pNN (numpy's linear interpolation over at most `total`
values) is above the limit once over >= total - floor((total - 1) * NN / 100): the value at the
interpolation's lower rank is then over the limit, and fewer finished values (failures, or
one-token replies without a TPOT) only lower that bound. A mean is over once the values seen so
far sum to more than limit x total (the rest are >= 0). ITL is pooled over token gaps whose
count is not known in advance, so it never stops a point early.
"""

from __future__ import annotations

import asyncio
import math

from app.bench.capacity.slo import MAX_FAILED_SHARE, PER_REQUEST, SLOSet
from app.bench.sweep.contract import RequestDone
from app.bench.sweep.observer import SweepObserver


def over_needed(total: int, quantile: float) -> int:
    """How many of `total` values above a limit make their `quantile` percentile exceed it."""
    return total - math.floor((total - 1) * quantile / 100.0)


class EarlyStop(SweepObserver):
    """A sweep observer for one point: `event` is set, with `reason`, once the point has failed."""

    wants_tokens = False

    def __init__(self, slos: SLOSet, total: int) -> None:
        self.slos = slos
        self.total = max(1, total)
        self.event = asyncio.Event()
        self.reason: str | None = None
        self._over: dict[str, int] = {}
        self._sums: dict[str, float] = {}
        self._failed = 0
        self._bad = 0

    def _stop(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
            self.event.set()

    def request(self, event: RequestDone) -> None:
        if self.reason is not None:
            return
        if not event.ok:
            self._failed += 1
            if self._failed > MAX_FAILED_SHARE * self.total:
                self._stop(f"{self._failed} of {self.total} requests failed ({event.error_kind})")
            if self.slos.per_request:
                self._count_bad()
            return
        values_ms = {"ttft": event.ttft_ms, "tpot": event.tpot_ms, "e2el": event.e2el_ms}
        for slo in self.slos.limits:
            if slo.metric not in PER_REQUEST:
                continue
            value = values_ms[slo.metric]
            if value is None:
                continue
            quantile = slo.quantile
            if quantile is None:
                self._sums[slo.label] = self._sums.get(slo.label, 0.0) + value
                if self._sums[slo.label] > slo.limit_ms * self.total:
                    self._stop(f"{slo.label}: the mean is already over the limit")
                continue
            if value > slo.limit_ms:
                self._over[slo.label] = self._over.get(slo.label, 0) + 1
                need = over_needed(self.total, quantile)
                if self._over[slo.label] >= need:
                    self._stop(
                        f"{slo.label}: {self._over[slo.label]} of {self.total} requests over "
                        f"{slo.limit_ms:g} ms"
                    )
        if self.slos.per_request:
            limits = self.slos.per_request
            # vLLM counts a request without a TPOT (one token) as TPOT 0 for goodput.
            values_ms["tpot"] = values_ms["tpot"] or 0.0
            if any((values_ms[k] or 0.0) > v for k, v in limits.items()):
                self._count_bad()

    def _count_bad(self) -> None:
        self._bad += 1
        if self._bad > (1.0 - self.slos.good_share) * self.total:
            self._stop(f"goodput: {self._bad} of {self.total} requests missed a per-request limit")
