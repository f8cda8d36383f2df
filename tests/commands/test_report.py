"""`tpotbench report`: files and folders, ours and vLLM's, as a table, CSV or JSON."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

from app.bench.http.record import RequestRecord
from app.bench.metrics.point import compute_point_metrics
from app.bench.results.write import PointInfo, build_result
from app.bench.schema.point_doc import point_json

# Trimmed `vllm bench serve --save-result` and benchmark_serving.py files (their key names).
VLLM_SAMPLE = {
    "backend": "openai-chat",
    "endpoint_type": "openai-chat",
    "model_id": "qwen2.5-7b",
    "num_prompts": 200,
    "request_rate": 4.0,
    "max_concurrency": 16,
    "duration": 75.76,
    "completed": 200,
    "failed": 0,
    "request_throughput": 2.64,
    "output_throughput": 558.58,
    "total_token_throughput": 1209.61,
    "mean_ttft_ms": 127.67,
    "median_ttft_ms": 113.43,
    "p99_ttft_ms": 293.48,
    "median_tpot_ms": 23.87,
    "p99_tpot_ms": 34.38,
}
OLD_SAMPLE = {
    "backend": "vllm",
    "model_id": "m",
    "num_prompts": 300,
    "request_rate": "inf",
    "max_concurrency": None,
    "duration": 36.03,
    "completed": 298,
    "request_goodput:": None,
    "request_throughput": 8.33,
    "output_throughput": 2249.25,
    "median_ttft_ms": 53.0,
}


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def our_result() -> dict:
    ok = RequestRecord(
        send_ns=0,
        first_choice_ns=50_000_000,
        first_token_ns=50_000_000,
        chunk_ns=[50_000_000, 70_000_000],
        end_ns=70_000_000,
        ok=True,
        prompt_len=8,
        output_tokens=2,
    )
    info = PointInfo(
        backend="openai-chat",
        model_id="m",
        endpoint_url="http://h/v1/x",
        api="chat",
        num_prompts=1,
        request_rate=4.0,
        max_concurrency=32,
    )
    return point_json(build_result(info, compute_point_metrics([ok], 0.1)))


def report(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", "report", *args], capture_output=True, text=True, timeout=60
    )


def test_table_json_and_csv_for_a_mixed_folder(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    write_json(folder / "expA_rate4_conc16.json", VLLM_SAMPLE)
    write_json(folder / "old.json", OLD_SAMPLE)
    ours = write_json(tmp_path / "expA_rate4_conc32.json", our_result())
    out_csv = tmp_path / "rows.csv"
    proc = report(str(folder), str(ours), "--csv", str(out_csv))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:5] == ["file", "rate", "conc", "ok", "fail"]
    assert lines[1].split()[:8] == [
        "expA_rate4_conc16.json",
        "4",
        "16",
        "200",
        "0",
        "2.64",
        "558.6",
        "113.4",
    ]
    assert lines[2].split()[:5] == ["old.json", "inf", "-", "298", "2"]
    assert lines[3].startswith("expA_rate4_conc32.json")
    with out_csv.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["source"] for r in rows] == ["vllm", "benchmark_serving", "tpotbench"]
    proc = report(str(folder), "--json")
    rows = json.loads(proc.stdout)
    assert rows[0]["median_ttft_ms"] == 113.43 and rows[1]["request_rate"] == "inf"


def test_bad_inputs_are_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"completed": 1,', encoding="utf-8")
    for args in ([str(bad)], [str(tmp_path / "missing")], [str(tmp_path / "empty_dir")]):
        (tmp_path / "empty_dir").mkdir(exist_ok=True)
        proc = report(*args)
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "bad.json: not valid JSON" in report(str(bad)).stderr


def failed_result() -> dict:
    bad = RequestRecord(send_ns=0, end_ns=10, ok=False, error_kind="http_404", error="HTTP 404")
    info = PointInfo(
        backend="openai-chat",
        model_id="m",
        endpoint_url="http://h/v1/x",
        api="chat",
        num_prompts=1,
        request_rate=4.0,
        max_concurrency=1,
    )
    return point_json(build_result(info, compute_point_metrics([bad], 0.1)))


UNREADABLE = {
    "nan.json": '{"completed": NaN, "duration": 1}',
    "infinity.json": '{"completed": 1, "duration": Infinity}',
    "huge.json": '{"completed": 1, "duration": 1e400}',
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "digits.json": '{"completed": ' + "9" * 5000 + ', "duration": 1}',
    "failures.json": json.dumps({"completed": 1, "duration": 1, "tpotbench": {"failures": 5}}),
    "nokind.json": json.dumps(
        {"completed": 1, "duration": 1, "tpotbench": {"failures": [{"count": 2}]}}
    ),
    "slotwait.json": json.dumps(
        {"completed": 1, "duration": 1, "tpotbench": {"slot_wait_ms": [1, 2]}}
    ),
    "negative.json": '{"completed": -3, "duration": 1}',
}


def test_unreadable_files_are_skipped_with_one_line_each(tmp_path: Path) -> None:
    for name, text in UNREADABLE.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    write_json(tmp_path / "good.json", our_result())
    proc = report(str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == len(UNREADABLE)
    for name in UNREADABLE:
        assert sum(name in line for line in lines) == 1, (name, proc.stderr)
    assert all(line.startswith("tpotbench report: skipped ") for line in lines)
    table = proc.stdout.splitlines()
    assert len(table) == 2 and table[1].startswith("good.json")
    # Nothing readable at all: exit 2, each file named.
    (tmp_path / "good.json").unlink()
    proc = report(str(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("tpotbench report: error: no readable result")


def test_partial_and_failed_points_are_marked_and_show_no_figures(tmp_path: Path) -> None:
    partial = our_result()
    partial["tpotbench"]["cancelled"] = True
    write_json(tmp_path / "a_rate4_conc32.partial.json", partial)
    write_json(tmp_path / "b_rate4_conc1.json", failed_result())
    proc = report(str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    head, first, second = proc.stdout.splitlines()
    assert head.split()[-1] == "note"
    assert first.startswith("a_rate4_conc32.partial.json")
    assert first.endswith("cancelled after 1 of 1")
    assert second.startswith("b_rate4_conc1.json") and second.endswith("no success")
    assert second.split()[7:13] == ["-"] * 6  # TTFT, TPOT, ITL figures: none, not 0
    rows = json.loads(report(str(tmp_path), "--json").stdout)
    assert [r["partial"] for r in rows] == [True, False]
    assert rows[1]["median_ttft_ms"] is None and rows[1]["p99_tpot_ms"] is None
