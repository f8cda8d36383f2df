"""Each tool's definitions on a hand-worked example of two requests.

R1: TTFT 100 ms, then gaps of 20 ms (1 token) and 30 ms (2 tokens): 4 output tokens, E2EL 150.
R2: TTFT 200 ms, then one gap of 10 ms (1 token): 2 output tokens, E2EL 210.
The run lasted 2 s (6 tokens: 3 tok/s).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from app.bench.metrics.definitions import (
    NEEDS_DETAILED,
    repeated_quantile,
    tool_figures,
)
from app.bench.results.request_rows import request_rows
from app.bench.schema.point_doc import PointDoc, read_point_doc


def _doc_of(document: dict) -> PointDoc:
    """A test's result document typed, as a file of it is read."""
    return read_point_doc(document, strict=False)


def _doc(*, gaps: bool = True, tokens: bool = True) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "completed": 2,
        "duration": 2.0,
        "tpotbench": {
            "requests": {
                "ok": [True, True, False],
                "prompt_tokens": [10, 10, 10],
                "output_tokens": [4, 2, 0],
                "start_s": [0.0, 0.5, 0.6],
                "ttft_ms": [100.0, 200.0, None],
                "tpot_ms": [50 / 3, 10.0, None],
                "e2el_ms": [150.0, 210.0, 40.0],
                "error_kind": [None, None, "http_500"],
            }
        },
    }
    if gaps:
        doc["itls"] = [[0.020, 0.030], [0.010], []]
    if tokens:
        doc["tpotbench"]["itl_tokens"] = [[1, 2], [1], None]
    return doc


def _figures(tool: str, **kwargs: bool) -> dict[str, Any]:
    rows = request_rows(_doc_of(_doc(**kwargs)))
    assert rows is not None
    return {f.key: f for f in tool_figures(tool, rows, 2.0)}


def test_vllm_tpot_per_request_and_itl_per_gap() -> None:
    f = _figures("vllm")
    # TPOT: R1 (150 − 100)/3 = 16.667, R2 (210 − 200)/1 = 10; mean 13.333, median 13.333
    assert f["tpot"].values["mean"] == pytest.approx(40 / 3)
    assert f["tpot"].values["median"] == pytest.approx(40 / 3)
    # ITL: the gaps 20, 30, 10 pooled: mean 20, median 20, p99 = 20 + 0.98 * 10 = 29.8
    assert f["itl"].values["mean"] == pytest.approx(20.0)
    assert f["itl"].values["p99"] == pytest.approx(29.8)
    assert f["output_throughput"].values["mean"] == pytest.approx(3.0)
    assert f["ttft"].values["mean"] == pytest.approx(150.0)


def test_guidellm_tpot_includes_ttft_and_weights_by_tokens() -> None:
    f = _figures("guidellm")
    # E2EL/n: R1 150/4 = 37.5, R2 210/2 = 105; weighted by 4 and 2: (150 + 210)/6 = 60
    # (a request-weighted mean would say 71.25)
    assert f["tpot"].values["mean"] == pytest.approx(60.0)
    # repeated: 37.5 x4, 105 x2 -> median of [37.5]*4 + [105]*2 = 37.5
    assert f["tpot"].values["median"] == pytest.approx(37.5)
    # ITL = vLLM's TPOT weighted by n − 1 (3 and 1): (50 + 10)/4 = 15
    assert f["itl"].values["mean"] == pytest.approx(15.0)
    assert f["itl"].name == "inter_token_latency_ms"


def test_aiperf_itl_is_vllm_tpot_per_request() -> None:
    f = _figures("aiperf")
    assert f["itl"].values["mean"] == pytest.approx(40 / 3)
    assert f["icl"].values["mean"] == pytest.approx(20.0)
    # per user: 1000/16.667 = 60 and 1000/10 = 100 tok/s -> mean 80
    assert f["per_user"].values["mean"] == pytest.approx(80.0)
    assert f["output_throughput"].values["mean"] == pytest.approx(3.0)


def test_sglang_repeats_a_multi_token_chunks_gap_per_token() -> None:
    f = _figures("sglang")
    # R1: 20 (1 token), 30/2 = 15 twice; R2: 10 -> [20, 15, 15, 10]: mean 15, median 15
    assert f["itl"].values["mean"] == pytest.approx(15.0)
    assert f["itl"].values["median"] == pytest.approx(15.0)
    assert f["tpot"].values["mean"] == pytest.approx(40 / 3)


def test_evalscope_averages_and_one_token_replies_count_zero() -> None:
    f = _figures("evalscope")
    assert f["tpot"].values == {"mean": pytest.approx(40 / 3)}
    assert f["itl"].values == {"mean": pytest.approx(20.0)}
    doc = _doc()
    block = doc["tpotbench"]["requests"]
    block["output_tokens"][1] = 1  # R2 a one-token reply: evalscope counts its TPOT as 0
    doc["itls"][1], doc["tpotbench"]["itl_tokens"][1] = [], []
    rows = request_rows(_doc_of(doc))
    assert rows is not None
    figures = {x.key: x for x in tool_figures("evalscope", rows, 2.0)}
    assert figures["tpot"].values["mean"] == pytest.approx(50 / 3 / 2)
    vllm = {x.key: x for x in tool_figures("vllm", rows, 2.0)}
    assert vllm["tpot"].values["mean"] == pytest.approx(50 / 3)


def test_without_gaps_the_gap_figures_say_what_they_need() -> None:
    f = _figures("vllm", gaps=False)
    assert f["itl"].missing == NEEDS_DETAILED and not f["itl"].values
    assert f["tpot"].values  # TPOT needs only the per-request block
    # R1's 2-token chunk cannot be split without counts: SGLang's OpenAI backends then keep
    # one ITL per chunk, as vLLM: [20, 30, 10]
    g = _figures("sglang", tokens=False)
    assert g["itl"].values["mean"] == pytest.approx(20.0) and g["itl"].weighting == "per chunk gap"


def test_repeated_quantile_matches_numpy_on_the_repeated_array() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(size=30)
    weights = rng.integers(0, 5, size=30)
    for q in (0.0, 0.3, 0.5, 0.99, 1.0):
        want = np.quantile(np.repeat(values, weights), q)
        assert repeated_quantile(values, weights.astype(float), q) == pytest.approx(want)
