"""RunContext: frozen, its result files planned once (reading the folder, changing nothing),
and a planned context keeps its plan whatever the folder holds later."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest

from app.bench.http.endpoint import resolve_endpoint
from app.bench.sweep.run_context import ResultExistsError, RunContext


def _context(folder: Path, **overrides: object) -> RunContext:
    values: dict[str, object] = {
        "resolved": resolve_endpoint("http://gpu-box:8000/v1", api="chat"),
        "model": "m",
        "backend": "openai-chat",
        "samples": [],
        "rates": [1.0, 2.0],
        "concurrencies": [4],
        "result_dir": folder,
        "run_id": "20260101-120000-abcd",
    }
    values.update(overrides)
    return RunContext(**values)  # type: ignore[arg-type]


def test_planning_reads_the_folder_and_changes_nothing(tmp_path: Path) -> None:
    context = _context(tmp_path)
    (tmp_path / "openai-chat-20260101-120000_rate1_conc4.json").write_text("{}")
    plan = context.plan_results()
    assert plan.label == "openai-chat-20260101-120000-2"  # an earlier run's name is kept
    assert [p.name for p in plan.targets] == [
        "openai-chat-20260101-120000-2_rate1_conc4.json",
        "openai-chat-20260101-120000-2_rate2_conc4.json",
    ]
    assert context.plan is None  # the context asked is not changed
    with pytest.raises(FrozenInstanceError):
        context.model = "other"  # type: ignore[misc]


def test_a_planned_context_keeps_its_plan(tmp_path: Path) -> None:
    planned = _context(tmp_path).planned()
    assert planned.planned() is planned  # planned once
    assert planned.plan is not None
    first = planned.plan.targets[0]
    first.write_text("{}")  # the folder changes after planning: the run's names do not
    assert planned.path_for(planned.points[0]) == first
    assert replace(planned, model="m2").plan == planned.plan  # a later step keeps it


def test_a_chosen_label_that_exists_is_refused_unless_overwrite(tmp_path: Path) -> None:
    (tmp_path / "mine_rate1_conc4.json").write_text("{}")
    with pytest.raises(ResultExistsError, match="pass --overwrite"):
        _context(tmp_path, label="mine").plan_results()
    plan = _context(tmp_path, label="mine", overwrite=True).plan_results()
    assert plan.targets[0] == tmp_path / "mine_rate1_conc4.json"


def test_the_prefix_cache_resetter_is_made_once_for_a_local_server(tmp_path: Path) -> None:
    local = _context(tmp_path, resolved=resolve_endpoint("http://127.0.0.1:9/v1", api="chat"))
    assert local._resetter is not None and local.resets_prefix_cache
    assert _context(tmp_path)._resetter is None  # a remote server: not reset unless asked
