"""The load says when it did not happen: a closed-loop point that never reached its
concurrency, sends that fell behind their schedule, a saturated client. The limits on hand-made
documents, then the issue's two cases against the simulator (small: few prompts, few tokens)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from app.bench.datasets.mooncake import default_trace_path
from app.bench.results.load_warnings import LATENESS_FLOOR_MS, warnings_of
from app.bench.results.load_warnings import check_load as check_doc
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_doc import read_point_doc
from app.cli import main
from tests.documents import document
from tests.point_docs import point_doc


def check_load(document: dict[str, Any]) -> list[Any]:
    """The checks on a hand-made document, typed as its file reads."""
    return check_doc(read_point_doc(document, strict=False))


def _doc(**top: Any) -> dict[str, Any]:
    doc = point_doc(64, 20.0, planned=200)
    doc.update(top)
    return doc


def test_concurrency_target_and_its_limit() -> None:
    # 32 prompts for 64 streams: never more than 32 in flight, whatever the peak says.
    (w,) = check_load(_doc(num_prompts=32, max_concurrent_requests=32))
    assert (w.kind, w.value, w.limit) == ("concurrency_not_reached", 32, 64)
    assert w.text.startswith("Concurrency 64 was never reached: only 32 prompts for 64 streams")
    # Enough prompts, yet the peak stayed at half the target.
    (w,) = check_load(_doc(max_concurrent_requests=32))
    assert (w.template, w.value, w.limit) == ("concurrency_peak", 32, 58)  # ceil(0.9 x 64)
    assert check_load(_doc(max_concurrent_requests=58)) == []  # within the stated limit
    # At a finite rate the concurrency is a cap, not a target.
    assert check_load(_doc(request_rate=4.0, max_concurrent_requests=3)) == []


def _late(rate: float, p99_ms: float, wait_p99_ms: float, cap: int | None) -> dict[str, Any]:
    doc = point_doc(cap or 1, 20.0, planned=60)
    doc.update(request_rate=rate, max_concurrency=cap, max_concurrent_requests=cap)
    block = doc["tpotbench"]
    block["schedule_lateness_ms"] = {"count": 60, "late": 44, "p99_ms": p99_ms}
    block["slot_wait_ms"] = {"p99": wait_p99_ms}
    return doc


def test_arrival_lateness_limit_is_one_mean_gap_at_least_the_floor() -> None:
    # Rate 2: the mean gap is 500 ms, the limit.
    assert check_load(_late(2.0, 499.0, 0.0, None)) == []
    (w,) = check_load(_late(2.0, 501.0, 0.0, None))
    assert (w.kind, w.template, w.limit) == ("arrivals_late", "arrivals_client", 500.0)
    # Rate 100: a 10 ms gap, but the floor holds.
    assert check_load(_late(100.0, LATENESS_FLOOR_MS - 1, 0.0, None)) == []
    # The cap held the sends: waiting for a slot is most of the lateness.
    (w,) = check_load(_late(2.0, 20_000.0, 19_000.0, 1))
    assert w.template == "arrivals_cap" and "44 of 60 sends were late, p99 20.00 s" in w.text
    # Rate inf has no schedule: lateness there is only slot wait.
    assert check_load(_late(float("inf"), 20_000.0, 19_000.0, None)) == []


def test_a_saturated_client_is_named_with_the_why_thresholds() -> None:
    doc = _doc(max_concurrent_requests=64)
    doc["tpotbench"]["client"] = {"cpu_share": 0.97, "loop_lag_ms": {"median": 3.0}}
    (w,) = check_load(doc)
    assert (w.kind, w.value, w.limit) == ("client_saturated", 0.97, 0.9)
    doc["tpotbench"]["client"] = {"cpu_share": 0.3, "loop_lag_ms": {"median": 45.0}}
    (w,) = check_load(doc)
    assert w.template == "client_lag" and w.value == 45.0


def test_stored_warnings_round_trip_and_old_files_are_checked_on_read() -> None:
    doc = _doc(num_prompts=32, max_concurrent_requests=32)
    assert doc["tpotbench"].get("load_warnings") is None  # written before the checks existed
    (w,) = warnings_of(read_point_doc(doc, strict=False))
    doc["tpotbench"]["load_warnings"] = [to_json_obj(w.block())]
    (again,) = warnings_of(read_point_doc(doc, strict=False))
    assert again == w


def _rows(folder: Path) -> dict[str, dict[str, str]]:
    with (folder / "sweep.csv").open(encoding="utf-8") as f:
        return {row["max_concurrency"]: row for row in csv.DictReader(f)}


def test_experiment_b_with_fewer_prompts_than_streams_warns_everywhere(
    sim, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Experiment B's mistake in small: 4 prompts at concurrency 2, 8 and 16.
    argv = ["sweep", "--base-url", sim.base_url, "--request-rate", "inf"]
    argv += ["--max-concurrency", "2,8,16", "--num-prompts", "4", "--output-len", "4"]
    argv += ["--label", "expB", "--disable-tqdm", "--result-dir", str(tmp_path)]
    assert main(argv) == 0
    err = capsys.readouterr().err

    def target_warnings(conc: int) -> list[dict[str, Any]]:
        # Only this check: the simulator shares this process, so on a busy machine the client
        # may also be named saturated (its CPU share counts the simulator's work).
        block = document(tmp_path / f"expB_rateinf_conc{conc}.json")["tpotbench"]
        return [w for w in block["load_warnings"] if w["kind"] == "concurrency_not_reached"]

    for conc in (8, 16):
        (w,) = target_warnings(conc)
        assert (w["value"], w["limit"]) == (4, conc)
        assert f"only 4 prompts for {conc} streams" in w["text"]
        assert f"Load warning (rate inf, concurrency {conc}): Concurrency {conc}" in err
        assert "only 4 prompts" in _rows(tmp_path)[str(conc)]["load_warnings"]
    assert target_warnings(2) == []
    assert "only 4 prompts" not in _rows(tmp_path)["2"]["load_warnings"]
    # Said again at the end, after the last point.
    recap = err[err.index("point(s) did not run the load they name") :]
    assert "rate inf, concurrency 8: Concurrency 8" in recap
    assert "rate inf, concurrency 16: Concurrency 16" in recap


def test_a_trace_replay_whose_sends_fell_behind_says_so(
    sim, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The first 12 requests of the trace at 10x through one slot: each request takes longer
    # than the trace's gaps, so the sends fall further and further behind.
    lines = default_trace_path().read_text(encoding="utf-8").splitlines(keepends=True)[:12]
    trace = tmp_path / "head.jsonl"
    trace.write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "out"
    argv = ["sweep", "--base-url", sim.base_url, "--backend", "openai"]
    argv += ["--dataset-name", "mooncake", "--dataset-path", str(trace), "--trace-speedup", "10"]
    argv += ["--max-concurrency", "1", "--output-len", "8", "--disable-tqdm"]
    argv += ["--result-dir", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    (path,) = out.glob("*.json")
    block = document(path)["tpotbench"]
    (w,) = [w for w in block["load_warnings"] if w["kind"] == "arrivals_late"]
    assert w["template"] == "arrivals_cap"
    assert w["value"] == block["schedule_lateness_ms"]["p99_ms"] > w["limit"] >= 50.0
    assert "Load warning: Arrivals fell behind their schedule" in captured.out
    assert "Load warnings: 1 point(s) did not run the load they name" in captured.err
    (row,) = _rows(out).values()
    assert "Arrivals fell behind their schedule" in row["load_warnings"]
