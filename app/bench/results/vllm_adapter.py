"""Files written by `vllm bench serve --save-result` and by the older benchmark_serving.py, as
our typed point document (app.bench.schema.point_doc), their quirks mapped in one place:

- goodput under `request_goodput:` (benchmark_serving.py's key, colon included);
- no `failed` (benchmark_serving.py): the prompts that did not complete;
- `endpoint_type` (vLLM's newer name) where `backend` is missing;
- counts written as floats (`"completed": 10.0`) read as whole numbers.

Their per-request arrays (`ttfts`, `itls`, ...) and statistics keep vLLM's names, which are
ours too. The caller (app.bench.results.read) has refused what cannot be a measurement first.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from typing import Any, Literal

from app.bench.schema.point_doc import STAT_KEY, PointDoc, VllmKeys

Source = Literal["vllm", "benchmark_serving"]
_FIELDS = {f.name for f in dataclasses.fields(VllmKeys)}
# Counts: a float count is read as the whole number it is.
_WHOLE = {name for name, tp in typing.get_type_hints(VllmKeys).items() if tp == int | None}


def source_of(data: dict[str, Any]) -> Source:
    """Which tool wrote a document without our block: vLLM's writes `failed`, the peak
    concurrency or `endpoint_type`; benchmark_serving.py none of them."""
    if "failed" in data or "max_concurrent_requests" in data or "endpoint_type" in data:
        return "vllm"
    return "benchmark_serving"


def point_doc(data: dict[str, Any]) -> PointDoc:
    """A vLLM or benchmark_serving.py document as a PointDoc (no `tpotbench` block)."""
    head: dict[str, Any] = {}
    for key, value in data.items():
        name = "request_goodput" if key == "request_goodput:" else key
        if name not in _FIELDS or (name == "request_goodput" and "request_goodput" in head):
            continue
        if name in _WHOLE and isinstance(value, float) and math.isfinite(value):
            value = int(value)
        head[name] = value
    if head.get("failed") is None and isinstance(head.get("num_prompts"), int):
        head["failed"] = max(0, head["num_prompts"] - (head.get("completed") or 0))
    if not head.get("backend"):
        head["backend"] = head.get("endpoint_type")
    stats = {
        key: value
        for key, value in data.items()
        if STAT_KEY.match(key) and (value is None or type(value) in (int, float))
    }
    return PointDoc(VllmKeys(**head), stats)
