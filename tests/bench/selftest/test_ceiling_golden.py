"""The client-ceiling file, byte for byte as before it became typed, and every file of that
format still read.

How ceiling_golden.json was produced: at commit 559375b (before this test), with that
commit's code, `store.datetime` replaced by a clock whose now() is 2026-12-05T07:30:15.123456
UTC and `store.machine_facts` by a function returning `MACHINE` below (then a dict of the same
five keys in the same order), the three saves of
`_saves()` were made one after another into one file and the file's text read after each
(a NaN step figure is written as null). The golden is written with `json.dumps(golden,
indent=1, ensure_ascii=False)`. Never regenerate it to make a test pass.
"""

from __future__ import annotations

import datetime
import json
import math
from pathlib import Path

import pytest

from app.bench.selftest import store
from app.bench.selftest.decide import Ceiling, Limits, StepResult

GOLDEN = json.loads((Path(__file__).parent / "ceiling_golden.json").read_text(encoding="utf-8"))
MACHINE = store.MachineFacts("box-1", "Some CPU \u00ae", 2, "Linux 6.1", "3.12.3")


class _FixedClock:
    @staticmethod
    def now(tz: datetime.tzinfo) -> datetime.datetime:
        return datetime.datetime(2026, 12, 5, 7, 30, 15, 123456, tzinfo=tz)


def _steps() -> list[StepResult]:
    return [
        StepResult(1, 4, 0, 128, 0.25, 0.125, 812.5, 0.5),
        StepResult(2, 8, 8, 0, math.nan, math.nan, math.nan, 0.75),
    ]


def _saves() -> list[tuple[str, int, Ceiling]]:
    steps = _steps()
    return [
        (
            "after_first_save",
            0,
            Ceiling(1, 812.5, "limit", Limits(), steps, "8 of 8 requests failed"),
        ),
        ("after_second_mode", 2, Ceiling(4, None, "time", Limits(2.0, 0.75), [])),
        ("after_replace_mode_0", 0, Ceiling(0, None, "max", Limits(), steps[:1])),
    ]


@pytest.fixture
def fixed_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "datetime", _FixedClock)
    monkeypatch.setattr(store, "machine_facts", lambda: MACHINE)


def test_saves_write_the_golden_bytes(tmp_path: Path, fixed_machine: None) -> None:
    path = tmp_path / "client_ceiling.json"
    for name, workers, ceiling in _saves():
        store.save_ceiling(workers, ceiling, path)
        assert path.read_text(encoding="utf-8") == GOLDEN[name], name


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_files_of_this_format_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(store.socket, "gethostname", lambda: "box-1")
    path = tmp_path / "client_ceiling.json"
    path.write_text(GOLDEN[name], encoding="utf-8")
    doc = json.loads(GOLDEN[name])
    for mode, entry in doc["results"].items():
        saved = store.load_ceiling(int(mode), path)
        assert saved == store.SavedCeiling(
            int(mode), entry["streams"], entry["at_least"], entry["date"]
        )


def test_a_saved_file_reads_back_typed_with_its_nan_figures(
    tmp_path: Path, fixed_machine: None
) -> None:
    path = tmp_path / "client_ceiling.json"
    path.write_text(GOLDEN["after_replace_mode_0"], encoding="utf-8")
    doc = store.read_ceiling_file(path)
    assert doc is not None and doc.machine == MACHINE
    assert [s.streams for s in doc.results["0"].steps] == [1]
    path.write_text(GOLDEN["after_second_mode"], encoding="utf-8")
    doc = store.read_ceiling_file(path)
    assert doc is not None and doc.results["2"].limits == Limits(2.0, 0.75)
    failed = doc.results["0"].steps[1]
    assert failed.tokens == 0 and math.isnan(failed.ttft_excess_ms) and failed.wall_s == 0.75
    # saved again unchanged, the file is the same bytes
    store.save_ceiling(2, Ceiling(4, None, "time", Limits(2.0, 0.75), []), path)
    assert path.read_text(encoding="utf-8") == GOLDEN["after_second_mode"]
    path.write_text('{"schema": 1, "machine": "box-1", "results": {}}', encoding="utf-8")
    assert store.read_ceiling_file(path) is None and store.load_ceiling(0, path) is None
