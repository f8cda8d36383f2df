"""Files of `vllm bench serve` and benchmark_serving.py come in through one adapter
(app.bench.results.vllm_adapter) as the typed point document ours are; the PointResult is then
built the same way from either."""

from __future__ import annotations

import json
from pathlib import Path

from app.bench.results import vllm_adapter
from app.bench.results.read import load_result
from app.bench.schema.point_doc import VllmKeys, read_point_doc

GOLDEN = Path(__file__).parents[1] / "schema" / "point_golden" / "rich_rateinf_conc4.json"


def test_the_quirks_of_their_files_are_mapped_in_one_place() -> None:
    serving = {
        "backend": "vllm",
        "num_prompts": 10,
        "completed": 8.0,
        "duration": 12.5,
        "request_goodput:": 0.5,
        "mean_tpot_ms": 21.0,
        "p99_tpot_ms": None,
        "itls": [[0.01]],
    }
    doc = vllm_adapter.point_doc(serving)
    assert vllm_adapter.source_of(serving) == "benchmark_serving"
    assert doc.vllm.completed == 8 and type(doc.vllm.completed) is int  # a float count
    assert doc.vllm.failed == 2  # benchmark_serving.py wrote no `failed`
    assert doc.vllm.request_goodput == 0.5  # its key has a colon
    assert doc.stats == {"mean_tpot_ms": 21.0, "p99_tpot_ms": None}
    assert doc.vllm.itls == [[0.01]] and doc.blocks is None
    newer = {"endpoint_type": "openai-chat", "completed": 3, "failed": 1, "duration": 2.0}
    assert vllm_adapter.source_of(newer) == "vllm"
    assert vllm_adapter.point_doc(newer).vllm.backend == "openai-chat"


def test_their_file_and_ours_give_the_same_point(tmp_path: Path) -> None:
    ours = json.loads(GOLDEN.read_text(encoding="utf-8"))
    theirs = {k: v for k, v in ours.items() if k != "tpotbench"}  # what vLLM would write
    (tmp_path / "theirs.json").write_text(json.dumps(theirs), encoding="utf-8")
    mine, other = load_result(GOLDEN), load_result(tmp_path / "theirs.json")
    assert (mine.source, other.source) == ("tpotbench", "vllm")
    assert vllm_adapter.point_doc(theirs).vllm == read_point_doc(ours, strict=True).vllm
    for name in ("request_rate", "completed", "failed", "duration_s", "stats", "backend"):
        assert getattr(mine, name) == getattr(other, name), name
    assert other.blocks.roofline is None and mine.blocks.roofline is not None
    assert isinstance(vllm_adapter.point_doc(theirs).vllm, VllmKeys)
