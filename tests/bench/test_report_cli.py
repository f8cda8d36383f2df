"""`tpotbench report`: files and folders, ours and vLLM's, as a table, CSV or JSON."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

from app.bench.metrics import compute_point_metrics
from app.bench.record import RequestRecord
from app.bench.results import PointInfo, build_result

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
    return build_result(info, compute_point_metrics([ok], 0.1))


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
