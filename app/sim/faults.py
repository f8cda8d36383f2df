"""Which generation requests get an injected fault: every Nth, a seeded random share, or all."""

from __future__ import annotations

import random

from app.sim.config import SimConfig


class FaultPlan:
    """Decides per request number; kinds rotate when several are configured."""

    def __init__(self, config: SimConfig) -> None:
        self.kinds = list(config.faults)
        self.every = config.fault_every
        self.rate = config.fault_rate
        self._rng = random.Random(config.seed ^ 0x5EED)
        self._seen = 0
        self._injected = 0

    def next_fault(self) -> str | None:
        """The fault for the next generation request, or None."""
        if not self.kinds:
            return None
        self._seen += 1
        if self.every is not None:
            hit = self._seen % self.every == 0
        elif self.rate is not None:
            hit = self._rng.random() < self.rate
        else:
            hit = True
        if not hit:
            return None
        kind = self.kinds[self._injected % len(self.kinds)]
        self._injected += 1
        return kind
