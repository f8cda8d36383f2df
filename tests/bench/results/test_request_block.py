"""Every result file carries per-request data (tpotbench.requests, ITL histogram), request
events carry the prompt length, and request_samples reads them back without --save-detailed."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.bench.datasets.prompts import SampleRequest
from app.bench.results.request_block import ITL_EDGES_MS, itl_histogram
from app.bench.results.request_samples import request_samples
from app.bench.schema.codec import from_json_obj, to_json_obj
from app.bench.schema.point_doc import PointDoc, read_point_doc
from app.bench.schema.request_arrays import RequestEntries
from app.bench.sweep.contract import RequestDone
from app.bench.sweep.runner import run_sweep
from tests.bench.sweep.test_runner import CraftedHandler, QuietServer, Recorder, config_for


def _doc_of(document: dict) -> PointDoc:
    """A test's result document typed, as a file of it is read."""
    return read_point_doc(document, strict=False)


class SometimesBroken(CraftedHandler):
    """The crafted stream, except a prompt with 'break' gets one token and a dropped stream."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if b"break" not in body:
            self.headers.replace_header("Content-Length", "0")
            self.rfile = _Empty()
            return super().do_POST()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        chunk = {"choices": [{"index": 0, "delta": {"content": "Hel"}}]}
        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True  # no [DONE]: the stream ends early


class _Empty:
    def read(self, _n: int) -> bytes:
        return b""


@pytest.fixture
def broken_server() -> Iterator[str]:
    server = QuietServer(("127.0.0.1", 0), SometimesBroken)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_histogram_bins_are_fixed_and_clip_to_the_ends() -> None:
    counts = itl_histogram([0.001, 20.0, 20.5, 1e9, float("nan")])
    assert len(counts) == len(ITL_EDGES_MS) - 1
    assert sum(counts) == 4 and counts[0] == 1 and counts[-1] == 1


def test_result_file_has_every_request_without_save_detailed(
    broken_server: str, tmp_path: Path
) -> None:
    samples = [SampleRequest(f"prompt {i}", 3, 5, str(i)) for i in range(3)]
    samples.append(SampleRequest("please break", 7, 5, "3"))
    recorder = Recorder()
    config = config_for(broken_server, tmp_path, samples=samples, save_detailed=False)
    outcome = asyncio.run(run_sweep(config, [recorder]))
    doc: dict[str, Any] = json.loads(outcome.paths[0].read_text())
    assert "ttfts" not in doc and "itls" not in doc  # vLLM's detailed keys stay opt-in
    block = doc["tpotbench"]["requests"]
    assert sorted(block) == sorted(
        [
            "ok",
            "prompt_tokens",
            "output_tokens",
            "start_s",
            "ttft_ms",
            "tpot_ms",
            "e2el_ms",
            "error_kind",
        ]
    )
    assert all(len(v) == 4 for v in block.values())
    # The block is RequestEntries as written: it reads back strictly, column for column.
    assert to_json_obj(from_json_obj(RequestEntries, block)) == block
    assert block["ok"].count(False) == 1
    bad = block["ok"].index(False)
    assert block["ttft_ms"][bad] is None and block["tpot_ms"][bad] is None
    assert block["e2el_ms"][bad] > 0  # when it failed
    assert block["error_kind"][bad]
    good = [i for i, ok in enumerate(block["ok"]) if ok]
    assert [block["prompt_tokens"][i] for i in good] == [11, 11, 11]  # usage, not dataset
    assert [block["output_tokens"][i] for i in good] == [5, 5, 5]
    for i in good:  # vLLM's TPOT from the same numbers
        tpot = (block["e2el_ms"][i] - block["ttft_ms"][i]) / 4
        assert block["tpot_ms"][i] == pytest.approx(tpot, abs=1e-3)
    hist = doc["tpotbench"]["itl_histogram"]
    assert len(hist["edges_ms"]) == len(hist["counts"]) + 1
    assert list(hist) == ["edges_ms", "counts"]  # the fixed bins, as every file holds them
    assert (
        hist["edges_ms"] == [round(e, 6) for e in ITL_EDGES_MS] and hist["edges_ms"][1] == 0.01122
    )
    assert sum(hist["counts"]) == 3 * 3  # three messages after the first, per good request

    # Live: each request event names its prompt length; a failure says when it failed.
    events = [event for _, event in recorder.calls if isinstance(event, RequestDone)]
    assert sorted(e.prompt_tokens or 0 for e in events) == [7, 11, 11, 11]
    failed = [e for e in events if not e.ok]
    assert len(failed) == 1 and (failed[0].e2el_ms or 0) > 0

    # Read back: the same samples a --save-detailed file gives, plus the failure's dot.
    s = request_samples(_doc_of(doc))
    assert s.ok.count(False) == 1 and s.failed == 1
    assert len(s.ttft_ms) == len(s.tpot_ms) == len(s.e2el_ms) == 3
    assert [p for p, _ in s.ttft_by_prompt] == [11, 11, 11]
    assert len(s.failed_by_prompt) == 1 and s.failed_by_prompt[0][0] == 7
    assert sum(s.itl_counts) == 9 and len(s.itl_edges_ms) == len(ITL_EDGES_MS)
    assert s.has_any
