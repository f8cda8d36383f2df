"""A point's result document typed (app.bench.schema.point_doc): real point files written by the
dict-built writer before the types (point_golden/, from `tpotbench sweep` against the simulator:
server metrics, SLO with a why, roofline, --save-detailed, conversations, load workers, a trace,
a rate-limited point) come out of the typed writer byte for byte, and so do their
`point_finished` lines; the stream is read strictly, files tolerantly."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app.bench.results.read import load_result
from app.bench.results.write import point_text, write_point_json
from app.bench.schema.codec import SchemaError
from app.bench.schema.point_check import as_written, checked
from app.bench.schema.point_doc import PointDoc, read_point_doc
from app.bench.sweep.contract import PointFinished, encode
from app.bench.sweep.event_decode import decode

GOLDEN = Path(__file__).with_name("point_golden")
FILES = sorted(GOLDEN.glob("*.json"))
LINES = (GOLDEN / "point_finished.jsonl").read_text(encoding="utf-8").splitlines()


def test_there_are_golden_files_and_lines() -> None:
    assert len(FILES) == 5 and len(LINES) == 5


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_file_reads_into_the_typed_document_and_writes_out_byte_for_byte(
    path: Path, tmp_path: Path
) -> None:
    text = path.read_text(encoding="utf-8")
    doc = read_point_doc(json.loads(text), strict=True)
    assert point_text(doc) == text
    # A document given as JSON objects (a hand-made file) written through the typed writer.
    written = write_point_json(tmp_path / path.name, json.loads(text))
    assert written.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("line", LINES, ids=[str(i) for i in range(len(LINES))])
def test_a_point_finished_line_decodes_to_the_typed_document_and_encodes_back(line: str) -> None:
    event = decode(line)
    assert isinstance(event, PointFinished) and isinstance(event.summary, PointDoc)
    assert encode(event) == line + "\n"


def test_the_event_carries_the_file_less_its_per_request_arrays() -> None:
    [line] = [x for x in LINES if "rich_rateinf_conc4" in x]
    event = decode(line)
    assert isinstance(event.summary, PointDoc)
    file = read_point_doc(
        json.loads((GOLDEN / "rich_rateinf_conc4.json").read_text(encoding="utf-8")), strict=True
    )
    assert event.summary.blocks == file.blocks and event.summary.stats == file.stats
    assert file.vllm.ttfts is not None and event.summary.vllm.ttfts is None
    assert "requests" in file.block_rest and "requests" not in event.summary.block_rest
    assert event.summary.typed_blocks.why is not None  # the SLO failed: its why travels


def test_the_stream_is_strict_and_names_the_path() -> None:
    obj = json.loads((GOLDEN / "rich_rateinf_conc4.json").read_text(encoding="utf-8"))
    obj["tpotbench"]["roofline"]["batch"] = "four"
    with pytest.raises(SchemaError, match=r"^tpotbench\.roofline\.batch: must be a number"):
        read_point_doc(obj, strict=True)
    obj["tpotbench"]["roofline"]["batch"] = 4
    obj["p99_tpot_ms"] = "slow"
    with pytest.raises(SchemaError, match=r"^p99_tpot_ms: must be a number or null"):
        read_point_doc(obj, strict=True)


def test_a_file_is_read_tolerantly(tmp_path: Path) -> None:
    obj = json.loads((GOLDEN / "rich_rateinf_conc4.json").read_text(encoding="utf-8"))
    obj["tpotbench"]["roofline"]["batch"] = "four"  # an odd part: absent, the rest kept
    obj["tpotbench"]["from_a_newer_version"] = {"x": 1}
    obj["from_a_newer_version"] = 1
    doc = read_point_doc(obj, strict=False)
    assert doc.typed_blocks.roofline is None and doc.typed_blocks.slo is not None
    assert doc.block_rest["from_a_newer_version"] == {"x": 1}
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    point = load_result(path)
    assert point.blocks.roofline is None and point.blocks.why is not None
    assert point.metric("tpot", "p99") == obj["p99_tpot_ms"]


def test_a_part_the_engine_built_wrong_is_named_and_the_measurement_kept() -> None:
    obj = json.loads((GOLDEN / "rich_rateinf_conc4.json").read_text(encoding="utf-8"))
    doc = read_point_doc(obj, strict=True)
    assert checked(doc) == (doc, None)
    blocks = doc.typed_blocks
    assert blocks.roofline is not None and blocks.server_metrics is not None
    wrong = replace(blocks.roofline, batch="four")  # type: ignore[arg-type] - the bug
    kept, problem = checked(replace(doc, blocks=replace(blocks, roofline=wrong)))
    assert problem is not None and "tpotbench.roofline.batch" in problem
    assert kept.typed_blocks.roofline is None and kept.typed_blocks.slo is blocks.slo
    assert kept.vllm is doc.vllm and kept.block_rest is doc.block_rest
    # A value its writer cannot take (text where a number is rounded) is named too.
    odd = replace(blocks.server_metrics, window_s="long")  # type: ignore[arg-type] - the bug
    kept, problem = checked(replace(doc, blocks=replace(blocks, server_metrics=odd)))
    assert problem is not None and "tpotbench.server_metrics" in problem
    assert kept.typed_blocks.server_metrics is None and kept.typed_blocks.roofline is not None
    assert point_text(kept)  # what is left writes


def test_a_block_as_written_is_rounded_as_the_file_holds_it() -> None:
    obj = json.loads((GOLDEN / "rich_rateinf_conc4.json").read_text(encoding="utf-8"))
    server = read_point_doc(obj, strict=True).typed_blocks.server_metrics
    assert server is not None and server.window_s is not None
    finer = replace(server, window_s=server.window_s + 0.000_4)
    assert as_written(finer) == server
