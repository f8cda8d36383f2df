"""The window's drawing queue: pieces of drawing run one per turn of the event loop (a paint and
other timers answered between two), in the order posted; an owner's pieces taken back when a
newer drawing supersedes them, a deleted owner's dropped; none lost to a hidden widget."""

from __future__ import annotations

import itertools

import shiboken6
from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QWidget

from app.ui.plots.drawing_queue import DrawingQueue, drawing_queue


class _Painted(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def paintEvent(self, event: QPaintEvent) -> None:
        self.paints += 1


def test_one_piece_per_turn_with_paints_and_timers_between(qtbot) -> None:
    """Pieces of two owners, posted at once: each runs on a turn of its own (a 0 ms timer that
    fires once a pass of the event loop ticked between any two) and a paint asked for by one
    piece comes before the next (separate 0 ms timers ran back to back, then the paint)."""
    widget = _Painted()
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    queue = DrawingQueue()
    turns = [0]
    ticker = QTimer()
    ticker.setInterval(0)
    ticker.timeout.connect(lambda: turns.__setitem__(0, turns[0] + 1))
    ticker.start()
    seen: list[tuple[int, int]] = []  # (turn, paints) as each piece began

    def piece() -> None:
        seen.append((turns[0], widget.paints))
        widget.update()

    first, second = QObject(), QObject()
    for _ in range(4):
        queue.post(first, piece)
        queue.post(second, piece)
    qtbot.waitUntil(lambda: len(seen) == 8)
    ticker.stop()
    assert all(b[0] > a[0] for a, b in itertools.pairwise(seen))
    assert all(b[1] > a[1] for a, b in itertools.pairwise(seen))
    assert len(queue) == 0


def test_pieces_run_in_the_order_posted_and_a_cancelled_owners_never(qtbot) -> None:
    queue = DrawingQueue()
    ran: list[str] = []
    a, b, c = QObject(), QObject(), QObject()
    for name, owner in (("a1", a), ("b1", b), ("a2", a), ("c1", c), ("b2", b), ("c2", c)):
        queue.post(owner, lambda name=name: ran.append(name))
    assert queue.waiting(b)
    queue.cancel(b)  # a newer drawing of b's supersedes these
    assert not queue.waiting(b)
    queue.post(b, lambda: ran.append("b3"))
    qtbot.waitUntil(lambda: len(queue) == 0)
    assert ran == ["a1", "a2", "c1", "c2", "b3"]
    assert not queue.waiting(a) and not queue.waiting(c)


def test_a_piece_posted_next_runs_on_the_next_turn_before_those_waiting(qtbot) -> None:
    """A piece cut in two (the Pareto chart's curves, then its labels): its second half runs
    next, before the stages posted before it that need it (the labels' placement)."""
    queue = DrawingQueue()
    ran: list[str] = []
    owner = QObject()

    def first() -> None:
        ran.append("first")
        queue.post_next(owner, lambda: ran.append("its rest"))

    queue.post(owner, first)
    queue.post(owner, lambda: ran.append("after"))
    queue.post(owner, lambda: ran.append("last"))
    qtbot.waitUntil(lambda: len(queue) == 0)
    assert ran == ["first", "its rest", "after", "last"]
    queue.post_next(owner, lambda: ran.append("alone"))  # an idle queue: armed all the same
    qtbot.waitUntil(lambda: len(queue) == 0)
    assert ran[-1] == "alone"


def test_a_deleted_owners_pieces_are_dropped_and_the_others_still_run(qtbot) -> None:
    queue = DrawingQueue()
    ran: list[str] = []
    gone, kept = QObject(), QObject()
    queue.post(gone, lambda: ran.append("gone"))
    queue.post(kept, lambda: ran.append("kept"))
    shiboken6.delete(gone)  # a chart closed before its turn came
    qtbot.waitUntil(lambda: len(queue) == 0)
    assert ran == ["kept"]


def test_a_piece_that_raises_leaves_the_rest_to_run(qtbot) -> None:
    queue = DrawingQueue()
    ran: list[str] = []
    owner = QObject()

    def broken() -> None:
        ran.append("broken")
        raise ValueError("a bug in one piece")

    queue.post(owner, broken)
    queue.post(owner, lambda: ran.append("after"))
    with qtbot.captureExceptions() as raised:
        qtbot.waitUntil(lambda: len(queue) == 0)
    assert [type(e[1]) for e in raised] == [ValueError]
    assert ran == ["broken", "after"]


def test_the_window_shares_one_queue(qtbot) -> None:
    assert drawing_queue() is drawing_queue()


def test_a_placement_under_way_ends_while_its_chart_is_hidden(qtbot) -> None:
    """A chart hidden in the middle of a placement in slices (the tab switched): the placement
    still ends, the labels where placing them at once puts them."""
    from app.ui.plots.declutter import overlapping
    from app.ui.plots.sweep_curves import Series
    from tests.ui.plots.test_incremental_drawing import _curves, _exact, _point

    curves = _curves(qtbot, 900, 420)
    curves.set_series([Series("run", [_point(c) for c in range(1, 61)])])
    declutter = curves.pareto.declutter
    assert declutter.pending
    declutter.place_for(0)  # one label, the rest on later turns
    assert declutter.pending
    curves.hide()
    qtbot.waitUntil(lambda: not declutter.pending)
    sliced = _exact(curves)
    assert overlapping(declutter._labels) == []
    declutter._memo, declutter._placed_for = {}, ()
    declutter.place()
    assert _exact(curves) == sliced
