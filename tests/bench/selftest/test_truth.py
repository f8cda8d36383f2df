"""The chunk server's /truth, typed on both ends: the server writes RequestTruth through the
codec and the self-test reads it back strictly."""

from __future__ import annotations

import json

import pytest

from app.bench.schema.codec import SchemaError
from app.bench.selftest import measure
from app.bench.selftest.truth import RequestTruth, read_truth, truth_json


def test_a_real_step_reads_the_servers_log() -> None:
    with measure.local_server(1.0, 3) as url:
        step = measure.measure_step(url, 2, 3, 1)
        assert (step.requests, step.failed, step.tokens) == (2, 0, 6)
        assert measure._truth(url) == {}  # read once, forgotten


def test_the_wire_form_is_unchanged_and_read_strictly() -> None:
    data = truth_json({"a": RequestTruth(5, [7, 9])})
    assert data == json.dumps({"a": {"recv_ns": 5, "write_ns": [7, 9]}}).encode()
    assert read_truth(data) == {"a": RequestTruth(5, [7, 9])}
    with pytest.raises(SchemaError, match=r"truth\.a\.write_ns\[1\]"):
        read_truth(b'{"a": {"recv_ns": 5, "write_ns": [7, "x"]}}')
