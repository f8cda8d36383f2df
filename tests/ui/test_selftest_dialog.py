"""Run ▸ Check this machine: the dialog runs a real, short `tpotbench selftest` against its
local server and shows each step and the ceiling, and the result is saved for this machine."""

from __future__ import annotations

import json
import math

from app.bench.selftest.decide import CeilingDoc, Limits, StepResult
from app.bench.selftest.output import SelftestResult, StepLine
from app.bench.selftest.store import MachineFacts
from app.ui.selftest_dialog import SelftestDialog

# Small bounds and limits no machine breaks: the decision is known (2 streams, a lower bound).
SMALL = ["--workers", "0", "--max-streams", "2", "--tokens", "4", "--itl-ms", "2",
         "--requests-per-stream", "1", "--max-ttft-excess-ms", "100000",
         "--max-gap-error-ms", "100000"]  # fmt: skip


def test_check_this_machine_shows_steps_and_the_ceiling(qtbot, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path))
    dialog = SelftestDialog(extra_args=SMALL)
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.finishedResult, timeout=180_000) as blocker:
        dialog.start()
    assert blocker.args[0].results["0"].streams == 2 and dialog.doc is blocker.args[0]
    log = dialog.log.toPlainText().splitlines()
    assert [line.split(":")[0] for line in log] == ["in one process", "in one process"]
    assert "2 streams — TTFT excess p50" in log[1] and log[1].endswith("within the limits")
    assert dialog.outcome.text().startswith("in one process: ceiling at least 2 streams (")
    saved = json.loads((tmp_path / "client_ceiling.json").read_text())
    assert saved["results"]["0"]["streams"] == 2
    assert dialog.start_button.isEnabled() and not dialog.progress.isVisible()


def test_ceiling_lines_say_not_enough_evidence(qtbot) -> None:
    dialog = SelftestDialog()
    qtbot.addWidget(dialog)
    machine = MachineFacts("box-1", "Some CPU", 2, "Linux 6.1", "3.12.3")
    doc = SelftestResult(
        machine,
        {
            "2": CeilingDoc(0, False, None, "limit", "", Limits(), []),
            "0": CeilingDoc(16, False, 95.4, "limit", "", Limits(), []),
        },
        None,
    )
    assert dialog.ceiling_lines(doc) == [
        "2 workers: not enough evidence — even 1 stream broke the limits.",
        "in one process: ceiling 16 streams (95 ms CPU per 1k tokens)",
    ]


def test_a_step_without_figures_shows_dashes(qtbot) -> None:
    dialog = SelftestDialog()
    qtbot.addWidget(dialog)
    empty = StepResult(2, 8, 8, 0, math.nan, math.nan, math.nan, 0.75)
    dialog._show_step(StepLine(workers=2, step=empty, broken=["8 of 8 requests failed"]))
    assert dialog.log.toPlainText() == (
        "2 workers: 2 streams — TTFT excess p50 – ms, gap error p99 – ms, "
        "CPU – ms per 1k tokens: over"
    )
