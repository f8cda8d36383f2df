"""search.json from its typed document: byte for byte what the dict-built document wrote
(the golden file was written by that code, before the types), read back to the same
document, and tolerant of keys a newer or older writer put there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.bench.schema.codec import SchemaError, to_json_obj
from app.bench.schema.search_doc import SearchDoc, read_search_doc
from tests.bench.capacity.search_doc_case import document_text

GOLDEN = Path(__file__).with_name("search_golden.json")
# The same search on the scenario servers' recorded results: the boundary's why names a cause
# with its estimate, the knees' whys a cause and what the roofline ruled out. Written by the
# dict-built whys and knees (13336c6), before they were typed.
GOLDEN_WHYS = Path(__file__).with_name("search_golden_whys.json")


def test_search_json_is_byte_identical_to_the_dict_built_one() -> None:
    assert document_text() == GOLDEN.read_text(encoding="utf-8")
    assert document_text(recorded=True) == GOLDEN_WHYS.read_text(encoding="utf-8")


def test_the_whys_and_knees_read_back_typed() -> None:
    text = GOLDEN_WHYS.read_text(encoding="utf-8")
    doc = read_search_doc(json.loads(text))
    assert json.dumps(to_json_obj(doc), indent=2) + "\n" == text
    assert doc.boundary_why is not None and doc.boundary_why.cause == "bandwidth"
    assert doc.boundary_why.estimate is not None and doc.boundary_why.estimate.gain > 1
    tpot, ttft = doc.knee["tpot"], doc.knee["ttft"]
    assert tpot is not None and tpot.load == 50 and tpot.sharpness == 0.8102
    assert ttft is not None and ttft.why is not None and ttft.why.cause == "unknown"
    assert [item.key for item in ttft.why.ruled_out] == ["prefill"]


def test_the_document_reads_back_to_itself() -> None:
    obj = json.loads(GOLDEN.read_text(encoding="utf-8"))
    doc = read_search_doc(obj)
    assert isinstance(doc, SearchDoc) and len(doc.points) == 11
    assert json.dumps(to_json_obj(doc), indent=2) + "\n" == GOLDEN.read_text(encoding="utf-8")
    assert doc.boundary.lowest_fail == 25 and doc.violations[0].passed_at == 50
    assert doc.points[5].runs[0].early_stop and doc.boundary_evidence is not None


def test_a_file_is_read_tolerantly() -> None:
    obj = json.loads(GOLDEN.read_text(encoding="utf-8"))
    obj["from_a_newer_version"] = 1
    obj["points"][0]["runs"][0]["extra"] = "x"
    del obj["fill_limit"], obj["boundary_evidence"], obj["settings"]["min_prompts"]
    doc = read_search_doc(obj)
    assert doc.fill_limit is None and doc.boundary_evidence is None
    assert doc.settings.min_prompts == 64  # the default
    with pytest.raises(SchemaError, match="boundary"):
        read_search_doc({**obj, "boundary": "nowhere"})


def test_an_odd_why_or_knee_does_not_hide_the_search() -> None:
    # A why or a knee this version cannot read (hand-edited, or a newer writer's shape) is
    # absent, as a point file's why is; the boundary and the points are still the search's.
    obj = json.loads(GOLDEN_WHYS.read_text(encoding="utf-8"))
    obj["boundary_why"]["confidence"] = 3
    obj["knee"]["ttft"]["why"]["missing"] = "everything"
    obj["knee"]["tpot"]["why"]["from_a_newer_version"] = {"x": 1}
    doc = read_search_doc(obj)
    assert doc.boundary_why is None and doc.knee["ttft"] is None
    tpot = doc.knee["tpot"]
    assert tpot is not None and tpot.why is not None and tpot.why.cause == "bandwidth"
    assert doc.boundary.lowest_fail == 25 and len(doc.points) == 11
    assert read_search_doc({**obj, "knee": "none"}).knee == {}
    # A file from before the knees kept their sharpness, or their why.
    obj["knee"]["tpot"] = {"load": 8, "value": 40.0}
    knee = read_search_doc(obj).knee["tpot"]
    assert knee is not None and knee.sharpness is None and knee.why is None
