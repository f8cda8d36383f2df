"""Labels on a chart kept apart in screen space: each nudged up or down to the nearest free
slot after layout (clear of the other labels, the data markers and, where a free place is
near, the plotted lines), or hidden when no slot is free: its text is then named in the
chart's tooltip and on its point (hovering the point names it)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QPointF, QRectF, Qt

from app.ui.plots.drawing_queue import drawing_queue

MARKER_PX = 5.0  # half a marker's width: a label over this square round a point sits on it
LINE_PX = 2.0  # half a plotted line's width (and a little air) a label keeps clear of
# A label moves at most this many of its heights up or down; farther away it would no longer
# read as its point's, so it is left out (named on its point and in the tooltip).
LINE_REACH = 4
NEAR_REACH = 2  # the same for a label drawn without a leader line
# A label with a point of its own (set_labels' `points`) sits at most this many of its heights
# from that point, beside it on either side; farther, its leader would read as another's.
LEADER_REACH = 3
GAP_PX = 6.0  # a label put beside its point: this far from the point's centre
# A placement left to the event loop runs in slices of about this long, so that the window
# answers and paints in between (a frame is ~16 ms, and a chart's paint may follow a slice).
SLICE_NS = 6_000_000
# Two labels' boxes that overlap by less than this (pixels) only touch. A label moved by
# whole steps (a third of its height) lands edge to edge with one at the same height; by the
# last bits of the view's range (which differ between a run drawn point by point and drawn at
# once) such boxes "intersected" or not, and the label went a step further or stayed.
TOUCH_PX = 0.01

Segment = tuple[float, float, float, float]  # x1, y1, x2, y2 in scene pixels


class Declutter(QObject):
    """Keeps a plot's labels from overlapping each other (and the data markers, where a free
    slot exists). Labels are placed in the order given: an earlier one keeps its place, a
    later one moves. Run again whenever the view's size or range changes, since the labels'
    sizes are in pixels and their places in data coordinates."""

    def __init__(
        self, plot: pg.PlotItem, on_placed: Callable[[], None] | None = None, far: bool = False
    ) -> None:
        super().__init__(plot)
        self._far = far  # labels with leader lines may go a whole width aside
        self._plot = plot
        self._view = plot.getViewBox()
        self._ignore: list[object] = []  # plotted items that are not obstacles (leader lines)
        self._placed_for: tuple[float, ...] = ()  # the view the labels were last placed in
        self._labels: list[pg.TextItem] = []
        self._homes: list[QPointF | None] = []  # None: the item finds its own (a line label)
        self._markers: list[pg.PlotDataItem] = []
        self._points: list[QPointF | None] = []  # each label's own point (view coordinates)
        self._on_placed = on_placed
        # The last placement: each label's inputs and outcome (by the label's id), their
        # order, the view, the markers and line pieces it avoided (see place).
        self._memo: dict[int, _Placed] = {}
        self._memo_order: list[int] = []
        self._memo_key: tuple[float, ...] = ()
        self._memo_points: np.ndarray = np.empty((0, 2))
        self._memo_lines: np.ndarray = np.empty((0, 4))
        self.hidden: list[str] = []  # texts of the labels with no free slot, in order
        # A placement under way in slices (see place_for): its steps and where it stands.
        self._placing: Generator[None, None, None] | None = None
        self._progress = _Progress()
        # The views the labels were placed in since they were set or the chart resized
        # (_follow_own_range).
        self._ranges_placed_in: list[tuple[float, ...]] = []
        self._sized_for: tuple[float, float] = (0.0, 0.0)  # the chart's size they were placed at
        self.clock: Callable[[], int] = time.perf_counter_ns  # a test's own clock, to slice
        # Slices wait their turn in the window's drawing queue (one piece a turn of the event
        # loop), not on a timer of their own: several charts' timers fell due together and
        # their slices ran back to back, one long hold.
        self._queue = drawing_queue()
        self._view.sigResized.connect(self.schedule)
        self._view.sigRangeChanged.connect(self.schedule)

    @property
    def pending(self) -> bool:
        """Whether a placement is due (the view changed since the last one) or under way."""
        return self._queue.waiting(self)

    def set_labels(
        self,
        labels: Sequence[pg.TextItem],
        markers: Sequence[pg.PlotDataItem] = (),
        ignore: Sequence[object] = (),
        points: Sequence[QPointF | None] = (),
    ) -> None:
        """The labels to keep apart, most important first, and the curves whose markers they
        should not cover. Their current places are their preferred ones. Every curve drawn
        with a pen is avoided too, but for those in `ignore`.

        `points` (optional, one per label, view coordinates; None for a label without one):
        the point each label names, joined to it by a leader line. Such a label goes to the
        free place nearest its point, beside it on either side, where it reads as that
        point's (`_leader_fits`: the leader from the point, `leader_to`, short and over no
        other marker, across no plotted line or earlier leader, through no other label, and
        no other marker nearer its end); with no such place it is left out (hidden)."""
        self._stop_placing()  # other labels: a placement under way is of no use
        for label in self._labels:  # any a slice's end left out of sight, shown again
            if label.opacity() == 0:
                label.setOpacity(1)
        self._labels = list(labels)
        self._points = list(points) + [None] * (len(self._labels) - len(points))
        self._ignore = list(ignore)
        self._placed_for = ()  # new labels: placed whatever the view
        self._ranges_placed_in = []  # and whatever ranges they were in before
        self._homes = [
            None if isinstance(label, pg.InfLineLabel) else QPointF(label.pos())
            for label in self._labels
        ]
        self._markers = list(markers)
        self.schedule()

    def home(self, label: pg.TextItem) -> QPointF | None:
        """Where a label was put before it was moved (its point, for a point's label)."""
        for item, home in zip(self._labels, self._homes, strict=True):
            if item is label:
                return home
        return None

    def schedule(self, *_: object) -> None:
        """Place the labels once the event loop is idle (ranges and layouts settle lazily);
        till then none is seen over another (_hide_overlapping_till_placed): pyqtgraph
        brings a range up to date as it paints, and that paint showed labels placed for the
        old range over each other."""
        if not self._queue.waiting(self):
            self._queue.post(self, self._next_slice)
        self._hide_overlapping_till_placed()

    def place(self) -> None:
        """Place every label now (see _steps), a placement under way finished at once."""
        self._queue.cancel(self)
        if self._placing is None or self._progress.key != self._exact_key():
            self._stop_placing()
            self._placing = self._steps()
        for _ in self._placing:
            pass
        self._placing = None

    def place_for(self, budget_ns: int) -> int:
        """Place labels for about `budget_ns` (at least one), the rest on the event loop's
        next turns, a slice at a time: the window answers and paints between two. Until its
        turn comes, a label yet to be placed stays where it was unless it would overlap a
        label shown: then it is hidden (a label shown never covers another). When the last
        slice has run, the labels are where `place` puts them. The time used is returned."""
        self._queue.cancel(self)
        start = self.clock()
        if self._placing is None or self._progress.key != self._exact_key():
            self._stop_placing()
            self._placing = self._steps()  # the view changed meanwhile: placed afresh
        for _ in self._placing:
            if self.clock() - start >= budget_ns:
                self._hide_overlapping_unplaced()
                self._queue.post(self, self._next_slice)
                return self.clock() - start
        self._placing = None
        return self.clock() - start

    def _stop_placing(self) -> None:
        placing, self._placing = self._placing, None
        if placing is not None:
            placing.close()

    def _next_slice(self) -> None:
        self.place_for(SLICE_NS)

    def _hide_overlapping_till_placed(self) -> None:
        """A placement just made due (its next slice waits its turn, the chart free to paint
        before it): the labels that overlap an earlier one made transparent until it places
        them, as a slice's end leaves them (_hide_overlapping_unplaced). Left as they were, a chart
        that painted before its placement's turn (the Results tab's staged drawing gives its
        first slice's time to the charts in turn) showed new labels over each other."""
        # Seen as the next paint will show them: pyqtgraph scales the view to a new range only
        # when it is painted or mapped; scaled, it brings each label's transform up to date.
        self._view.updateMatrix()
        self._hide_overlapping(self._labels, [])

    def _hide_overlapping_unplaced(self) -> None:
        """The labels not placed yet made transparent where they overlap a label placed or
        another one not placed yet (earlier ones first, as placing them would keep them).
        Transparent, not hidden: a hidden label leaves the chart's auto range, which would
        change under the placement (and the labels' places with it)."""
        progress = self._progress
        self._hide_overlapping(progress.labels[progress.at :], list(progress.taken))

    @staticmethod
    def _hide_overlapping(labels: Sequence[pg.TextItem], kept: list[QRectF]) -> None:
        for label in labels:
            if label.scene() is None or not label.isVisible() or label.opacity() == 0:
                continue
            rect = label.sceneBoundingRect()
            if any(overlaps(rect, r) for r in kept):
                label.setOpacity(0)
            else:
                kept.append(rect)

    def _steps(self) -> Generator[None, None, None]:
        """A placement's steps (_place_steps), the chart's auto range held still till the
        last: the labels count in it, so a range set from some labels moved and others not
        would change under the placement (and where the rest go with it, by when a paint
        came). Held, the range follows the placement as it did when placed all at once."""
        view = self._view
        # The chart's own size, not its view's: an axis's width follows its numbers, so a
        # round of ranges moves the view's edge each time, and a round must still be seen.
        size = self._plot.size()
        sized_for = (round(size.width(), 3), round(size.height(), 3))
        if sized_for != self._sized_for:
            self._ranges_placed_in = []  # resized: the labels' sizes in the range changed
            self._sized_for = sized_for
        deferred: list[bool] = []
        setattr(view, "updateAutoRange", lambda: deferred.append(True))  # noqa: B010
        done = False
        try:
            yield from self._place_steps()
            done = True
        finally:
            # A placement given up when its chart is gone (closed: the generator closed when
            # the drawing queue lets go of it) has no range left to bring up to date.
            if shiboken6.isValid(view):
                delattr(view, "updateAutoRange")
                # A label moved by setPos only queues the auto range for the next paint (the
                # paint then moved the range, where _follow_own_range never saw it): a
                # finished placement brings it up to date itself.
                auto = any(on is not False for on in view.autoRangeEnabled())
                if deferred or (done and auto):
                    placed_in = self._view_key()
                    view.updateAutoRange()
                    if done:
                        self._follow_own_range(placed_in)

    def _follow_own_range(self, placed_in: tuple[float, ...]) -> None:
        """After a placement the chart's auto range takes in the labels where they went; in a
        new range they are placed again (the range signals it). That can go round without
        end: placed in range A the labels widen the chart to B, placed in B they narrow it
        back to A (seen on a small Pareto chart of many loads). Come back to a range they
        were placed in before (since they were set or the chart resized), the round ends: the
        range is set to the widest of the round's ranges and held (auto range off, as after a
        zoom; the chart's next drawing turns it on again), and the labels placed in it. The
        widest, not the one the round was noticed in: where a chart came into the round
        depends on what it drew before (a run drawn point by point, or read at once), and the
        same points must end in the same place. Left on, pyqtgraph brought the range back at
        the next paint."""
        self._ranges_placed_in.append(placed_in)
        now = self._view_key()
        if _same_range(now, placed_in):
            return
        first = next(
            (n for n, before in enumerate(self._ranges_placed_in) if _same_range(now, before)), None
        )
        if first is None:
            return
        ranges = self._ranges_placed_in[first:]
        widest = max(ranges, key=lambda r: (r[1] - r[0], r[3] - r[2]))
        # The exact range of this placement when it is the widest (its key is rounded).
        (x_lo, x_hi, y_lo, y_hi) = self._memo_key[:4] if widest is placed_in else widest[:4]
        self._view.setRange(xRange=(x_lo, x_hi), yRange=(y_lo, y_hi), padding=0)

    def _place_steps(self) -> Generator[None, None, None]:
        """Put each label at its preferred place or the nearest free one above or below it.

        In the view of the last placement, a label whose text, anchor and place are as they
        were, with nothing that can be in its way changed (markers, lines, the labels placed
        before it), goes where it went then without being tried again: a point joining a run
        changes a few labels of the chart, and trying all of them again made each point cost
        more the longer the run. The answer is the same as placing them all afresh.

        One label a step (a step's end is where a slice may end: see place_for)."""
        # A range or resize signal with nothing changed (a redraw of the view) places
        # nothing again: placing moves items, which could signal again, without end.
        key = self._view_key()
        if key == self._placed_for:
            for label in self._labels:  # any made transparent till placed: placed already
                if label.opacity() == 0:
                    label.setOpacity(1)
            return
        hidden: list[str] = []
        area = self._view.sceneBoundingRect()
        points = self._marker_points()
        lines = self._line_segments()
        exact = self._exact_key()
        labels = [(label, home, own)
                  for label, home, own in zip(self._labels, self._homes, self._points, strict=True)
                  if label.scene() is not None]  # fmt: skip
        # Labels with points of their own lay leaders the later ones keep off: placed afresh.
        fresh = any(own is not None for _label, _home, own in labels)
        memo = self._memo if exact == self._memo_key and not fresh else {}
        order = [id(label) for label, _home, _own in labels]
        if [i for i in self._memo_order if i in set(order)] != [i for i in order if i in memo]:
            memo = {}  # labels placed in another order: each one's predecessors changed
        # What changed since the last placement: markers and line pieces that came or went,
        # the places of labels that moved, came or went.
        changed_points = _changes(self._memo_points, points) if memo else points
        changed_lines = _changes(self._memo_lines, lines) if memo else lines
        changed: list[QRectF] = [m.final for i, m in memo.items()
                                 if i not in set(order) and m.final is not None]  # fmt: skip
        taken: list[QRectF] = []
        placed: dict[int, _Placed] = {}
        leaders: list[Segment] = []  # from each placed label with a point to that point
        self._progress = _Progress(exact, taken, [label for label, _home, _own in labels])
        for n, (label, home, own) in enumerate(labels):
            self._progress.at = n
            yield
            if label.opacity() == 0:  # kept out of sight until placed (a slice's end)
                label.setOpacity(1)
            text = label.toPlainText()
            was = memo.get(id(label))
            sig = (
                (text, label.anchor.x(), label.anchor.y(), home.x(), home.y())
                if home is not None
                else None
            )
            if (
                was is not None
                and sig is not None
                and was.sig == sig
                and not any(was.reach.intersects(r) for r in changed)
                and not _any_near(was.reach, changed_points, changed_lines)
            ):
                placed[id(label)] = was
                if was.final is None:
                    if label.isVisible():
                        label.setVisible(False)
                    hidden.append(text)
                    continue
                if not label.isVisible():
                    label.setVisible(True)
                if label.pos() != was.pos:  # put back at home by its chart since
                    label.setPos(was.pos)
                    label.updateTransform(force=True)
                taken.append(was.final)
                continue
            label.setVisible(True)
            if isinstance(label, pg.InfLineLabel):  # hovering the line names it, shown or not
                label.parentItem().setToolTip(text)
            if home is None:
                assert isinstance(label, pg.InfLineLabel)  # only a line's label has no home
                label.updatePosition()
            else:
                label.setPos(home)
            label.updateTransform(force=True)
            rect = label.sceneBoundingRect()
            at = None if own is None else self._view.mapViewToScene(own)
            point = None if at is None else (at.x(), at.y())
            avoid = np.vstack((lines, np.array(leaders))) if leaders else lines
            shift = _free_offset(rect, area, taken, points, avoid, self._far, point)
            final: QRectF | None = None
            if shift is None:
                label.setVisible(False)
                hidden.append(text)
            else:
                if not shift.isNull():
                    parent = label.parentItem()
                    target = parent.mapToScene(label.pos()) + shift
                    label.setPos(parent.mapFromScene(target))
                    label.updateTransform(force=True)
                final = label.sceneBoundingRect()
                taken.append(final)
                if point is not None:  # the labels placed after it keep off its leader too
                    leaders.append(leader_to(point, final))
            before = was.final if was is not None else None
            if before != final:
                changed += [r for r in (before, final) if r is not None]
            placed[id(label)] = _Placed(sig, _reach(rect, area, self._far), final, label.pos())
        self._memo, self._memo_order, self._memo_key = placed, order, exact
        self._memo_points, self._memo_lines = points, lines
        self._placed_for = self._view_key()
        self._progress = _Progress()
        self.hidden = hidden
        if self._on_placed is not None:
            self._on_placed()

    def fits_leader(self, label: pg.TextItem) -> bool:
        """Whether `label`, where it is now, reads as its point's (set_labels' `points`), as
        `_leader_fits` judges it against the markers, lines and other labels shown. True for
        a label without a point."""
        for item, own in zip(self._labels, self._points, strict=True):
            if item is label and own is not None:
                at = self._view.mapViewToScene(own)
                lines = [_segment(row) for row in self._line_segments().tolist()]
                markers = [(x, y) for x, y in self._marker_points().tolist()]
                rect = label.sceneBoundingRect()
                taken = [
                    other.sceneBoundingRect()
                    for other in self._labels
                    if other is not label and other.isVisible() and other.scene() is not None
                ]
                return _leader_fits((at.x(), at.y()), rect, markers, lines, taken)
        return True

    def _exact_key(self) -> tuple[float, ...]:
        """The view's range and place on screen, as they are (the scene map follows)."""
        (x_lo, x_hi), (y_lo, y_hi) = self._view.viewRange()
        area = self._view.sceneBoundingRect()
        return (x_lo, x_hi, y_lo, y_hi, area.x(), area.y(), area.width(), area.height())

    def _view_key(self) -> tuple[float, ...]:
        (x_lo, x_hi), (y_lo, y_hi) = self._view.viewRange()
        area = self._view.sceneBoundingRect()
        return tuple(
            round(float(v), 6)
            for v in (x_lo, x_hi, y_lo, y_hi, area.x(), area.y(), area.width(), area.height())
        )

    def _to_scene(self, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """View coordinates to scene coordinates, all at once (mapViewToScene's two affine
        maps, in its order: a call per point was most of a placement's time)."""
        self._view.updateMatrix()
        for t in (self._view.childTransform(), self._view.sceneTransform()):
            xs, ys = t.m11() * xs + t.m21() * ys + t.dx(), t.m12() * xs + t.m22() * ys + t.dy()
        return xs, ys

    def _marker_points(self) -> np.ndarray:
        """The data markers' centres in scene coordinates, one row (x, y) each."""
        xs: list[np.ndarray] = []
        ys: list[np.ndarray] = []
        for curve in self._markers:
            if curve.scene() is None or not curve.isVisible() or curve.opts["symbol"] is None:
                continue
            x, y = curve.getData()
            if x is None or y is None:
                continue
            x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
            real = ~(np.isnan(x) | np.isnan(y))
            xs.append(x[real])
            ys.append(y[real])
        if not xs:
            return np.empty((0, 2))
        sx, sy = self._to_scene(np.concatenate(xs), np.concatenate(ys))
        centres: np.ndarray = np.column_stack((sx, sy))
        return centres

    def _line_segments(self) -> np.ndarray:
        """Every plotted curve drawn with a pen, as scene segments (x1, y1, x2, y2), one a
        row. Infinite lines (an SLO, the capacity boundary, a knee) are not obstacles: they
        span the whole chart, and their own labels sit on them."""
        starts: list[np.ndarray] = []
        ends: list[np.ndarray] = []
        for item in self._plot.items:
            if item in self._ignore or item.scene() is None or not item.isVisible():
                continue
            if isinstance(item, pg.PlotDataItem) and _draws_line(item):
                xs, ys = item.getData()
                if xs is None or ys is None or len(xs) < 2:
                    continue
                pts = np.column_stack((np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)))
                if isinstance(item.opts.get("connect"), str) and item.opts["connect"] == "pairs":
                    pairs = len(pts) // 2 * 2
                    starts.append(pts[0:pairs:2])
                    ends.append(pts[1:pairs:2])
                else:
                    starts.append(pts[:-1])
                    ends.append(pts[1:])
        if not starts:
            return np.empty((0, 4))
        a, b = np.concatenate(starts), np.concatenate(ends)
        finite = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)  # connect="finite"
        a, b = a[finite], b[finite]
        ax, ay = self._to_scene(a[:, 0], a[:, 1])
        bx, by = self._to_scene(b[:, 0], b[:, 1])
        segments: np.ndarray = np.column_stack((ax, ay, bx, by))
        return segments


@dataclass
class _Progress:
    """Where a placement under way stands: the view it began in, the boxes of the labels
    placed so far and the labels still to be placed."""

    key: tuple[float, ...] = ()
    taken: list[QRectF] = field(default_factory=list)
    labels: list[pg.TextItem] = field(default_factory=list)
    at: int = 0  # labels[at:] are still to be placed


@dataclass
class _Placed:
    """A label's placement: what it was placed from (text, anchor, home; None for a line's
    label, placed afresh each time), everything that could be in the way of one of its
    places (`reach`), its box where it went (None: left out) and its place there."""

    sig: tuple[object, ...] | None
    reach: QRectF
    final: QRectF | None
    pos: QPointF


def _reach(rect: QRectF, area: QRectF, far: bool) -> QRectF:
    """Everything that can be in the way of a place tried for a label at `rect`: its band
    (_free_offset's) grown by a marker's half width and a line's."""
    step, reach, sides = _tries(rect, area, far)
    grow = max(MARKER_PX, LINE_PX + 1) + 1
    top = reach * step + grow
    return rect.adjusted(-max(sides) - grow, -top, max(sides) + grow, top)


def _tries(rect: QRectF, area: QRectF, far: bool) -> tuple[float, int, tuple[float, ...]]:
    """The step up or down a label moves by, how many steps, and its shifts to either side."""
    step = max(2.0, rect.height() / 3)
    # Without a leader line a label reads as its point's only close by.
    heights = LINE_REACH if far else NEAR_REACH
    reach = int(min(area.height(), heights * rect.height()) / step) + 1
    # Beside its place too (a line's label to either side of its line), at each height.
    side = rect.width() / 2 + 3
    sides = (0.0, side, -side, 2 * side, -2 * side) if far else (0.0, side, -side)
    return step, reach, sides


def _same_range(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two views (_view_key) show the same range to within a thousandth of its span
    (a pixel's fraction: a range the labels widen, computed again, differs in its last
    digits)."""
    x_span, y_span = abs(a[1] - a[0]), abs(a[3] - a[2])
    tol = (x_span, x_span, y_span, y_span)
    return all(abs(u - v) <= 1e-3 * t for u, v, t in zip(a[:4], b[:4], tol, strict=True))


def overlaps(a: QRectF, b: QRectF) -> bool:
    """Whether two boxes on screen overlap: boxes that only touch (to within TOUCH_PX) do not."""
    return a.adjusted(TOUCH_PX, TOUCH_PX, -TOUCH_PX, -TOUCH_PX).intersects(b)


def _changes(before: np.ndarray, now: np.ndarray) -> np.ndarray:
    """The rows in one of `before` and `now` and not in the other."""
    old = set(map(tuple, before.tolist()))
    new = set(map(tuple, now.tolist()))
    rows = list(old ^ new)
    return np.array(rows, dtype=float).reshape(-1, now.shape[1])


def _any_near(rect: QRectF, points: np.ndarray, lines: np.ndarray) -> bool:
    """Whether any of `points` lies in `rect` or any of `lines` comes near it."""
    if len(points):
        xs, ys = points[:, 0], points[:, 1]
        inside = (rect.left() <= xs) & (xs <= rect.right())
        if (inside & (rect.top() <= ys) & (ys <= rect.bottom())).any():
            return True
    return bool(len(lines) and _near(lines, rect, 0.0).any())


def _draws_line(curve: pg.PlotDataItem) -> bool:
    pen = curve.opts.get("pen")
    return pen is not None and pg.mkPen(pen).style() != Qt.PenStyle.NoPen


def _free_offset(
    rect: QRectF,
    area: QRectF,
    taken: Sequence[QRectF],
    points: np.ndarray,
    lines: np.ndarray,
    far: bool = False,
    point: tuple[float, float] | None = None,
) -> QPointF | None:
    """The smallest shift (pixels; up or down first, then to a side) that puts `rect` clear
    of the `taken` rects, the `points` where possible and the `lines`, inside `area` (the
    preferred place may stick out: it is where the chart put it), at most NEAR_REACH heights
    up or down (LINE_REACH with `far`). None when there is no such place: a label is left
    out rather than written over a line or another label. `far`: a whole width to either
    side is tried too (a label drawn with a leader line to its point).

    `point` (scene pixels): the label's own point. Its places beside the point on either
    side, level with it and above and below, are tried too; of the free places the one
    nearest the point is taken, and only where its leader fits (`_leader_fits`)."""
    step, reach, sides = _tries(rect, area, far)
    shifts = [0.0]
    for k in range(1, reach + 1):
        shifts += [-k * step, k * step]
    if point is not None:
        # Beside its point on either side, at the point's height and up to LEADER_REACH
        # heights above and below it, wherever the chart first put the label.
        px, py = point
        sides += (px + GAP_PX - rect.left(), px - GAP_PX - rect.right())
        level = py - rect.center().y()
        near = int(LEADER_REACH * rect.height() / step) + 1
        shifts += [level + k * step for k in range(-near, near + 1)]
    # Only what lies near the label can be in the way of one of its places: the rest is left
    # out before trying them (a chart of a long run has hundreds of labels, markers and line
    # pieces; each place tried against all of them made the placement grow with the run).
    # The band holds every place tried (and the leaders to them), with a pixel of slack, so
    # the answer is the same.
    band = rect.adjusted(min(sides) - 1, min(shifts) - 1, max(sides) + 1, max(shifts) + 1)
    if point is not None:
        band = band.united(QRectF(point[0] - 1, point[1] - 1, 2, 2))
    taken = [other for other in taken if band.intersects(other)]
    near_lines = [_segment(row) for row in lines[_near(lines, band, LINE_PX + 1)].tolist()]
    lo_x, hi_x = band.left() - MARKER_PX, band.right() + MARKER_PX
    lo_y, hi_y = band.top() - MARKER_PX, band.bottom() + MARKER_PX
    xs, ys = points[:, 0], points[:, 1]
    inside = (lo_x <= xs) & (xs <= hi_x) & (lo_y <= ys) & (ys <= hi_y)
    near_points: list[list[float]] = points[inside].tolist()
    inner = area.adjusted(-0.5, -0.5, 0.5, 0.5)  # half a pixel of slack for rounding
    places = [(dx, dy) for dy in shifts for dx in sides]
    every_point: list[tuple[float, float]] = []  # a marker anywhere may be nearer a place
    if point is not None:  # nearest its point first (a stable sort: ties as before)
        places.sort(key=lambda d: _leader_length(point, rect.translated(*d)))
        every_point = [(x, y) for x, y in points.tolist()]
    on_marker: QPointF | None = None  # the nearest place clear of all but the markers
    for dx, dy in places:
        moved = rect.translated(dx, dy)
        if (dx or dy) and not inner.contains(moved):
            continue
        if any(overlaps(moved, other) for other in taken):
            continue
        if any(crosses(moved, seg) for seg in near_lines):
            continue
        if point is not None and not _leader_fits(point, moved, every_point, near_lines, taken):
            continue
        left, right = moved.left() - MARKER_PX, moved.right() + MARKER_PX
        top, bottom = moved.top() - MARKER_PX, moved.bottom() + MARKER_PX
        if not any(left <= x <= right and top <= y <= bottom for x, y in near_points):
            return QPointF(dx, dy)
        if on_marker is None:
            on_marker = QPointF(dx, dy)
    return on_marker


def leader_to(point: tuple[float, float], rect: QRectF) -> Segment:
    """The leader line from a point to its label (scene pixels): to the middle of the
    label's near side, its left edge when the label lies to the right of the point."""
    px, py = point
    x = rect.left() if rect.center().x() >= px else rect.right()
    return (px, py, x, rect.center().y())


def _leader_length(point: tuple[float, float], rect: QRectF) -> float:
    x1, y1, x2, y2 = leader_to(point, rect)
    return math.hypot(x2 - x1, y2 - y1)


def _leader_fits(
    point: tuple[float, float],
    rect: QRectF,
    points: Sequence[tuple[float, float]],
    lines: Sequence[Segment],
    taken: Sequence[QRectF] = (),
) -> bool:
    """Whether a label at `rect` reads as its `point`'s, joined to it by a leader: at most
    LEADER_REACH of its heights long, over no other marker (`points`), across no line and
    through no other label (`taken`), and no other marker nearer its end than its own point
    (the point's own marker and those drawn on top of it, and the lines that start at it,
    its own bar, excepted)."""
    if _leader_length(point, rect) > LEADER_REACH * rect.height():
        return False
    seg = leader_to(point, rect)
    px, py = point

    def own(x: float, y: float, within: float = 1.0) -> bool:
        return abs(x - px) <= within and abs(y - py) <= within

    others = [(x, y) for x, y in points if not own(x, y, MARKER_PX)]
    if any(_distance(seg, x, y) <= MARKER_PX for x, y in others):
        return False
    # Where its leader meets it, a label nearer another point than its own reads as that
    # one's ("c4" beside the c16 marker).
    _, _, ex, ey = seg
    mine = math.hypot(ex - px, ey - py)
    if any(math.hypot(ex - x, ey - y) <= mine for x, y in others):
        return False
    if any(crosses(other, seg, 0.0) for other in taken):
        return False
    return not any(
        segments_cross(seg, line)
        for line in lines
        if not own(line[0], line[1]) and not own(line[2], line[3])
    )


def _distance(seg: Segment, x: float, y: float) -> float:
    """The distance from (x, y) to the segment."""
    x1, y1, x2, y2 = seg
    dx, dy = x2 - x1, y2 - y1
    span = dx * dx + dy * dy
    t = 0.0 if span == 0 else max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / span))
    return math.hypot(x - (x1 + t * dx), y - (y1 + t * dy))


def _near(segments: np.ndarray, rect: QRectF, margin: float) -> np.ndarray:
    """Which segments (rows x1, y1, x2, y2) have a bounding box meeting `rect` grown by
    `margin` (a quick test that never says no to a segment `crosses` would find)."""
    x1, y1, x2, y2 = segments[:, 0], segments[:, 1], segments[:, 2], segments[:, 3]
    near: np.ndarray = (
        (np.minimum(x1, x2) <= rect.right() + margin)
        & (np.maximum(x1, x2) >= rect.left() - margin)
        & (np.minimum(y1, y2) <= rect.bottom() + margin)
        & (np.maximum(y1, y2) >= rect.top() - margin)
    )
    return near


def _segment(row: list[float]) -> Segment:
    return (row[0], row[1], row[2], row[3])


def crosses(rect: QRectF, seg: Segment, margin: float = LINE_PX) -> bool:
    """Whether the segment passes through `rect` grown by `margin` (Liang-Barsky clipping)."""
    x1, y1, x2, y2 = seg
    left, top = rect.left() - margin, rect.top() - margin
    right, bottom = rect.right() + margin, rect.bottom() + margin
    dx, dy = x2 - x1, y2 - y1
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x1 - left), (dx, right - x1), (-dy, y1 - top), (dy, bottom - y1)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def segments_cross(a: Segment, b: Segment) -> bool:
    """Whether two segments cross (touching at an end does not count)."""

    def side(x1: float, y1: float, x2: float, y2: float, x: float, y: float) -> float:
        return (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)

    d1 = side(*b, a[0], a[1])
    d2 = side(*b, a[2], a[3])
    d3 = side(*a, b[0], b[1])
    d4 = side(*a, b[2], b[3])
    return d1 * d2 < 0 and d3 * d4 < 0


def name_points(curve: pg.PlotDataItem) -> None:
    """Hovering the curve's markers shows their names: the `data=` given with its points (a
    label the chart had no room for is still named at its point). Every marker under the
    pointer is named (loads past the knee sit on top of each other), not pyqtgraph's first
    three."""
    scatter = curve.scatter
    scatter.opts["hoverable"] = True
    scatter.opts["tip"] = None  # the names are set below
    showing = [False]  # whether the view's tooltip holds this curve's names

    def hovered(_item: object, points: Sequence[object], _event: object) -> None:
        view = scatter.getViewBox()
        if view is None:
            return
        names = [str(p.data()) for p in points if p.data() is not None]  # type: ignore[attr-defined]
        if names:
            view.setToolTip(", ".join(dict.fromkeys(names)))
            showing[0] = True
        elif showing[0]:
            view.setToolTip("")
            showing[0] = False

    scatter.sigHovered.connect(hovered)


def tip_with_hidden(tip: str, hidden: Sequence[str]) -> str:
    """A chart's tooltip naming the labels it had no room for."""
    if not hidden:
        return tip
    note = QCoreApplication.translate("Declutter", "Not labelled on the chart (no room): {names}")
    return tip + "\n" + note.format(names=", ".join(hidden))


def overlapping(labels: Sequence[pg.TextItem]) -> list[tuple[str, str]]:
    """The pairs of visible labels whose boxes on screen intersect (a test's view of it; a
    transparent label, one a placement in slices has yet to place, is not seen)."""
    shown = [
        label
        for label in labels
        if label.isVisible() and label.opacity() > 0 and label.scene() is not None
    ]
    pairs = []
    for i, a in enumerate(shown):
        for b in shown[i + 1 :]:
            if overlaps(a.sceneBoundingRect(), b.sceneBoundingRect()):
                pairs.append((a.toPlainText(), b.toPlainText()))
    return pairs
