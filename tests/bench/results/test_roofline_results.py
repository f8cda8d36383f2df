"""The roofline context through sweeps: floor and MBU per point in files, sweep.csv and report."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from app.bench.http.record import RequestRecord
from app.bench.load.arrivals import LoadOutcome
from app.bench.results.point_result import SUMMARY_COLUMNS
from app.bench.results.read import load_result, load_results
from app.bench.results.sweep_csv import sweep_csv_text
from app.bench.results.write import roofline_block, write_point_json
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_blocks import ServerMetricsBlock, Spread
from app.bench.sweep.plan import PointSpec
from app.bench.sweep.roofline_point import check_roofline, roofline_batch
from app.commands.report import format_table
from app.roofline.catalog import CatalogError
from app.roofline.context import RooflineContext
from tests.documents import document
from tests.event_lines import wire_event

REFERENCE = {
    "gpu_id": "rtx3090",
    "model_id": "qwen2.5-7b",
    "fmt": "bf16",
    "kv_dtype": "fp16",
    "context": 512,
}
# Qwen2.5-7B: 7,615,616,512 parameters less the 152,064 x 3,584 input embedding (gathered,
# not read) = 7,070,619,136 read per step x 2 bytes; KV 28 layers x 2 x 4 heads x 128 x 2 B
# = 57,344 B per token, x 512 tokens = 29,360,128 B per sequence. RTX 3090: 936 GB/s.
BYTES_B1 = 14_170_598_400
BYTES_B4 = 14_258_678_784
BYTES_B8 = 14_376_119_296
MS = 1_000_000


def test_block_for_the_reference_case() -> None:
    context = check_roofline(REFERENCE)
    block = to_json_obj(roofline_block(context, 1.0, "concurrency", 19.7))
    assert {k: block[k] for k in REFERENCE} == REFERENCE
    assert block["batch"] == 1.0 and block["batch_source"] == "concurrency"
    assert block["bytes_per_step"] == BYTES_B1
    assert block["floor_tpot_ms"] == pytest.approx(15.139528, abs=1e-6)  # BYTES_B1 / 936e9
    assert block["mbu"] == pytest.approx(0.768504, abs=1e-6)  # BYTES_B1 / 19.7 ms / 936e9
    # A mean running batch of 7.6 is read at 8 sequences; no TPOT means no MBU.
    block = to_json_obj(roofline_block(context, 7.6, "server_running", None))
    assert block["batch"] == 7.6 and block["bytes_per_step"] == BYTES_B8
    assert block["floor_tpot_ms"] == pytest.approx(15.359102, abs=1e-6)
    assert block["mbu"] is None and block["tpot_p50_ms"] is None
    with pytest.raises(CatalogError):  # the point then records its context alone
        roofline_block(replace(context, gpu_id="nope"), 1.0, "concurrency", 10.0)


def test_context_check_fills_defaults_and_names_the_bad_id() -> None:
    partial = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "awq-int4", "kv_dtype": "fp8"}
    assert check_roofline(partial) == RooflineContext(**partial, context=512, tensor_parallel=1)
    assert check_roofline({**partial, "tensor_parallel": "2"}).tensor_parallel == 2
    with pytest.raises(ValueError, match="roofline context length 'x' is not a number"):
        check_roofline({**partial, "context": "x"})
    with pytest.raises(ValueError, match="tensor-parallel size must be at least 1"):
        check_roofline({**partial, "tensor_parallel": 0})
    with pytest.raises(ValueError, match="unknown GPU 'rtx9999'"):
        check_roofline({**REFERENCE, "gpu_id": "rtx9999"})
    with pytest.raises(ValueError, match="lacks kv_dtype"):
        check_roofline({k: v for k, v in REFERENCE.items() if k != "kv_dtype"})


def _outcome(*spans_ms: tuple[int, int]) -> LoadOutcome:
    records = [RequestRecord(send_ns=a * MS, end_ns=b * MS, ok=True) for a, b in spans_ms]
    return LoadOutcome(
        records,
        origin_ns=0,
        first_send_ns=min(a for a, _ in spans_ms) * MS,
        last_end_ns=max(b for _, b in spans_ms) * MS,
        cancelled=False,
    )


def test_batch_comes_from_server_then_concurrency_then_little() -> None:
    spans = _outcome((0, 1000), (500, 2000))  # 1.0 s + 1.5 s busy over 2.0 s
    limited = PointSpec(0, math.inf, 4)
    assert roofline_batch(limited, spans, 100, ServerMetricsBlock(running=Spread(7.6, 9))) == (
        7.6,
        "server_running",
    )
    assert roofline_batch(limited, spans, 100, None) == (4.0, "concurrency")
    assert roofline_batch(limited, spans, 100, ServerMetricsBlock()) == (4.0, "concurrency")
    assert roofline_batch(PointSpec(0, math.inf, 16), spans, 8, None) == (8.0, "concurrency")
    # A fixed rate (or no limit): the time-averaged number in flight, 2.5 s / 2.0 s.
    assert roofline_batch(PointSpec(0, 2.0, 4), spans, 100, None) == (1.25, "mean_in_flight")
    assert roofline_batch(PointSpec(0, math.inf, None), spans, 2, None) == (1.25, "mean_in_flight")
    empty = LoadOutcome([], 0, None, None, cancelled=True)
    assert roofline_batch(PointSpec(0, 2.0, None), empty, 2, None) is None


def _file(tmp_path: Path, name: str, roofline: dict | None) -> Path:
    doc = {
        "completed": 4,
        "duration": 2.0,
        "request_rate": "inf",
        "max_concurrency": 4,
        "median_tpot_ms": 19.7,
        "tpotbench": {"roofline": roofline},
    }
    return write_point_json(tmp_path / name, doc)


def test_rows_csv_and_report_carry_floor_and_mbu(tmp_path: Path) -> None:
    # The run id and the partial flag come after them, then the workload columns (each group
    # appended, so older columns keep their place).
    at = SUMMARY_COLUMNS.index("roofline_batch")
    assert SUMMARY_COLUMNS[at : at + 5] == (
        "roofline_batch",
        "floor_tpot_ms",
        "mbu",
        "run",
        "partial",
    )
    assert SUMMARY_COLUMNS[at + 5] == "ttfo_ms"
    _file(
        tmp_path,
        "a_rateinf_conc4.json",
        to_json_obj(roofline_block(check_roofline(REFERENCE), 4, "concurrency", 19.7)),
    )
    _file(tmp_path, "b_rateinf_conc4.json", None)  # a run that chose no GPU
    _file(tmp_path, "c_rateinf_conc4.json", {"gpu": "rtx3090"})  # phase-1 profile dict
    points = load_results([tmp_path])
    rows = [p.summary_row() for p in points]
    assert rows[0]["roofline_batch"] == 4.0
    assert rows[0]["floor_tpot_ms"] == pytest.approx(15.233631, abs=1e-6)  # BYTES_B4 / 936e9
    assert rows[0]["mbu"] == pytest.approx(0.773281, abs=1e-6)  # BYTES_B4 / 19.7 ms / 936e9
    assert all(r[k] is None for r in rows[1:] for k in ("floor_tpot_ms", "mbu"))
    table = list(csv.DictReader(io.StringIO(sweep_csv_text(points))))
    assert table[0]["floor_tpot_ms"].startswith("15.2336") and table[0]["mbu"].startswith("0.7732")
    assert table[1]["floor_tpot_ms"] == "" and table[1]["mbu"] == ""
    lines = format_table(points).splitlines()
    assert lines[0].split()[-3:] == ["floor", "MBU", "note"]
    assert lines[1].split()[-3:] == ["15.23", "77.3%", "-"]
    assert lines[2].split()[-3:] == ["-", "-", "-"]


def _sweep(*extra: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app", "sweep", *extra],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_sweep_records_the_context_and_reports_it(sim, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _sweep(
        *("--base-url", sim.base_url, "--model", "qwen2.5-7b"),
        *("--max-concurrency", "4", "--num-prompts", "4", "--output-len", "8"),
        *("--gpu", "rtx3090", "--roofline-model", "qwen2.5-7b"),
        *("--result-dir", str(out), "--label", "r", "--events", "jsonl", "--disable-tqdm"),
    )
    assert proc.returncode == 0, proc.stderr
    point = load_result(out / "r_rateinf_conc4.json")
    block = document(point)["tpotbench"]["roofline"]
    assert {k: block[k] for k in REFERENCE} == REFERENCE  # --dtype bf16, --kv-dtype fp16 default
    assert (block["batch"], block["batch_source"]) == (4.0, "concurrency")
    assert block["bytes_per_step"] == BYTES_B4
    assert block["floor_tpot_ms"] == pytest.approx(15.233631, abs=1e-6)
    p50 = point.metric("tpot", "median")
    assert block["tpot_p50_ms"] == pytest.approx(p50)
    assert block["mbu"] == pytest.approx(BYTES_B4 / (p50 / 1e3) / 936e9)
    # The simulator plays the reference case (~19.7 ms, MBU ~0.77); a busy machine only makes
    # the measured TPOT slower, so only the upper bound holds on any load.
    assert 0 < block["mbu"] < 0.9
    events = [wire_event(line) for line in proc.stdout.splitlines()]
    [finished] = [e for e in events if e["type"] == "point_finished"]
    assert finished["summary"]["tpotbench"]["roofline"]["bytes_per_step"] == BYTES_B4
    with open(out / "sweep.csv", newline="") as fh:
        [row] = list(csv.DictReader(fh))
    assert float(row["floor_tpot_ms"]) == pytest.approx(15.233631, abs=1e-6)
    assert float(row["mbu"]) == pytest.approx(block["mbu"])
    report = subprocess.run(
        [sys.executable, "-m", "app", "report", str(out), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    [summary] = json.loads(report.stdout)
    assert summary["floor_tpot_ms"] == pytest.approx(15.233631, abs=1e-6)
    assert summary["mbu"] == pytest.approx(block["mbu"])


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--gpu", "rtx9999", "--roofline-model", "qwen2.5-7b"], "unknown GPU 'rtx9999'"),
        (["--gpu", "rtx3090", "--roofline-model", "qwen2.5-7b", "--dtype", "int3"], "'int3'"),
        (["--dtype", "fp8"], "--dtype: the roofline also needs --gpu"),
        (["--gpu", "rtx3090", "--model", "my-served-name"], "name the architecture with"),
    ],
)
def test_bad_roofline_flags_are_one_line_and_exit_2(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    proc = _sweep(*flags, "--base-url", "http://127.0.0.1:9", "--result-dir", str(tmp_path))
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_roofline_model_defaults_to_the_served_model(sim, make_sim, tmp_path: Path) -> None:
    args = ("--max-concurrency", "1", "--num-prompts", "1", "--output-len", "4", "--disable-tqdm")
    proc = _sweep(
        "--base-url", sim.base_url, "--gpu", "rtx3090", "--result-dir", str(tmp_path / "a"), *args
    )
    assert proc.returncode == 0, proc.stderr
    [path] = (tmp_path / "a").glob("*.json")
    assert document(path)["tpotbench"]["roofline"]["model_id"] == "qwen2.5-7b"
    # A served name the catalogue does not know: the run goes on without a roofline, and says why.
    odd = make_sim(served_model_name=["my-finetune"])
    proc = _sweep(
        "--base-url", odd.base_url, "--gpu", "rtx3090", "--result-dir", str(tmp_path / "b"), *args
    )
    assert proc.returncode == 0, proc.stderr
    assert "no roofline for this run" in proc.stderr and "--roofline-model" in proc.stderr
    [path] = (tmp_path / "b").glob("*.json")
    assert not document(path)["tpotbench"].get("roofline")


def test_a_context_without_a_model_waits_for_the_served_one() -> None:
    from app.bench.schema.run_config import RooflineConfig
    from app.commands.sweep_config import roofline_context

    saved = {"gpu_id": "rtx3090", "fmt": "awq-int4", "context": "2048"}
    assert roofline_context(RooflineConfig(tensor_parallel_size=2), saved, None) == (
        RooflineContext("rtx3090", None, "awq-int4", "fp16", 2048, 2),
        [],
    )
    # A number the profile file spoils: the run goes on without a roofline and says why.
    assert roofline_context(RooflineConfig(gpu="rtx3090"), {"context": "many"}, None) == (
        None,
        ["no roofline for this run: roofline context length 'many' is not a number"],
    )
    # The served model completes it (app.commands.sweep._with_model).
    assert roofline_context(RooflineConfig(gpu="rtx3090"), None, "qwen2.5-7b")[0] == (
        RooflineContext("rtx3090", "qwen2.5-7b")
    )
