"""A point's completeness, decided in one place: complete, early-stopped, cancelled, partial,
with how many of its requests ran; sweep.csv says it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.bench.results.completeness import Completeness, completeness_of_doc
from app.bench.results.read import load_results, point_from_dict
from app.bench.results.sweep_csv import sweep_csv_text
from app.bench.schema.point_doc import read_point_doc
from tests.point_docs import point_doc


def completeness_of(document: dict[str, Any], path: str = "") -> Completeness:
    """The completeness of a result document as its file is read."""
    doc = read_point_doc(document, strict=False)
    return completeness_of_doc(doc.vllm, doc.typed_blocks, path)


def test_an_early_stopped_point_says_how_far_it_got() -> None:
    point = point_from_dict(point_doc(32, 300.0, planned=48, ran=6, early=True))
    done = point.completeness
    assert (done.state, done.ran, done.planned) == ("early_stopped", 6, 48)
    assert done.text == "early-stopped after 6 of 48" and point.partial
    assert done.reason == "tpot:p99:50: 1 of 4 over"
    row = point.summary_row()
    assert row["partial"] is True and row["completeness"] == "early-stopped after 6 of 48"


def test_an_early_stop_after_the_last_request_dropped_nothing() -> None:
    point = point_from_dict(point_doc(4, 10.0, planned=4, ran=4, early=True))
    assert point.completeness.complete and not point.partial


def test_cancelled_partial_and_complete() -> None:
    cancelled = point_doc(4, 10.0, planned=8, ran=3)
    cancelled["tpotbench"]["cancelled"] = True
    assert completeness_of(cancelled).text == "cancelled after 3 of 8"
    # A file named as a cancel names it even if its block says nothing.
    short = point_doc(4, 10.0, planned=8, ran=3)
    assert completeness_of(short, "x_rateinf_conc4.partial.json").state == "cancelled"
    assert completeness_of(short).text == "partial: 3 of 8 ran"
    assert completeness_of(point_doc(4, 10.0)).text == "complete"
    # benchmark_serving.py wrote no failed count: what did not complete failed, all ran.
    assert completeness_of({"completed": 3, "num_prompts": 4}).complete


def test_sweep_csv_marks_the_fragment(tmp_path: Path) -> None:
    from tests.point_docs import write_curve

    write_curve(tmp_path)
    csv = sweep_csv_text(load_results([tmp_path]))
    header, *rows = csv.splitlines()
    cols = header.split(",")
    by_conc = {r.split(",")[cols.index("max_concurrency")]: r.split(",") for r in rows}
    assert by_conc["32"][cols.index("partial")] == "True"
    assert by_conc["32"][cols.index("completeness")] == "early-stopped after 3 of 48"
    assert by_conc["16"][cols.index("partial")] == "False"
    assert by_conc["16"][cols.index("completeness")] == "complete"
