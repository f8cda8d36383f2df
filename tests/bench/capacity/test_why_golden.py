"""The why written from its dataclass (WhyBlock, through the codec) is byte for byte the JSON
the dict-built why wrote: why_golden.json holds recorded inputs and the whys the previous code
(13336c6) wrote for them. The inputs are the result documents of
`benchmarks/why_scenarios.py --save-results` (every scenario server and variant, trimmed of
keys the why never reads) and the hand-made points of test_why.py; each is explained for the
SLOs it failed and for other failing metrics, and with its roofline block left out, so every
cause, the estimate, the runner-up,
what is ruled out and what is missing are all in it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.bench.capacity.why import explain, render
from app.bench.schema.codec import from_json_obj, to_json_obj
from app.bench.schema.point_blocks import WhyBlock
from app.bench.schema.point_doc import read_point_doc

GOLDEN = Path(__file__).with_name("why_golden.json")


def _cases() -> list[tuple[str, dict[str, Any], list[str] | None, dict[str, Any]]]:
    out = []
    for case in json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]:
        out += [(case["name"], case["result"], w["failed"], w["why"]) for w in case["whys"]]
        if "whys_without_roofline" in case:  # the same point, its roofline block left out
            blind = {**case["result"], "tpotbench": dict(case["result"]["tpotbench"])}
            del blind["tpotbench"]["roofline"]
            out += [
                (case["name"] + ", no roofline", blind, w["failed"], w["why"])
                for w in case["whys_without_roofline"]
            ]
    return out


CASES = _cases()


def test_the_recorded_whys_name_every_cause() -> None:
    causes = {why["cause"] for _, _, _, why in CASES}
    assert causes == {
        "abstain", "bandwidth", "chunked_prefill", "client", "kv", "prefill", "queue", "unknown"
    }  # fmt: skip
    assert any(why["estimate"] for _, _, _, why in CASES)
    assert any(why["runner_up"] for _, _, _, why in CASES)
    assert any(why["ruled_out"] for _, _, _, why in CASES)
    assert any(why["missing"] and why["cause"] != "abstain" for _, _, _, why in CASES)


@pytest.mark.parametrize(("name", "result", "failed", "expected"), CASES, ids=lambda v: "")
def test_the_why_is_written_as_before(
    name: str, result: dict[str, Any], failed: list[str] | None, expected: dict[str, Any]
) -> None:
    why = explain(read_point_doc(result, strict=False), failed)
    assert json.dumps(to_json_obj(why), indent=2) == json.dumps(expected, indent=2), name
    # Read back (a file, the event stream), it is the same why and says the same sentences.
    again = from_json_obj(WhyBlock, json.loads(json.dumps(to_json_obj(why))))
    assert again == why
    assert render(again, "en") == expected["text"] and render(again, "zh_CN") == expected["text_zh"]
