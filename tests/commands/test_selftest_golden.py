"""`tpotbench selftest`'s --json document, its --jsonl lines and its progress on stderr, byte
for byte as before they became typed.

How selftest_golden.json was produced: from the tree of commit 559375b (`git archive 559375b
app`), with that tree first on PYTHONPATH: `selftest._progress(2, jsonl)` called with the two
steps of `STEPS` below (the second with ["8 of 8 requests failed"]), its stdout and stderr
kept, for jsonl False and True; and the document run() printed at that commit, `{"machine":
MACHINE as a dict, "results": {str(w): c.to_json() ...} for `RESULTS`, "saved_to": ...}`,
written as run() wrote it (`json.dumps(plain(doc), indent=2 or None, allow_nan=False)`, with
"kind": "result" first for --jsonl), saved_to None and "/cfg/client_ceiling.json". The file is
written with `json.dumps(golden, indent=1, ensure_ascii=False)`. Never regenerate it to make a
test pass.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import pytest

import app.commands.selftest as selftest
from app.bench.schema.codec import SchemaError
from app.bench.selftest import store
from app.bench.selftest.decide import Ceiling, Limits, StepResult
from app.bench.selftest.output import SelftestResult, StepLine, read_line

GOLDEN = json.loads((Path(__file__).parent / "selftest_golden.json").read_text(encoding="utf-8"))
MACHINE = store.MachineFacts("box-1", "Some CPU \u00ae", 2, "Linux 6.1", "3.12.3")
STEPS = [
    StepResult(1, 4, 0, 128, 0.25, 0.125, 812.5, 0.5),
    StepResult(2, 8, 8, 0, math.nan, math.nan, math.nan, 0.75),
]
RESULTS = {
    0: Ceiling(1, 812.5, "limit", Limits(), STEPS, "8 of 8 requests failed"),
    2: Ceiling(4, None, "time", Limits(2.0, 0.75), []),
}


@pytest.mark.parametrize("jsonl", [False, True])
def test_progress_is_the_golden_bytes(jsonl: bool) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        show = selftest._progress(2, jsonl)
        show(STEPS[0], [])
        show(STEPS[1], ["8 of 8 requests failed"])
    assert {"stdout": out.getvalue(), "stderr": err.getvalue()} == GOLDEN[f"progress_jsonl_{jsonl}"]


@pytest.mark.parametrize("saved", [None, Path("/cfg/client_ceiling.json")])
def test_result_is_the_golden_bytes(monkeypatch: pytest.MonkeyPatch, saved: Path | None) -> None:
    monkeypatch.setattr(selftest, "machine_facts", lambda: MACHINE)
    result = selftest._result(RESULTS, saved)
    assert result.json_text(line=False) == GOLDEN[f"json_saved_{saved is not None}"]
    assert result.json_text(line=True) == GOLDEN[f"jsonl_saved_{saved is not None}"]


def test_the_lines_read_back_as_they_were_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """The --jsonl lines are the codec's: the window reads each back into its type (a step's
    NaN figures as null and NaN again), the golden result line too; anything else is no line."""
    line = read_line(StepLine(workers=2, step=STEPS[1], broken=["x"]).json_text())
    assert isinstance(line, StepLine)
    assert line.workers == 2 and line.broken == ["x"] and math.isnan(line.step.gap_error_p99_ms)
    result = read_line(GOLDEN["jsonl_saved_True"])
    assert isinstance(result, SelftestResult)
    monkeypatch.setattr(selftest, "machine_facts", lambda: MACHINE)
    assert result == selftest._result(RESULTS, Path("/cfg/client_ceiling.json"))
    assert result.results["0"].streams == 1 and result.results["2"].cpu_ms_per_1k is None
    assert read_line("") is None and read_line('{"kind": "note"}') is None
    with pytest.raises(SchemaError, match=r"^selftest\.step\.step\.streams: must be a whole"):
        read_line('{"kind": "step", "workers": 0, "step": {"streams": "x"}, "broken": []}')
