"""Every field of every typed block reaches the file, the event and the window unchanged, with
no edit but the field itself: found by reflection, so a field added to a block is covered the
day it is added.

For every dataclass field of `PointBlocks`, recursively, a distinctive value (each field its
own number or text); the document written through the one writer to a real file and read back
as the Results tab reads files; the same document as a `point_finished` line, decoded strictly
as the window decodes the worker's stdout; the decoded event fed to a real ResultsPanel (its
PointResult and the row its table and curves read) and a sweep run model (the row its charts
read), offscreen.
"""

from __future__ import annotations

import dataclasses
import itertools
import shutil
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from app.bench.results.read import load_result
from app.bench.results.write import write_point_doc
from app.bench.schema.point_blocks import PointBlocks
from app.bench.schema.point_doc import PointDoc, VllmKeys
from app.bench.sweep.contract import PointFinished, encode
from app.bench.sweep.event_decode import decode
from app.ui.panels.results.panel import ResultsPanel
from app.ui.panels.sweep.run_model import SweepRun

GOLDEN = Path(__file__).parents[1] / "bench" / "schema" / "point_golden"


def distinctive(tp: Any, counter: itertools.count[int]) -> Any:
    """A value of type `tp` unlike any other this call gives (dataclasses filled field by
    field, every optional one set)."""
    n = next(counter)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(
            **{
                f.name: distinctive(hints[f.name], counter)
                for f in dataclasses.fields(tp)
                if f.init
            }
        )
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return args[0]
    if origin is typing.Union or origin is types.UnionType:
        return distinctive(next(a for a in args if a is not type(None)), counter)
    if origin is tuple:
        return (distinctive(args[0], counter),)
    if origin is list:
        return [distinctive(args[0], counter)]
    if origin is dict or origin is Mapping:
        return {f"key{n}": distinctive(args[1], counter)}
    if tp is bool:
        return True  # every bool of a block defaults to False or None
    if tp is int:
        return 1000 + n
    if tp is float:
        return n + 0.25
    if tp is str:
        return f"text{n}"
    if tp is Any:
        return {"any": n}
    raise TypeError(f"no distinctive value for {tp!r}")


def every_field(cls: type, prefix: str = "") -> list[str]:
    """The dotted names of every dataclass field under `cls`."""
    hints = typing.get_type_hints(cls)
    names = []
    for f in dataclasses.fields(cls):
        names.append(prefix + f.name)
        inner = [hints[f.name], *typing.get_args(hints[f.name])]
        inner += [a for t in list(inner) for a in typing.get_args(t)]
        for t in inner:
            if isinstance(t, type) and dataclasses.is_dataclass(t):
                names += every_field(t, f"{prefix}{f.name}.")
    return names


def test_every_block_field_reaches_the_file_the_event_and_the_window(qtbot, tmp_path) -> None:
    blocks = distinctive(PointBlocks, itertools.count())
    assert isinstance(blocks, PointBlocks)
    assert len(every_field(PointBlocks)) > 150  # the reflection walked the whole tree
    doc = PointDoc(
        VllmKeys(request_rate="inf", max_concurrency=4, num_prompts=8, completed=8, failed=0),
        {"median_tpot_ms": 20.5, "p99_tpot_ms": 30.25},
        blocks,
        {"requests": {"ok": [True] * 8}},
    )
    root = tmp_path / "results"
    run = root / "run"
    run.mkdir(parents=True)
    shutil.copy(GOLDEN / "rich_rateinf_conc4.json", run / "run_rateinf_conc2.json")
    path = write_point_doc(run / "run_rateinf_conc4.json", doc)

    # The file, read as the Results tab reads a folder.
    assert load_result(path).blocks == blocks
    # The event, decoded strictly as the window decodes the worker's stdout.
    event = decode(encode(PointFinished(0, str(path), doc)))
    assert isinstance(event, PointFinished) and isinstance(event.summary, PointDoc)
    assert event.summary.blocks == blocks
    # The window: the Results tab's point from the event, the sweep tab's charts' summary.
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(root)
    qtbot.waitUntil(lambda: panel.listing is not None and not panel._scanning)
    assert panel.add_point(event.path, event.summary)
    [joined] = [p for r in panel.runs for p in r.points if p.path == path]
    assert joined.blocks == blocks
    # The rows the Results tab's table and curves draw, and the sweep tab's charts' row.
    [shown] = [p for r in panel.runs for p in r.series().points if p.path == str(path)]
    assert shown.blocks == blocks
    charts = SweepRun(lambda: 0.0).point_finished(event)
    assert charts.blocks == blocks
