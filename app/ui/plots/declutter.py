"""Labels on a chart kept apart in screen space: each nudged up or down to the nearest free
slot after layout, or hidden (its text kept in a tooltip) when no slot is free."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QObject, QPointF, QRectF, QTimer

MARKER_PX = 5.0  # half a marker's width: a label over this square round a point sits on it


class Declutter(QObject):
    """Keeps a plot's labels from overlapping each other (and the data markers, where a free
    slot exists). Labels are placed in the order given: an earlier one keeps its place, a
    later one moves. Run again whenever the view's size or range changes, since the labels'
    sizes are in pixels and their places in data coordinates."""

    def __init__(self, plot: pg.PlotItem, on_placed: Callable[[], None] | None = None) -> None:
        super().__init__(plot)
        self._view = plot.getViewBox()
        self._labels: list[pg.TextItem] = []
        self._homes: list[QPointF | None] = []  # None: the item finds its own (a line label)
        self._markers: list[pg.PlotDataItem] = []
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
        self, labels: Sequence[pg.TextItem], markers: Sequence[pg.PlotDataItem] = ()
    ) -> None:
        """The labels to keep apart, most important first, and the curves whose markers they
        should not cover. Their current places are their preferred ones."""
        self._labels = list(labels)
        self._homes = [
            None if isinstance(label, pg.InfLineLabel) else QPointF(label.pos())
            for label in self._labels
        ]
        self._markers = list(markers)
        self.schedule()

    def schedule(self, *_: object) -> None:
        """Place the labels once the event loop is idle (ranges and layouts settle lazily)."""
        self._timer.start()

    def place(self) -> None:
        """Put each label at its preferred place or the nearest free one above or below it."""
        self._timer.stop()
        self.hidden = []
        area = self._view.sceneBoundingRect()
        points = self._marker_points()
        taken: list[QRectF] = []
        for label, home in zip(self._labels, self._homes, strict=True):
            if label.scene() is None:
                continue
            label.setVisible(True)
            if home is None:
                assert isinstance(label, pg.InfLineLabel)  # only a line's label has no home
                label.updatePosition()
            else:
                label.setPos(home)
            label.updateTransform(force=True)
            rect = label.sceneBoundingRect()
            shift = _free_offset(rect, area, taken, points)
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
        if self._on_placed is not None:
            self._on_placed()

    def _marker_points(self) -> list[QPointF]:
        """The data markers' centres in scene coordinates."""
        out: list[QPointF] = []
        for curve in self._markers:
            if curve.scene() is None or not curve.isVisible() or curve.opts["symbol"] is None:
                continue
            xs, ys = curve.getData()
            if xs is None or ys is None:
                continue
            for x, y in zip(xs, ys, strict=True):
                if x == x and y == y:  # not NaN
                    out.append(self._view.mapViewToScene(QPointF(float(x), float(y))))
        return out


def _free_offset(
    rect: QRectF, area: QRectF, taken: Sequence[QRectF], points: Sequence[QPointF]
) -> QPointF | None:
    """The smallest shift (pixels; up or down first, then to a side) that puts `rect` clear
    of the `taken` rects, and of the `points` if possible, inside `area` (the preferred place
    may stick out: it is where the chart put it). None when no shift clears the labels."""
    step = max(2.0, rect.height() / 3)
    reach = int(area.height() / step) + 1
    shifts = [0.0]
    for k in range(1, reach + 1):
        shifts += [-k * step, k * step]
    # Beside its place too (a line's label to either side of its line), at each height.
    side = rect.width() / 2 + 3
    fallback: QPointF | None = None
    for dy in shifts:
        for dx in (0.0, side, -side):
            moved = rect.translated(dx, dy)
            if (dx or dy) and not _within(moved, area):
                continue
            if any(moved.intersects(other) for other in taken):
                continue
            if not any(_on(moved, p) for p in points):
                return QPointF(dx, dy)
            if fallback is None:
                fallback = QPointF(dx, dy)
    return fallback


def _within(rect: QRectF, area: QRectF) -> bool:
    """Whether `rect` lies inside `area` (half a pixel of slack for rounding)."""
    return area.adjusted(-0.5, -0.5, 0.5, 0.5).contains(rect)


def _on(rect: QRectF, point: QPointF) -> bool:
    """Whether a marker drawn at `point` shows under `rect`."""
    return rect.adjusted(-MARKER_PX, -MARKER_PX, MARKER_PX, MARKER_PX).contains(point)


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
