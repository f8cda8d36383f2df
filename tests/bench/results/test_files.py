"""Result files: our JSON round trip, vLLM's and benchmark_serving.py's files, bad files."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from app import __version__
from app.bench.http.record import RequestRecord
from app.bench.metrics.point import compute_point_metrics
from app.bench.results.naming import point_filename
from app.bench.results.read import ResultFileError, load_result, load_results, point_from_dict
from app.bench.results.sweep_csv import sweep_csv_text
from app.bench.results.write import PointInfo, atomic_write_text, build_result, write_point_json
from app.bench.schema.point_doc import point_json
from app.commands.sweep_console import format_summary
from tests.documents import document

MS = 1_000_000

# What `vllm bench serve --save-result --max-concurrency 16 --request-rate 4` writes (key names
# and units from vllm/benchmarks/serve.py; figures from the field guide's rate 4 run).
VLLM_SAMPLE = {
    "date": "20250601-120000",
    "endpoint_type": "openai-chat",
    "backend": "openai-chat",
    "label": None,
    "model_id": "qwen2.5-7b",
    "tokenizer_id": "/models/qwen2.5-7b-instruct",
    "num_prompts": 200,
    "request_rate": 4.0,
    "burstiness": 1.0,
    "max_concurrency": 16,
    "duration": 75.76,
    "completed": 200,
    "failed": 0,
    "total_input_tokens": 49330,
    "total_output_tokens": 42318,
    "request_throughput": 2.64,
    "request_goodput": None,
    "output_throughput": 558.58,
    "total_token_throughput": 1209.61,
    "latencies": [1.2, 3.4],
    "queue_times": [0.0, 0.01],
    "max_output_tokens_per_s": 702.0,
    "max_concurrent_requests": 16,
    "rtfx": 0.0,
    "mean_ttft_ms": 127.67,
    "median_ttft_ms": 113.43,
    "std_ttft_ms": 40.1,
    "p99_ttft_ms": 293.48,
    "mean_tpot_ms": 23.91,
    "median_tpot_ms": 23.87,
    "std_tpot_ms": 3.2,
    "p99_tpot_ms": 34.38,
    "mean_itl_ms": 23.5,
    "median_itl_ms": 21.0,
    "std_itl_ms": 9.0,
    "p99_itl_ms": 61.2,
}
# The older benchmarks/benchmark_serving.py: no "failed", and its goodput key has a colon.
OLD_SAMPLE = {
    "date": "20250530-203806",
    "backend": "vllm",
    "model_id": "meta-llama/Llama-3.2-3B-Instruct",
    "tokenizer_id": "meta-llama/Llama-3.2-3B-Instruct",
    "best_of": 1,
    "num_prompts": 300,
    "request_rate": "inf",
    "burstiness": 1.0,
    "max_concurrency": None,
    "duration": 36.03,
    "completed": 298,
    "total_input_tokens": 299700,
    "total_output_tokens": 81050,
    "request_throughput": 8.33,
    "request_goodput:": 7.5,
    "output_throughput": 2249.25,
    "total_token_throughput": 10566.33,
    "mean_ttft_ms": 54.58,
    "median_ttft_ms": 53.0,
    "std_ttft_ms": 9.27,
    "p99_ttft_ms": 89.77,
    "mean_tpot_ms": 13.58,
    "median_tpot_ms": 13.51,
    "std_tpot_ms": 0.92,
    "p99_tpot_ms": 17.65,
    "mean_itl_ms": 13.51,
    "median_itl_ms": 12.84,
    "std_itl_ms": 3.84,
    "p99_itl_ms": 34.21,
}


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def crafted_result(**info_overrides: Any) -> dict:
    ok = RequestRecord(
        send_ns=0,
        first_choice_ns=50 * MS,
        first_token_ns=50 * MS,
        chunk_ns=[50 * MS, 70 * MS, 90 * MS],
        end_ns=90 * MS,
        ok=True,
        prompt_len=8,
        output_tokens=3,
        output_tokens_source="usage",
    )
    bad = RequestRecord(
        send_ns=0, end_ns=5 * MS, ok=False, error_kind="http_429", error="HTTP 429: slow down"
    )
    metrics = compute_point_metrics([ok, bad], 0.1, percentiles=(50, 99))
    info = PointInfo(
        backend="openai-chat",
        model_id="m",
        endpoint_url="http://h/v1/chat/completions",
        api="chat",
        num_prompts=2,
        request_rate=4.0,
        max_concurrency=32,
        label="expA",
        percentiles=(50.0, 99.0),
        **info_overrides,
    )
    return point_json(build_result(info, metrics, save_detailed=True))


def test_our_file_round_trips_with_vllm_keys_and_our_block(tmp_path: Path) -> None:
    result = crafted_result()
    path = write_point_json(tmp_path / point_filename("expA", 4.0, 32), result)
    assert path.name == "expA_rate4_conc32.json"
    point = load_result(path)
    assert point.source == "tpotbench"
    assert (point.completed, point.failed, point.max_concurrency) == (1, 1, 32)
    assert point.request_rate == 4.0 and point.label == "expA"
    assert point.metric("ttft", "mean") == pytest.approx(50.0)
    assert point.metric("tpot", "p99") == pytest.approx(20.0)  # (90 - 50) / (3 - 1)
    assert point.metric("itl", "median") == pytest.approx(20.0)
    assert point.output_throughput == pytest.approx(30.0)
    assert point.doc.vllm.ttfts == pytest.approx([0.05, 0.0])
    assert point.doc.vllm.itls[0] == pytest.approx([0.02, 0.02])
    block = document(point)["tpotbench"]
    assert block["schema_version"] == 1 and block["app_version"] == __version__
    assert block["failures"][0]["kind"] == "http_429" and "rate" in block["failures"][0]["fix"]
    assert "roofline" in block and "server_metrics" in block
    row = point.summary_row()
    assert row["failure_kinds"] == "http_429:1" and row["p99_tpot_ms"] == pytest.approx(20.0)


def test_file_names_follow_the_field_guide() -> None:
    assert point_filename("expA", 4.0, 32) == "expA_rate4_conc32.json"
    assert point_filename("expB", math.inf, 8) == "expB_rateinf_conc8.json"
    assert point_filename("x", 0.5, None) == "x_rate0.5_concnone.json"


def test_reads_vllm_bench_serve_and_benchmark_serving_files(tmp_path: Path) -> None:
    new = load_result(write_json(tmp_path / "expA_rate4_conc16.json", VLLM_SAMPLE))
    assert new.source == "vllm"
    assert (new.request_rate, new.max_concurrency, new.completed, new.failed) == (4.0, 16, 200, 0)
    assert new.metric("ttft", "median") == 113.43 and new.metric("tpot", "p99") == 34.38
    assert new.output_throughput == 558.58 and new.max_concurrent_requests == 16
    assert new.request_goodput is None and new.doc.blocks is None

    old = load_result(write_json(tmp_path / "old.json", OLD_SAMPLE))
    assert old.source == "benchmark_serving"
    assert math.isinf(old.request_rate) and old.max_concurrency is None
    assert old.failed == 2  # num_prompts - completed: the old script did not write it
    assert old.request_goodput == 7.5  # from "request_goodput:"
    assert old.metric("itl", "p99") == 34.21
    assert old.summary_row()["request_rate"] == "inf"


def test_folder_with_appended_results(tmp_path: Path) -> None:
    appended = tmp_path / "append.json"
    appended.write_text(json.dumps(VLLM_SAMPLE) + "\n" + json.dumps(OLD_SAMPLE), "utf-8")
    write_json(tmp_path / "b.pytorch.json", [{"benchmark": "side file"}])  # vLLM's, skipped
    (tmp_path / ".expA.json.123.tmp").write_text("{", "utf-8")  # our temp file, skipped
    points = load_results([tmp_path])
    assert [p.source for p in points] == ["vllm", "benchmark_serving"]
    with pytest.raises(ResultFileError, match="holds 2 results"):
        load_result(appended)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"completed": 3, "dur', r"trunc\.json: not valid JSON \(line 1, column 18"),
        ("", r"trunc\.json: the file is empty"),
        ('{"model": "x"}', r"trunc\.json: not a benchmark result"),
        ('{"completed": "many", "duration": 1}', r"trunc\.json: 'completed' is 'many'"),
        ("[1, 2]", r"trunc\.json: expected a JSON object, found list"),
    ],
)
def test_bad_result_files_name_the_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "trunc.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ResultFileError, match=message):
        load_result(path)
    with pytest.raises(ResultFileError, match=r"missing\.json: no such file"):
        load_results([tmp_path / "missing.json"])


def test_atomic_write_keeps_the_old_file_when_the_swap_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "p.json"
    atomic_write_text(target, "old")

    def crash(src: str, dst: str) -> None:  # stands in for a crash between write and rename
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk gone"):
        atomic_write_text(target, "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]  # no temp file left behind
    atomic_write_text(target, "new")
    assert target.read_text() == "new"


def test_summary_block_has_vllms_layout() -> None:
    text = format_summary(point_from_dict(VLLM_SAMPLE))
    lines = text.splitlines()
    assert lines[0] == "============ Serving Benchmark Result ============"
    assert lines[1] == "Successful requests:".ljust(40) + " " + "200".ljust(10)
    assert "Request rate configured (RPS):".ljust(40) + " 4.00" in text
    assert "Output token throughput (tok/s):".ljust(40) + " 558.58" in text
    assert "---------------Time to First Token----------------" in lines
    assert "P99 TPOT (ms):".ljust(40) + " 34.38" in text
    assert lines[-1] == "=" * 50


def test_sweep_csv_has_one_row_per_point(tmp_path: Path) -> None:
    points = load_results(
        [write_json(tmp_path / "a.json", VLLM_SAMPLE), write_json(tmp_path / "b.json", OLD_SAMPLE)]
    )
    lines = sweep_csv_text(points).splitlines()
    assert lines[0].startswith("file,source,label,model,request_rate,max_concurrency,completed")
    assert len(lines) == 3
    model = "meta-llama/Llama-3.2-3B-Instruct"
    assert lines[2].startswith(f"b.json,benchmark_serving,,{model},inf,,298,2,")


def test_a_point_without_success_has_null_figures_and_says_why() -> None:
    bad = RequestRecord(
        send_ns=0, end_ns=5 * MS, ok=False, error_kind="http_404", error="HTTP 404: no model"
    )
    info = PointInfo(
        backend="openai-chat",
        model_id="m",
        endpoint_url="http://h/v1/chat/completions",
        api="chat",
        num_prompts=60,
        request_rate=float("inf"),
        max_concurrency=None,
    )
    result = point_json(build_result(info, compute_point_metrics([bad] * 60, 0.1)))
    # vLLM's keys are all there; the latency figures are null, not a made-up 0.
    for key in ("mean_ttft_ms", "median_tpot_ms", "std_itl_ms", "p99_e2el_ms"):
        assert key in result and result[key] is None
    assert result["completed"] == 0 and result["output_throughput"] == 0.0
    assert result["tpotbench"]["slot_wait_ms"]["mean"] is None
    text = format_summary(point_from_dict(json.loads(json.dumps(result))))
    assert "Mean TTFT (ms):                          –" in text
    assert "P99 TPOT (ms):                           –" in text
    assert "0.00" not in text.split("Mean TTFT")[1].split("TPOT Bench extras")[0]
    assert "no request succeeded: 60 × HTTP 404 not found (fix: The path or model is wrong" in text
