"""The window's deferred drawing work, one piece per turn of the event loop.

Drawing left to the event loop (a chart's labels placed in slices, the Results tab's staged
drawing of a point that joined its run) used a 0 ms timer of its own per owner. Qt fires
every timer that is due in one pass of its event loop, so several such pieces ran back to
back, with a chart's paint straight after them: one hold of the window as long as all of
them. Here they wait in one queue, behind one 0 ms single-shot timer that is armed again
only after a piece has run: the next piece comes on a later turn, and the paints, clicks and
other timers due meanwhile are answered in between."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer

Piece = Callable[[], None]


class DrawingQueue(QObject):
    """Pieces of drawing run in the order posted, one per turn of the event loop. Each is
    posted by an owner (a QObject), which can take back its pieces still waiting (`cancel`:
    a newer drawing supersedes them); a piece whose owner is gone is dropped, not run."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pieces: deque[tuple[QObject, Piece]] = deque()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._run_one)

    def post(self, owner: QObject, piece: Piece) -> None:
        """Run `piece` on a later turn of the event loop, after the pieces posted before it."""
        self._pieces.append((owner, piece))
        if not self._timer.isActive():
            self._timer.start()

    def post_next(self, owner: QObject, piece: Piece) -> None:
        """Run `piece` on the event loop's next turn, before the pieces waiting (the rest of
        the piece running now, cut in two)."""
        self._pieces.appendleft((owner, piece))
        if not self._timer.isActive():
            self._timer.start()

    def cancel(self, owner: QObject) -> None:
        """The pieces `owner` posted that have not run yet, dropped."""
        if any(o is owner for o, _piece in self._pieces):
            self._pieces = deque((o, p) for o, p in self._pieces if o is not owner)

    def waiting(self, owner: QObject) -> bool:
        """Whether `owner` has pieces still to run."""
        return any(o is owner for o, _piece in self._pieces)

    def __len__(self) -> int:
        return len(self._pieces)

    def _run_one(self) -> None:
        # Pieces of owners deleted meanwhile (a chart closed) are passed over, in this turn:
        # running one would touch a deleted object, and passing one costs nothing.
        while self._pieces:
            owner, piece = self._pieces.popleft()
            if shiboken6.isValid(owner):
                break
        else:
            return
        try:
            piece()
        finally:
            # Armed after the piece has run (not before): a timer started while due timers
            # are being fired is not fired in the same pass, so the next piece waits a turn.
            if self._pieces and not self._timer.isActive():
                self._timer.start()


_queue: DrawingQueue | None = None


def drawing_queue() -> DrawingQueue:
    """The application's one queue (made on first use, a child of the application, so that
    every chart and panel of the window shares it)."""
    global _queue
    if _queue is None or not shiboken6.isValid(_queue):
        _queue = DrawingQueue(QCoreApplication.instance())
    return _queue
