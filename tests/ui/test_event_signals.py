"""An event's fields are declared once, on its class: a field added there reaches the stream's
line, the decoded object and the window's signal without another edit anywhere."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import pytest
from PySide6.QtCore import Signal

from app.bench.schema.codec import wire
from app.bench.schema.run_config import RunConfig
from app.bench.sweep import event_decode
from app.bench.sweep.contract import EVENT_CLASSES, Progress, RunError, RunFinished, encode
from app.profiles import Target
from app.ui.run_process import RunProcess, signal_name


@dataclass(frozen=True, slots=True)
class ProgressPlus(Progress):
    """Progress with two fields more, as a later version might add them."""

    queue_depth: int = 0
    slot_wait_ms: float | None = field(default=None, metadata=wire(digits=1))


def test_every_event_has_its_signal_named_after_its_kind() -> None:
    for cls in EVENT_CLASSES:
        if cls is not RunError:  # its sentence goes out as errorMessage(str)
            assert isinstance(getattr(RunProcess, signal_name(cls.kind)), Signal), cls
    assert signal_name("point_finished") == "pointFinished"
    assert signal_name("request") == "request"


def test_a_field_added_to_an_event_reaches_the_line_the_object_and_the_window(
    qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(event_decode.EVENT_BY_KIND, "progress", ProgressPlus)
    event = ProgressPlus(0, 3, 1, 10, 2, 1.23456, 99.999, queue_depth=7, slot_wait_ms=12.345)
    line = encode(event)
    assert line == (
        '{"type":"progress","point":0,"completed":3,"failed":1,"total":10,"in_flight":2,'
        '"elapsed_s":1.235,"output_tok_s":100.0,"queue_depth":7,"slot_wait_ms":12.3}\n'
    )
    decoded = event_decode.decode(line)
    assert decoded == ProgressPlus(0, 3, 1, 10, 2, 1.235, 100.0, queue_depth=7, slot_wait_ms=12.3)
    assert encode(decoded) == line

    worker = RunProcess()
    received: list[object] = []
    worker.progress.connect(received.append)
    script = f"import sys; sys.stdout.write({line!r} + {encode(RunFinished(False, (), None))!r})"
    target = Target(
        profile_name="t", base_url="http://127.0.0.1:9", api="chat", model="m", headers={}
    )
    with qtbot.waitSignal(worker.stopped, timeout=10_000):
        worker.start(RunConfig(), target, argv=[sys.executable, "-c", script])
    assert received == [decoded]
    assert worker.bad_lines == 0
