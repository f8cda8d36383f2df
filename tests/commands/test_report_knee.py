"""`tpotbench report` marks the knee of a sweep and each point's SLO verdict, and shows a
search.json found in the folder instead of choking on it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from app.cli import main

LOADS = [1, 2, 4, 8, 16, 32, 64, 128]


def write_points(folder: Path, tpot_p99: list[float], slo_pass: list[bool | None]) -> None:
    for conc, tpot, passed in zip(LOADS, tpot_p99, slo_pass, strict=True):
        doc = {
            "label": "expB",
            "request_rate": "inf",
            "max_concurrency": conc,
            "completed": 100,
            "failed": 0,
            "duration": 10.0,
            "p99_tpot_ms": tpot,
            "median_tpot_ms": tpot / 2,
            "p99_ttft_ms": 100.0 + 50 * max(0.0, math.log2(conc / 32)) * 20,
            "tpotbench": {"slo": {"passed": passed, "checks": []}} if passed is not None else {},
        }
        (folder / f"expB_rateinf_conc{conc}.json").write_text(json.dumps(doc))


def slo_cell(out: str, row: str) -> str:
    """The SLO column of a table row (cells are right-aligned under their header)."""
    end = out.splitlines()[0].index(" SLO") + 4
    return row[:end].split()[-1]


def test_knee_and_slo_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tpot = [20 + max(0.0, math.log2(c / 16)) * 100 for c in LOADS]
    write_points(tmp_path, tpot, [True] * 5 + [False] * 3)
    (tmp_path / "search.json").write_text(
        json.dumps(
            {
                "over": "concurrency",
                "points": [],
                "boundary": {"highest_pass": 16, "lowest_fail": 17, "failed_slos": ["tpot:p99:50"]},
                "monotonic": True,
                "measuring_s": 12.5,
            }
        )
    )
    assert main(["report", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "knee [expB] TPOT p99: concurrency 16 (20.0 ms)" in out
    assert "knee [expB] TTFT p99: concurrency 32" in out
    rows = [line for line in out.splitlines() if line.startswith("expB_")]
    assert [slo_cell(out, row) for row in rows] == ["pass"] * 5 + ["FAIL"] * 3
    assert "Capacity: 16 streams within every SLO; at 17 it fails tpot:p99:50." in out


def test_no_slo_no_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_points(tmp_path, [20.0 + i for i in range(8)], [None] * 8)
    assert main(["report", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("expB_")]
    assert all(slo_cell(out, row) == "-" for row in rows)
    assert "knee [expB] TPOT p99: none" in out
