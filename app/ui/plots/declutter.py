"""Labels on a chart kept apart in screen space: each nudged up or down to the nearest free
slot after layout (clear of the other labels, the data markers and, where a free place is
near, the plotted lines), or hidden when no slot is free: its text is then named in the
chart's tooltip and on its point (hovering the point names it)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QObject, QPointF, QRectF, Qt, QTimer

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
        self.hidden: list[str] = []  # texts of the labels with no free slot, in order
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.place)
        self._view.sigResized.connect(self.schedule)
        self._view.sigRangeChanged.connect(self.schedule)

    @property
    def pending(self) -> bool:
        """Whether a placement is due (the view changed since the last one)."""
        return self._timer.isActive()

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
        self._labels = list(labels)
        self._points = list(points) + [None] * (len(self._labels) - len(points))
        self._ignore = list(ignore)
        self._placed_for = ()  # new labels: placed whatever the view
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
        """Place the labels once the event loop is idle (ranges and layouts settle lazily)."""
        self._timer.start()

    def place(self) -> None:
        """Put each label at its preferred place or the nearest free one above or below it."""
        self._timer.stop()
        # A range or resize signal with nothing changed (a redraw of the view) places
        # nothing again: placing moves items, which could signal again, without end.
        key = self._view_key()
        if key == self._placed_for:
            return
        self.hidden = []
        area = self._view.sceneBoundingRect()
        points = self._marker_points()
        lines = [seg for _item, seg in self._line_segments()]
        taken: list[QRectF] = []
        for label, home, own in zip(self._labels, self._homes, self._points, strict=True):
            if label.scene() is None:
                continue
            label.setVisible(True)
            if isinstance(label, pg.InfLineLabel):  # hovering the line names it, shown or not
                label.parentItem().setToolTip(label.toPlainText())
            if home is None:
                assert isinstance(label, pg.InfLineLabel)  # only a line's label has no home
                label.updatePosition()
            else:
                label.setPos(home)
            label.updateTransform(force=True)
            rect = label.sceneBoundingRect()
            at = None if own is None else self._view.mapViewToScene(own)
            point = None if at is None else (at.x(), at.y())
            shift = _free_offset(rect, area, taken, points, lines, self._far, point)
            if shift is None:
                label.setVisible(False)
                self.hidden.append(label.toPlainText())
                continue
            if not shift.isNull():
                parent = label.parentItem()
                target = parent.mapToScene(label.pos()) + shift
                label.setPos(parent.mapFromScene(target))
                label.updateTransform(force=True)
            taken.append(label.sceneBoundingRect())
            if point is not None:  # the labels placed after it keep off its leader too
                lines.append(leader_to(point, taken[-1]))
        self._placed_for = self._view_key()
        if self._on_placed is not None:
            self._on_placed()

    def fits_leader(self, label: pg.TextItem) -> bool:
        """Whether `label`, where it is now, reads as its point's (set_labels' `points`), as
        `_leader_fits` judges it against the markers, lines and other labels shown. True for
        a label without a point."""
        for item, own in zip(self._labels, self._points, strict=True):
            if item is label and own is not None:
                at = self._view.mapViewToScene(own)
                lines = [seg for _item, seg in self._line_segments()]
                rect = label.sceneBoundingRect()
                taken = [
                    other.sceneBoundingRect()
                    for other in self._labels
                    if other is not label and other.isVisible() and other.scene() is not None
                ]
                return _leader_fits((at.x(), at.y()), rect, self._marker_points(), lines, taken)
        return True

    def _view_key(self) -> tuple[float, ...]:
        (x_lo, x_hi), (y_lo, y_hi) = self._view.viewRange()
        area = self._view.sceneBoundingRect()
        return tuple(
            round(float(v), 6)
            for v in (x_lo, x_hi, y_lo, y_hi, area.x(), area.y(), area.width(), area.height())
        )

    def _marker_points(self) -> list[tuple[float, float]]:
        """The data markers' centres in scene coordinates (plain numbers: every place tried
        for every label is tested against them)."""
        out: list[tuple[float, float]] = []
        for curve in self._markers:
            if curve.scene() is None or not curve.isVisible() or curve.opts["symbol"] is None:
                continue
            xs, ys = curve.getData()
            if xs is None or ys is None:
                continue
            for x, y in zip(xs, ys, strict=True):
                if x == x and y == y:  # not NaN
                    at = self._view.mapViewToScene(QPointF(float(x), float(y)))
                    out.append((at.x(), at.y()))
        return out

    def _line_segments(self) -> list[tuple[object, Segment]]:
        """Every plotted curve drawn with a pen, as scene segments with the item that draws
        it. Infinite lines (an SLO, the capacity boundary, a knee) are not obstacles: they
        span the whole chart, and their own labels sit on them."""
        out: list[tuple[object, Segment]] = []
        for item in self._plot.items:
            if item in self._ignore or item.scene() is None or not item.isVisible():
                continue
            if isinstance(item, pg.PlotDataItem) and _draws_line(item):
                xs, ys = item.getData()
                if xs is None or ys is None or len(xs) < 2:
                    continue
                pts = [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]
                if isinstance(item.opts.get("connect"), str) and item.opts["connect"] == "pairs":
                    pairs = [(pts[k], pts[k + 1]) for k in range(0, len(pts) - 1, 2)]
                else:
                    pairs = list(itertools.pairwise(pts))
                out += [(item, seg) for seg in self._scene_segments(pairs)]
        return out

    def _scene_segments(
        self, pairs: Sequence[tuple[tuple[float, float], tuple[float, float]]]
    ) -> list[Segment]:
        out = []
        for (x1, y1), (x2, y2) in pairs:
            if not all(math.isfinite(v) for v in (x1, y1, x2, y2)):
                continue  # a gap in the curve (connect="finite")
            a = self._view.mapViewToScene(QPointF(x1, y1))
            b = self._view.mapViewToScene(QPointF(x2, y2))
            out.append((a.x(), a.y(), b.x(), b.y()))
        return out


def _draws_line(curve: pg.PlotDataItem) -> bool:
    pen = curve.opts.get("pen")
    return pen is not None and pg.mkPen(pen).style() != Qt.PenStyle.NoPen


def _free_offset(
    rect: QRectF,
    area: QRectF,
    taken: Sequence[QRectF],
    points: Sequence[tuple[float, float]],
    lines: Sequence[Segment] = (),
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
    step = max(2.0, rect.height() / 3)
    # Without a leader line a label reads as its point's only close by.
    heights = LINE_REACH if far else NEAR_REACH
    reach = int(min(area.height(), heights * rect.height()) / step) + 1
    shifts = [0.0]
    for k in range(1, reach + 1):
        shifts += [-k * step, k * step]
    # Beside its place too (a line's label to either side of its line), at each height.
    side = rect.width() / 2 + 3
    sides: tuple[float, ...] = (
        (0.0, side, -side, 2 * side, -2 * side) if far else (0.0, side, -side)
    )
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
    lo_dy, hi_dy = min(shifts), max(shifts)
    band = rect.adjusted(min(sides) - 1, lo_dy - 1, max(sides) + 1, hi_dy + 1)
    if point is not None:
        band = band.united(QRectF(point[0] - 1, point[1] - 1, 2, 2))
    taken = [other for other in taken if band.intersects(other)]
    every_point = points  # a marker anywhere may be nearer a place than the label's own point
    lines = [seg for seg in lines if _near(seg, band, LINE_PX + 1)]
    lo_x, hi_x = band.left() - MARKER_PX, band.right() + MARKER_PX
    lo_y, hi_y = band.top() - MARKER_PX, band.bottom() + MARKER_PX
    points = [(x, y) for x, y in points if lo_x <= x <= hi_x and lo_y <= y <= hi_y]
    places = [(dx, dy) for dy in shifts for dx in sides]
    if point is not None:  # nearest its point first (a stable sort: ties as before)
        places.sort(key=lambda d: _leader_length(point, rect.translated(*d)))
    on_marker: QPointF | None = None  # the nearest place clear of all but the markers
    for dx, dy in places:
        moved = rect.translated(dx, dy)
        if (dx or dy) and not _within(moved, area):
            continue
        if any(moved.intersects(other) for other in taken):
            continue
        if any(crosses(moved, seg) for seg in lines):
            continue
        if point is not None and not _leader_fits(point, moved, every_point, lines, taken):
            continue
        if not _on_any(moved, points):
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


def _near(seg: Segment, rect: QRectF, margin: float) -> bool:
    """Whether the segment's bounding box meets `rect` grown by `margin` (a quick test that
    never says no to a segment `crosses` would find)."""
    x1, y1, x2, y2 = seg
    return (
        min(x1, x2) <= rect.right() + margin
        and max(x1, x2) >= rect.left() - margin
        and min(y1, y2) <= rect.bottom() + margin
        and max(y1, y2) >= rect.top() - margin
    )


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


def _within(rect: QRectF, area: QRectF) -> bool:
    """Whether `rect` lies inside `area` (half a pixel of slack for rounding)."""
    return area.adjusted(-0.5, -0.5, 0.5, 0.5).contains(rect)


def _on_any(rect: QRectF, points: Sequence[tuple[float, float]]) -> bool:
    """Whether a marker drawn at any of `points` (scene x, y) shows under `rect`."""
    left, right = rect.left() - MARKER_PX, rect.right() + MARKER_PX
    top, bottom = rect.top() - MARKER_PX, rect.bottom() + MARKER_PX
    return any(left <= x <= right and top <= y <= bottom for x, y in points)


def tip_with_hidden(tip: str, hidden: Sequence[str]) -> str:
    """A chart's tooltip naming the labels it had no room for."""
    if not hidden:
        return tip
    note = QCoreApplication.translate("Declutter", "Not labelled on the chart (no room): {names}")
    return tip + "\n" + note.format(names=", ".join(hidden))


def overlapping(labels: Sequence[pg.TextItem]) -> list[tuple[str, str]]:
    """The pairs of visible labels whose boxes on screen intersect (a test's view of it)."""
    shown = [label for label in labels if label.isVisible() and label.scene() is not None]
    pairs = []
    for i, a in enumerate(shown):
        for b in shown[i + 1 :]:
            if a.sceneBoundingRect().intersects(b.sceneBoundingRect()):
                pairs.append((a.toPlainText(), b.toPlainText()))
    return pairs
