"""tpotbench.slo built as its dataclass (SloBlock, its checks StatCheck/ShareCheck) and written
by the codec: byte for byte the block the dict-built code wrote for the same evaluation
(slo_golden.json: two real points of a sweep against the simulator and variations of them,
written by that code), and read back to the same JSON."""

from __future__ import annotations

import json

import pytest

from app.bench.capacity.slo import SLOSet
from app.bench.schema.codec import from_json_obj, to_json_obj
from app.bench.schema.point_blocks import SloBlock, SloTargets
from tests.bench.capacity.slo_cases import GOLDEN, evaluated

CASES = json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_block_is_byte_identical_to_the_dict_built_one(case: dict) -> None:
    assert json.dumps(evaluated(case, to_json_obj)) == json.dumps(case["out"])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_file_reads_back_to_the_same_block_and_targets(case: dict) -> None:
    block = from_json_obj(SloBlock, case["out"])
    assert json.dumps(to_json_obj(block)) == json.dumps(case["out"])
    # What the point was held to, read back, is what it was held to.
    held = SLOSet.of(from_json_obj(SloTargets, case["slos"]))
    assert to_json_obj(SLOSet.of(block).targets()) == to_json_obj(held.targets())


def test_every_shape_is_covered() -> None:
    text = json.dumps([c["out"] for c in CASES])
    assert '"value_ms": null' in text and '"passed": true' in text
    assert '"good_share": null' in text and '"per_request_ms": null' in text
    assert '"limits": []' in text and '"request_goodput": null' in text
    assert '"kind": "good_share"' in text and '"kind": "failed_share"' in text
