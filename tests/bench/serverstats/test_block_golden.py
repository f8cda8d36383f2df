"""tpotbench.server_metrics built as its dataclass and written by the codec: byte for byte the
block the dict-built code wrote for the same scrapes (block_golden.json, written by that code
from real pages of the simulator and of other servers), and read back to the same JSON."""

from __future__ import annotations

import json

import pytest

from app.bench.schema.codec import from_json_obj, to_json_obj
from app.bench.schema.point_blocks import ServerMetricsBlock
from tests.bench.serverstats.block_cases import GOLDEN, cases

EXPECTED = json.loads(GOLDEN.read_text(encoding="utf-8"))
WRITTEN = cases(to_json_obj)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_block_is_byte_identical_to_the_dict_built_one(name: str) -> None:
    assert json.dumps(WRITTEN[name]) == json.dumps(EXPECTED[name])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_file_reads_back_to_the_same_block(name: str) -> None:
    block = from_json_obj(ServerMetricsBlock, EXPECTED[name])
    assert json.dumps(to_json_obj(block)) == json.dumps(EXPECTED[name])


def test_every_shape_is_covered() -> None:
    # A null spread (no such gauge), a null KV block count (a pool in tokens), an empty and a
    # full client comparison, warnings, phases, llama.cpp's prefill rate and both errors.
    text = json.dumps(EXPECTED)
    assert '"kv_cache_usage": null' in text and '"num_gpu_blocks": null' in text
    assert '"vs_client": {}' in text and '"gap":' in text and '"warnings":' in text
    assert '"server_queue_ms"' in text and '"server_prefill_ms_per_token"' in text
    assert '"spec_decode"' in text and '"prefix_cache"' in text
    assert "summary failed:" in text and "cannot connect:" in text
