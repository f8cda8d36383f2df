"""A point's result document typed: vLLM's `--save-result` keys, the `{stat}_{metric}_ms`
statistics, and our `tpotbench` block as `PointBlocks` plus the block's untyped parts.

One writer (`point_json`) gives the file's keys, order and values exactly as the point file and
the event stream have always held them; one reader (`read_point_doc`), strict for the event
stream (a wrong type is a SchemaError naming its path, `tpotbench.roofline.batch: ...`) and
tolerant for files (app.bench.schema.point_blocks's rules; the checks that refuse a whole file
stay in app.bench.results.read). Files of `vllm bench serve` and benchmark_serving.py come in
through app.bench.results.vllm_adapter, not through here.

The block's per-request arrays (`requests`, the --save-detailed columns) are written from
app.bench.schema.request_arrays.RequestArrays and kept as JSON in `block_rest` (with any key of
a newer writer's): the event stream leaves them out, and app.bench.results.request_block reads
them back value by value. Where each goes among the typed keys is written down once below
(`_AFTER`).
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.bench.schema.codec import SchemaError, from_json_obj, to_json_obj, wire
from app.bench.schema.point_blocks import EMPTY, PointBlocks, point_blocks

# `mean_ttft_ms`, `p99.9_e2el_ms`: the statistics vLLM writes for each chosen metric.
STAT_KEY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_([a-z0-9_]+)_ms$")
BLOCK_KEY = "tpotbench"


# A per-request array of vLLM's: only in files written with --save-detailed (the two that are
# always there are left out of the event stream). Kept as the document holds it.
_ARRAY = wire(omit="none")


@dataclass(frozen=True)
class VllmKeys:
    """The keys `vllm bench serve --save-result` writes, in its order (the statistics and
    our block aside)."""

    date: str | None = None
    endpoint_type: str | None = None
    backend: str | None = None
    label: str | None = None
    model_id: str | None = None
    tokenizer_id: str | None = None
    num_prompts: int | None = None
    request_rate: float | str | None = None  # a number, or "inf"
    burstiness: float | None = None
    max_concurrency: int | None = None
    duration: float | None = None
    completed: int | None = None
    failed: int | None = None
    total_input_tokens: int | None = None
    total_output_tokens: int | None = None
    request_throughput: float | None = None
    request_goodput: float | None = None
    output_throughput: float | None = None
    total_token_throughput: float | None = None
    input_lens: Any = field(default=None, metadata=_ARRAY)
    output_lens: Any = field(default=None, metadata=_ARRAY)
    ttfts: Any = field(default=None, metadata=_ARRAY)
    itls: Any = field(default=None, metadata=_ARRAY)
    start_times: Any = field(default=None, metadata=_ARRAY)
    generated_texts: Any = field(default=None, metadata=_ARRAY)
    errors: Any = field(default=None, metadata=_ARRAY)
    latencies: Any = field(default=None, metadata=_ARRAY)
    queue_times: Any = field(default=None, metadata=_ARRAY)
    max_output_tokens_per_s: float | None = None
    max_concurrent_requests: int | None = None
    rtfx: float | None = None


@dataclass(frozen=True)
class PointDoc:
    """One point's result document. `stats` holds the `{stat}_{metric}_ms` keys in file order
    (which exist depends on the chosen metrics and percentiles; None: no request gave one);
    `blocks` is our `tpotbench` block typed (None: a document without one) and `block_rest`
    that block's other keys as JSON: the per-request arrays (a RequestArrays written by the
    codec) and a newer writer's keys."""

    vllm: VllmKeys = VllmKeys()
    stats: Mapping[str, float | None] = field(default_factory=dict)
    blocks: PointBlocks | None = None
    block_rest: Mapping[str, Any] = field(default_factory=dict)

    @property
    def typed_blocks(self) -> PointBlocks:
        """The blocks, EMPTY for a document without a `tpotbench` block."""
        return EMPTY if self.blocks is None else self.blocks

    def without(self, vllm_keys: frozenset[str], block_keys: frozenset[str]) -> PointDoc:
        """The document without some of vLLM's keys (reset to their absence) and of the
        block's untyped parts (the event stream leaves the per-request arrays out)."""
        head = dataclasses.replace(self.vllm, **dict.fromkeys(vllm_keys))
        rest = {k: v for k, v in self.block_rest.items() if k not in block_keys}
        return dataclasses.replace(self, vllm=head, block_rest=rest)


# Where each per-request array goes: right after this typed key (the keys' order is the
# format). A key not named here (a newer writer's) goes at the end of the block.
_AFTER = {
    "requests": "server_metrics",
    "ttfos": "itl_histogram",
    "reasoning_lens": "itl_histogram",
    "cached_lens": "itl_histogram",
    "chunk_counts": "itl_histogram",
    "itl_tokens": "itl_histogram",
    "error_kinds": "itl_histogram",
    "retried": "itl_histogram",
}
_TYPED = frozenset(f.name for f in dataclasses.fields(PointBlocks))
_VLLM = frozenset(f.name for f in dataclasses.fields(VllmKeys))
_WHOLE = frozenset(n for n, tp in typing.get_type_hints(VllmKeys).items() if tp == int | None)


def block_json(blocks: PointBlocks, rest: Mapping[str, Any]) -> dict[str, Any]:
    """The `tpotbench` block as the file holds it: the typed keys through the codec, the
    per-request arrays in their places."""
    typed: dict[str, Any] = to_json_obj(blocks)
    if not rest:
        return typed
    following: dict[str, list[str]] = {}
    last: list[str] = []
    for key in rest:
        anchor = _AFTER.get(key)
        (following.setdefault(anchor, []) if anchor in typed else last).append(key)
    out: dict[str, Any] = {}
    for key, value in typed.items():
        out[key] = value
        for part in following.get(key, ()):
            out[part] = rest[part]
    for part in last:
        out[part] = rest[part]
    return out


def point_json(doc: PointDoc) -> dict[str, Any]:
    """The document as JSON objects, in the file's order: vLLM's keys, the statistics, the
    block."""
    out: dict[str, Any] = to_json_obj(doc.vllm)
    out.update(doc.stats)
    if doc.blocks is not None:
        out[BLOCK_KEY] = block_json(doc.blocks, doc.block_rest)
    return out


def read_point_doc(obj: Any, *, strict: bool) -> PointDoc:
    """A document (parsed JSON) read into a PointDoc: strictly (the event stream; SchemaError
    names the path) or tolerantly (a file of ours, already vetted by app.bench.results.read:
    an unreadable part is absent, an unknown key ignored)."""
    if not isinstance(obj, Mapping):
        raise SchemaError(f"must be an object, got {obj!r:.60}")
    head: dict[str, Any] = {}
    stats: dict[str, float | None] = {}
    for key, value in obj.items():
        if key in _VLLM:
            head[key] = value
        elif STAT_KEY.match(key):
            if value is None or (type(value) in (int, float)):
                stats[key] = value
            elif strict:
                raise SchemaError(
                    f"{key}: must be a number or null, got {value!r:.60}",
                    path=key,
                    problem=f"must be a number or null, got {value!r:.60}",
                )
        elif key != BLOCK_KEY and strict:
            raise SchemaError(f"{key}: unknown field", path=key, problem="unknown field")
    vllm = _head(head, strict)
    block = obj.get(BLOCK_KEY)
    if block is None:
        return PointDoc(vllm, stats)
    if not isinstance(block, Mapping):
        if strict:
            problem = f"must be an object, got {block!r:.60}"
            raise SchemaError(f"{BLOCK_KEY}: {problem}", path=BLOCK_KEY, problem=problem)
        return PointDoc(vllm, stats)
    blocks = point_blocks(block, strict=strict, where=BLOCK_KEY)
    rest = {k: v for k, v in block.items() if k not in _TYPED}
    return PointDoc(vllm, stats, blocks, rest)


def _head(head: dict[str, Any], strict: bool) -> VllmKeys:
    try:
        return from_json_obj(VllmKeys, head)
    except SchemaError:
        if strict:
            raise
    # A file's odd key (app.bench.results.read has refused what summaries cannot use): absent.
    values = {}
    for key, value in head.items():
        if key in _WHOLE and type(value) is float and math.isfinite(value):
            value = int(value)  # a count an older writer put down as a float
        try:
            values[key] = from_json_obj(VllmKeys, {key: value}).__dict__[key]
        except SchemaError:
            continue
    return VllmKeys(**values)
