"""Per-request samples read back from result arrays, as vLLM's --save-detailed writes them."""

from __future__ import annotations

import pytest

from app.bench.results.request_samples import request_samples
from app.bench.schema.point_doc import PointDoc, read_point_doc


def _doc_of(document: dict) -> PointDoc:
    """A test's result document typed, as a file of it is read."""
    return read_point_doc(document, strict=False)


def test_failed_requests_placeholders_stay_out_of_the_distributions() -> None:
    s = request_samples(
        _doc_of(
            {
                "input_lens": [10, 20, 5],
                "output_lens": [11, 21, 0],
                "ttfts": [0.1, 0.2, 0.0],
                "itls": [[0.1] * 10, [0.05] * 20, []],
                "latencies": [1.1, 2.2, 0.0],
                "errors": ["", "", "Read timed out"],
            }
        )
    )
    assert s.ok == [True, True, False]
    assert s.ttft_ms == pytest.approx([100.0, 200.0])
    # TPOT = (E2EL - TTFT) / (output tokens - 1), vLLM's definition
    assert s.tpot_ms == pytest.approx([100.0, 100.0])
    assert len(s.itl_ms) == 30 and s.itl_ms[0] == pytest.approx(100.0)
    assert s.e2el_ms == pytest.approx([1100.0, 2200.0])
    assert s.ttft_by_prompt == [(10, pytest.approx(100.0)), (20, pytest.approx(200.0))]
    assert s.e2el_by_output[1] == (21, pytest.approx(2200.0))


def test_latencies_alone_give_e2el_and_mark_failures() -> None:
    s = request_samples(_doc_of({"latencies": [1.5, 0.0, 2.5]}))  # vLLM without --save-detailed
    assert s.ok == [True, False, True]
    assert s.e2el_ms == pytest.approx([1500.0, 2500.0])
    assert s.ttft_ms == [] and s.tpot_ms == [] and s.has_any


def test_garbage_in_arrays_is_skipped_not_fatal() -> None:
    s = request_samples(
        _doc_of({"ttfts": [0.1, "x", None, float("nan")], "itls": [[0.01, "y"], None, 5, []]})
    )
    assert s.ttft_ms == pytest.approx([100.0])
    assert s.itl_ms == pytest.approx([10.0])
    assert request_samples(_doc_of({})).has_any is False
