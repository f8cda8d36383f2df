"""Per-request rows read the same from our block and from vLLM's --save-detailed arrays."""

from __future__ import annotations

import numpy as np

from app.bench.results.request_rows import request_rows
from app.bench.schema.point_doc import PointDoc, read_point_doc


def _doc_of(document: dict) -> PointDoc:
    """A test's result document typed, as a file of it is read."""
    return read_point_doc(document, strict=False)


def test_vllm_detailed_arrays_and_our_block_give_the_same_rows() -> None:
    vllm = {  # vllm bench serve --save-result --save-detailed: seconds, a failed request as 0
        "completed": 2,
        "duration": 1.0,
        "ttfts": [0.1, 0.0, 0.2],
        "latencies": [0.15, 0.0, 0.21],
        "output_lens": [4, 0, 2],
        "itls": [[0.02, 0.03], [], [0.01]],
        "errors": ["", "boom", ""],
        "start_times": [0.0, 0.1, 0.5],
    }
    ours = {
        "completed": 2,
        "duration": 1.0,
        "itls": vllm["itls"],
        "tpotbench": {
            "requests": {
                "ok": [True, False, True],
                "output_tokens": [4, 0, 2],
                "start_s": [0.0, 0.1, 0.5],
                "ttft_ms": [100.0, None, 200.0],
                "e2el_ms": [150.0, 30.0, 210.0],
            }
        },
    }
    a, b = request_rows(_doc_of(vllm)), request_rows(_doc_of(ours))
    assert a is not None and b is not None
    for name in ("ttft_ms", "e2el_ms", "tpot_ms", "output_tokens", "start_s"):
        assert np.allclose(getattr(a, name), getattr(b, name)), name
    assert a.n == 2 and np.allclose(a.tpot_ms, [50 / 3, 10.0])
    assert a.itls_ms is not None and b.itls_ms is not None
    assert [list(g) for g in a.itls_ms] == [list(g) for g in b.itls_ms] == [[20.0, 30.0], [10.0]]


def test_a_file_without_per_request_data_has_no_rows() -> None:
    assert request_rows(_doc_of({"completed": 3, "duration": 1.0, "mean_ttft_ms": 5.0})) is None
