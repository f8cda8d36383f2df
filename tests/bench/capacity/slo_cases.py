"""The SLO block of a point file in each shape it takes: the inputs of two real points (a sweep
against the simulator with four statistic limits and a goodput, as app.bench.sweep.
point_document evaluated them) and variations of them (no request finished, every request
failed, nothing sent, goodput limits only, statistic limits only). The golden file
(slo_golden.json) holds each case's inputs and the block the dict-built code wrote."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.bench.capacity.slo import SLOSet, slo_block
from app.bench.schema.codec import from_json_obj
from app.bench.schema.point_blocks import SloTargets

GOLDEN = Path(__file__).with_name("slo_golden.json")


def variations(real: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each real point's inputs, then the variations of the second."""
    base = real[-1]
    out = [dict(r, name=f"real_{i}") for i, r in enumerate(real)]
    kw = base["kw"]
    slos = base["slos"]
    out.append(dict(base, name="none_finished", kw={**kw, "completed": 0, "goodput": None}))
    out.append(dict(base, name="all_failed", kw={**kw, "completed": 0, "failed": kw["completed"]}))
    out.append(dict(base, name="nothing_sent", kw={**kw, "completed": 0, "duration_s": 0.0}))
    out.append(dict(base, name="goodput_only", slos={**slos, "limits": []}))
    stat_only = {**slos, "per_request_ms": None, "good_share": None}
    out.append(dict(base, name="stats_only", slos=stat_only, kw={**kw, "goodput": None}))
    return [{k: v for k, v in case.items() if k != "out"} for case in out]


def evaluated(case: dict[str, Any], as_json: Callable[[Any], Any]) -> Any:
    slos = SLOSet.of(from_json_obj(SloTargets, case["slos"]))
    block = slo_block(slos, case["stats"], **case["kw"])
    return json.loads(json.dumps(as_json(block)))
