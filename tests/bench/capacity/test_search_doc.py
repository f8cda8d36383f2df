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


def test_search_json_is_byte_identical_to_the_dict_built_one() -> None:
    assert document_text() == GOLDEN.read_text(encoding="utf-8")


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
