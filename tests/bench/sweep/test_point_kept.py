"""A finished point is never lost: odd /metrics, foreign files in the folder, write errors,
an unwritable folder, and default names that never replace an earlier run."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from app.bench.datasets.prompts import SampleRequest
from app.bench.http.endpoint import resolve_endpoint
from app.bench.results.read import load_result, read_points
from app.bench.sweep.contract import PointFinished, RunError
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.run_context import ResultExistsError, RunContext
from app.bench.sweep.runner import run_sweep
from tests.documents import document

USAGE = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
STREAM = [
    {"choices": [{"index": 0, "delta": {"content": "a"}}]},
    {"choices": [{"index": 0, "delta": {"content": "b"}, "finish_reason": "length"}]},
    {"choices": [], "usage": USAGE},
]
GOOD = (
    "vllm:num_requests_running 1.0\nvllm:num_requests_waiting 0.0\nvllm:kv_cache_usage_perc 0.5\n"
)
# The odd pages seen in the wild: a bucket bound that is no number, a +Inf bucket that
# appears only on a later scrape, a negative block size, an infinite gauge.
ODD_PAGES = [
    GOOD
    + 'vllm:time_to_first_token_seconds_bucket{le="0.1"} 1.0\n'
    + "vllm:time_to_first_token_seconds_count 1.0\nvllm:time_to_first_token_seconds_sum 0.05\n"
    + 'vllm:e2e_request_latency_seconds_bucket{le="abc"} 1.0\n'
    + 'vllm:cache_config_info{block_size="-100000",num_gpu_blocks="100"} 1.0\n',
    GOOD
    + 'vllm:time_to_first_token_seconds_bucket{le="0.1"} 1.0\n'
    + 'vllm:time_to_first_token_seconds_bucket{le="+Inf"} 9.0\n'
    + "vllm:time_to_first_token_seconds_count 9.0\nvllm:time_to_first_token_seconds_sum 0.5\n"
    + "vllm:num_preemptions_total +Inf\n"
    + 'vllm:cache_config_info{block_size="-100000",num_gpu_blocks="100"} 1.0\n',
]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    pages: ClassVar[list[str]] = []
    scrapes = 0

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, body: str, content_type: str) -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/metrics":
            cls = type(self)
            page = cls.pages[min(cls.scrapes, len(cls.pages) - 1)]
            cls.scrapes += 1
            self._send(page, "text/plain; version=0.0.4")
            return
        self._send(json.dumps({"data": [{"id": "odd", "object": "model"}]}), "application/json")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = "".join(f"data: {json.dumps(m)}\n\n" for m in STREAM) + "data: [DONE]\n\n"
        self._send(body, "text/event-stream")


@pytest.fixture
def odd_server() -> Iterator[type[Handler]]:
    handler = type("OddHandler", (Handler,), {"pages": list(ODD_PAGES), "scrapes": 0})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    handler.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    try:
        yield handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


class Errors(SweepObserver):
    """A SweepObserver keeping error messages and finished points (other events ignored)."""

    wants_tokens = False

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.finished: list[str | None] = []

    def error(self, event: RunError) -> None:
        self.errors.append(event.message)

    def point_finished(self, event: PointFinished) -> None:
        self.finished.append(event.path)


def config(url: str, folder: Path, **overrides: Any) -> RunContext:
    values: dict[str, Any] = dict(
        resolved=resolve_endpoint(url, "/v1/chat/completions", "openai-chat"),
        model="odd",
        backend="openai-chat",
        samples=[SampleRequest(f"p{i}", 3, 2, str(i)) for i in range(2)],
        rates=[float("inf")],
        concurrencies=[1, 2],
        result_dir=folder,
        label="odd",
    )
    values.update(overrides)
    return RunContext(**values)


def sweep(cfg: RunContext, observer: Any = None) -> Any:
    return asyncio.run(run_sweep(cfg, [observer or Errors()]))


def test_odd_metrics_pages_drop_series_with_a_warning_and_keep_every_point(
    odd_server: type[Handler], tmp_path: Path
) -> None:
    outcome = sweep(config(odd_server.url, tmp_path, server_metrics=True))  # type: ignore[attr-defined]
    assert [p.name for p in outcome.paths] == ["odd_rateinf_conc1.json", "odd_rateinf_conc2.json"]
    assert odd_server.scrapes >= 2  # the odd pages were read
    block = document(outcome.paths[0])["tpotbench"]["server_metrics"]
    warnings = " | ".join(block["warnings"])
    assert "le='abc' is not a number" in warnings
    assert "block_size=-100000" in warnings
    assert "preemptions_total: value inf" in warnings
    assert "TTFT histogram: buckets or count changed" in warnings
    assert block["running"]["max"] == 1.0  # the good series are kept
    assert "server_ttft_ms" not in block and "max_concurrency" not in block
    assert (tmp_path / "sweep.csv").exists()


def test_foreign_and_corrupt_files_in_the_folder_stop_nothing(
    odd_server: type[Handler], tmp_path: Path
) -> None:
    (tmp_path / "nan.json").write_text('{"completed": NaN, "duration": 1}', encoding="utf-8")
    no_kind = {"completed": 1, "duration": 1.0, "tpotbench": {"failures": [{"count": 2}]}}
    (tmp_path / "nokind.json").write_text(json.dumps(no_kind), encoding="utf-8")
    (tmp_path / "package.json").write_text('{"name": "not a result"}', encoding="utf-8")
    earlier = config(odd_server.url, tmp_path, label="earlier", concurrencies=[1])  # type: ignore[attr-defined]
    sweep(earlier)
    outcome = sweep(config(odd_server.url, tmp_path))  # type: ignore[attr-defined]
    assert len(outcome.paths) == 2
    rows = (tmp_path / "sweep.csv").read_text(encoding="utf-8").splitlines()
    # This run's two points only: not the earlier run's, not the foreign files.
    assert [r.split(",")[0] for r in rows[1:]] == [
        "odd_rateinf_conc1.json",
        "odd_rateinf_conc2.json",
    ]
    run_ids = {document(p)["tpotbench"]["run_id"] for p in outcome.paths}
    assert run_ids == {outcome_run_id(rows)}
    assert run_ids != {document(tmp_path / "earlier_rateinf_conc1.json")["tpotbench"]["run_id"]}


def outcome_run_id(rows: list[str]) -> str:
    header = rows[0].split(",")
    ids = {row.split(",")[header.index("run")] for row in rows[1:]}
    assert len(ids) == 1
    return ids.pop()


def test_a_write_error_names_the_file_and_stops_the_sweep_keeping_the_saved_points(
    odd_server: type[Handler], tmp_path: Path
) -> None:
    # A folder where the second point's file should go: writing it fails like a full disk.
    # The sweep stops there (a folder that refused one file refuses the next; measuring
    # more points only to drop them wastes the user's time) and keeps the first point.
    (tmp_path / "odd_rateinf_conc2.json").mkdir()
    observer = Errors()
    cfg = config(odd_server.url, tmp_path, concurrencies=[1, 2, 4], overwrite=True)  # type: ignore[attr-defined]
    outcome = sweep(cfg, observer)
    assert [p.name for p in outcome.paths] == ["odd_rateinf_conc1.json"]
    assert len(observer.errors) == 1
    assert (
        observer.errors[0].startswith("cannot write ")
        and "odd_rateinf_conc2.json" in (observer.errors[0])
        and "the sweep stopped after 1 of 3 point(s)" in observer.errors[0]
    )
    assert outcome.write_errors == observer.errors
    assert not (tmp_path / "odd_rateinf_conc4.json").exists()
    assert len(read_points(tmp_path / "odd_rateinf_conc1.json")) == 1


def test_default_names_never_replace_an_earlier_run(
    odd_server: type[Handler], tmp_path: Path
) -> None:
    first = config(
        odd_server.url, tmp_path, label=None, concurrencies=[1], run_id="20260101-120000-aaaa"
    )  # type: ignore[attr-defined]
    second = config(
        odd_server.url, tmp_path, label=None, concurrencies=[1], run_id="20260101-120000-bbbb"
    )  # type: ignore[attr-defined]
    a, b = sweep(first).paths[0], sweep(second).paths[0]
    assert a.name == "openai-chat-20260101-120000_rateinf_conc1.json"
    assert b.name == "openai-chat-20260101-120000-2_rateinf_conc1.json"
    assert document(a)["tpotbench"]["run_id"] == "20260101-120000-aaaa"
    assert load_result(a).label is None  # vLLM's "label" key stays what the user gave
    named = config(odd_server.url, tmp_path, label="openai-chat-20260101-120000", concurrencies=[1])  # type: ignore[attr-defined]
    with pytest.raises(ResultExistsError, match="pass --overwrite"):
        sweep(named)
    assert sweep(replace(named, overwrite=True)).paths == [a]


def test_result_files_follow_the_umask(odd_server: type[Handler], tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = sweep(config(odd_server.url, tmp_path, concurrencies=[1])).paths[0]  # type: ignore[attr-defined]
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "sweep.csv").stat().st_mode & 0o777 == 0o644
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left
