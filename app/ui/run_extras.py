"""What the window adds to a sweep beyond its form, passed to each run as one value: the Roofline
dock's context (each point's file then records the floor and MBU) and the /metrics scrape."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.bench.schema.run_config import RooflineConfig
from app.commands.sweep_flags import roofline_config
from app.roofline.context import RooflineContext


@dataclass(frozen=True)
class RunExtras:
    """roofline: the dock's context (None: no roofline); server_metrics: the worker scrapes
    /metrics for each point's file; flags: `tpotbench sweep` flags the form does not offer
    (benchmarks and tests, e.g. --save-detailed)."""

    roofline: RooflineContext | None = None
    server_metrics: bool = False
    flags: tuple[str, ...] = field(default=())

    def spec_fields(self) -> dict[str, Any]:
        """What these set in the sweep's SweepSpec."""
        return {
            "roofline": RooflineConfig()
            if self.roofline is None
            else roofline_config(self.roofline),
            "server_metrics": self.server_metrics,
            "flags": self.flags,
        }
