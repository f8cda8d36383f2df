"""The knee curves and the Pareto chart drawn point by point (as a sweep's points join the run
the Results tab shows) end up as one drawing of all the points: the same curves, the same
labels in the same places, the same left-out labels; the chart's items are kept and given new
data rather than made again; and the load axis's numbers never run into each other."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPicture

from app.bench.results.point_row import PointRow
from app.ui.plots import declutter as module
from app.ui.plots.capacity import Marks, draw_marks, sweep_knees
from app.ui.plots.declutter import Declutter
from app.ui.plots.sweep_curves import Series, SweepCurves, spaced_labels
from tests.ui.rows import row_of


def _point(c: int) -> PointRow:
    """A load's figures shaped as a real run's: throughput to a plateau, latency rising."""
    grow, slow = min(c, 24) ** 0.8, 1 + c / 24
    return row_of({"max_concurrency": c, "request_rate": "inf", "completed": 1024,
            "num_prompts": 1024, "output_throughput": 40.0 * grow,
            "median_tpot_ms": 20.0 * slow, "p99_tpot_ms": 26.0 * slow,
            "p99_ttft_ms": 180.0 * slow})  # fmt: skip


def _curves(qtbot, width: int = 1400, height: int = 460) -> SweepCurves:
    """Charts whose axes keep one size: an axis grows to the widest tick text it has shown
    (and stays so), which with another font (a language switch earlier in the session) makes
    two widgets' plot areas differ by enough to move a label at an edge."""
    curves = SweepCurves()
    for plot in curves.charts().values():
        item = plot.getPlotItem()
        item.getAxis("left").setWidth(64)
        item.getAxis("bottom").setHeight(40)
    qtbot.addWidget(curves)
    curves.resize(width, height)
    curves.show()
    qtbot.waitExposed(curves)
    return curves


def _draw(qtbot, curves: SweepCurves, points: list[PointRow]) -> None:
    """As the Results tab draws a run: curves, knees and marks, then everything settled."""
    series = [Series("run", points)]
    curves.set_series(series)
    knees = sweep_knees(points, "concurrency")
    draw_marks(curves, series, Marks(slos=["tpot:p99:60", "ttft:p99:500"], knees=knees))
    curves.settle()
    declutters = [*curves.declutter.values(), curves.pareto.declutter]
    qtbot.waitUntil(lambda: not any(d.pending for d in declutters))


def _labels(curves: SweepCurves) -> list[tuple[Any, ...]]:
    """Every label of every chart: text, shown, its box on screen as a fraction of the plot
    area (in pixels two widgets may differ by an axis's remembered width), and what was left
    out."""
    out: list[tuple[Any, ...]] = []
    declutters = {**curves.declutter, curves.pareto: curves.pareto.declutter}
    for plot, declutter in declutters.items():
        area = plot.getPlotItem().getViewBox().sceneBoundingRect()
        for label in declutter._labels:
            box = label.sceneBoundingRect()
            where = ((box.center().x() - area.x()) / area.width(),
                     (box.center().y() - area.y()) / area.height())  # fmt: skip
            out.append((label.toPlainText(), label.isVisible(), where))
        out.append(tuple(declutter.hidden))
    return out


def _pen(pen: Any) -> Any:
    return None if pen is None else (pen.color().name(), pen.widthF(), pen.style())


def _data(curves: SweepCurves) -> dict[str, list[Any]]:
    return {
        key: [
            (
                item.opts.get("symbol"),
                _pen(item.opts.get("pen")),
                *(a.tolist() for a in item.getData()),
            )
            for item in plot.getPlotItem().listDataItems()
        ]
        for key, plot in curves.charts().items()
    }


def _exact(curves: SweepCurves) -> list[tuple[Any, ...]]:
    declutters = [*curves.declutter.values(), curves.pareto.declutter]
    return [(t.toPlainText(), t.isVisible(), t.pos().x(), t.pos().y(), t.sceneBoundingRect())
            for d in declutters for t in d._labels]  # fmt: skip


def test_a_run_drawn_point_by_point_is_drawn_as_all_its_points_at_once(qtbot) -> None:
    loads = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 64, 80, 96, 128]
    order = loads[:4] + random.Random(7).sample(loads[4:], len(loads) - 4)  # some join between
    curves = _curves(qtbot)
    joined: list[PointRow] = []
    kept = 0
    for c in order:
        before = [id(item) for item in curves.throughput.getPlotItem().listDataItems()]
        joined.append(_point(c))
        joined.sort(key=lambda p: p.max_concurrency)
        _draw(qtbot, curves, list(joined))
        after = [id(item) for item in curves.throughput.getPlotItem().listDataItems()]
        kept += bool(before) and before == after
    assert kept == len(order) - 1  # the curve's item given each new point, never made again
    incremental = _exact(curves)
    # The same chart's labels placed afresh, from nothing remembered: the very same places.
    for declutter in [*curves.declutter.values(), curves.pareto.declutter]:
        declutter._memo, declutter._placed_for = {}, ()
        declutter.place()
    assert _exact(curves) == incremental
    # A chart that drew all the points at once: the same curves and labels.
    fresh = _curves(qtbot)
    _draw(qtbot, fresh, [_point(c) for c in loads])
    assert _data(curves) == _data(fresh)
    drawn, once = _labels(curves), _labels(fresh)
    assert [x[:2] if len(x) == 3 else x for x in drawn] == [
        x[:2] if len(x) == 3 else x for x in once
    ]
    places = [v for x in drawn if len(x) == 3 for v in x[2]]
    assert places == pytest.approx([v for x in once if len(x) == 3 for v in x[2]], abs=0.02)


def test_labels_placed_in_slices_never_overlap_between_and_end_where_placed_at_once(
    qtbot,
) -> None:
    """A placement left to the event loop runs in time-bounded slices (the window answers
    and paints between two): after any slice no two labels seen overlap (a label not placed
    yet that would is out of sight), and after the last the labels are where placing them
    all at once puts them."""
    curves = _curves(qtbot, 900, 420)
    curves.set_series([Series("run", [_point(c) for c in range(1, 61)])])
    declutter = curves.pareto.declutter
    # At their points, before any placement: they would overlap, so some are out of sight.
    assert module.overlapping(declutter._labels) == []
    assert any(label.opacity() == 0 for label in declutter._labels)
    ticks = itertools.count()
    declutter.clock = lambda: next(ticks) * 1_000_000  # a millisecond a look at the clock
    assert declutter.pending
    slices = 0
    while declutter.pending:
        declutter.place_for(3_000_000)
        slices += 1
        assert module.overlapping(declutter._labels) == []
    assert slices > 5  # sliced indeed
    sliced = _exact(curves)
    declutter._memo, declutter._placed_for = {}, ()
    declutter.place()
    assert _exact(curves) == sliced
    assert all(label.opacity() == 1 for label in declutter._labels)


def test_labels_waiting_for_their_placement_are_never_seen_over_each_other(qtbot) -> None:
    """Labels set, or their view changed, wait for their placement's turn in the drawing
    queue; the chart may paint first (pyqtgraph brings a range up to date as it paints, then
    paints). Meanwhile no label is seen over another: those that would overlap an earlier
    one are out of sight, and the placement shows them again where placing at once does."""
    curves = _curves(qtbot, 900, 420)
    curves.set_series([Series("run", [_point(c) for c in range(1, 61)])])
    declutters = [*curves.declutter.values(), curves.pareto.declutter]

    def placed() -> list[tuple[Any, ...]]:
        while any(d.pending for d in declutters):
            for declutter in declutters:
                if declutter.pending:
                    declutter.place_for(module.SLICE_NS)
        return _exact(curves)

    for declutter in declutters:  # set at their points, not placed yet
        assert declutter.pending and module.overlapping(declutter._labels) == []
    placed()
    view = curves.pareto.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = view.viewRange()
    view.setRange(xRange=(x0, x0 + (x1 - x0) / 3), yRange=(y0, y0 + (y1 - y0) / 3), padding=0)
    declutter = curves.pareto.declutter
    assert declutter.pending and module.overlapping(declutter._labels) == []
    sliced = placed()
    assert all(label.opacity() == 1 for label in declutter._labels)
    for declutter in declutters:
        declutter._memo, declutter._placed_for = {}, ()
        declutter.place()
    assert _exact(curves) == sliced


def test_labels_are_tried_again_only_where_something_changed(qtbot) -> None:
    """In an unchanged view, a label and a marker joining far from the others leave every
    other label where it was without trying it again (a placement no longer grows with the
    run), and the labels end where a placement from nothing remembered puts them."""
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(700, 400)
    plot.show()
    qtbot.waitExposed(plot)
    item = plot.getPlotItem()
    item.disableAutoRange()
    item.setRange(xRange=(0, 100), yRange=(0, 100), padding=0)
    xs = [5.0 + 1.5 * k for k in range(20)]  # a crowded row: labels pushed up, down, left out
    ys = [50.0 + (k % 3) for k in range(20)]
    markers = item.plot(xs, ys, pen=None, symbol="o")
    item.plot([0, 100], [40, 60], pen="w")  # a line the labels keep off
    labels = []
    for k, (x, y) in enumerate(zip(xs, ys, strict=True)):
        label = pg.TextItem(f"load {k}", anchor=(0, 0.5))
        label.setPos(x, y)
        item.addItem(label, ignoreBounds=True)
        labels.append(label)
    declutter = Declutter(item)
    declutter.set_labels(labels, [markers])
    declutter.place()
    assert declutter.hidden  # crowded: some left out
    tried: list[QRectF] = []
    free_offset = module._free_offset

    def counted(rect: QRectF, *args: Any, **kwargs: Any) -> Any:
        tried.append(rect)
        return free_offset(rect, *args, **kwargs)

    monkey = pytest.MonkeyPatch()
    monkey.setattr(module, "_free_offset", counted)
    far = pg.TextItem("far", anchor=(0, 0.5))
    far.setPos(90, 10)
    item.addItem(far, ignoreBounds=True)
    markers.setData([*xs, 90.0], [*ys, 10.0])
    for label, x, y in zip(labels, xs, ys, strict=True):  # put back home, as a chart does
        label.setPos(x, y)
        label.setVisible(True)
    declutter.set_labels([*labels, far], [markers])
    declutter.place()
    monkey.undo()
    assert len(tried) == 1  # the new label only
    incremental = [(t.isVisible(), t.pos().x(), t.pos().y()) for t in [*labels, far]]
    hidden = list(declutter.hidden)
    declutter._memo, declutter._placed_for = {}, ()
    declutter.place()
    assert [(t.isVisible(), t.pos().x(), t.pos().y()) for t in [*labels, far]] == incremental
    assert declutter.hidden == hidden
    # A marker under a placed label: that label (and what it pushes) tried again.
    x0, y0 = xs[0], ys[0]
    markers.setData([*xs, 90.0, x0 + 1], [*ys, 10.0, y0])
    tried.clear()
    monkey.setattr(module, "_free_offset", counted)
    for label, x, y in zip(labels, xs, ys, strict=True):
        label.setPos(x, y)
        label.setVisible(True)
    far.setPos(90, 10)
    declutter.set_labels([*labels, far], [markers])
    declutter.place()
    monkey.undo()
    assert 1 <= len(tried) <= len(labels)
    incremental = [(t.isVisible(), t.pos().x(), t.pos().y()) for t in [*labels, far]]
    declutter._memo, declutter._placed_for = {}, ()
    declutter.place()
    assert [(t.isVisible(), t.pos().x(), t.pos().y()) for t in [*labels, far]] == incremental


@pytest.mark.parametrize("loads", [12, 45, 130])
@pytest.mark.parametrize("size", [(1400, 460), (640, 300)])
def test_load_axis_numbers_never_overlap(qtbot, loads: int, size: tuple[int, int]) -> None:
    curves = _curves(qtbot, *size)
    _draw(qtbot, curves, [_point(c) for c in range(1, loads + 1)])
    for plot in curves.plots().values():
        axis = plot.getPlotItem().getAxis("bottom")
        picture = QPicture()
        painter = QPainter(picture)
        _axis, ticks, texts = axis.generateDrawSpecs(painter)
        painter.end()
        shown = sorted((r for r, _flags, text in texts if text), key=lambda r: r.left())
        assert len(ticks) >= loads  # a tick and grid line at every load
        assert shown and len(shown) <= loads
        assert all(a.right() <= b.left() for a, b in itertools.pairwise(shown))
    if loads == 12 and size[0] == 1400:
        assert len(shown) == loads  # room for every number: all of them


def test_spaced_labels_keep_every_kth() -> None:
    labels = [str(n) for n in range(1, 101)]
    assert spaced_labels(labels, 4000, lambda t: 8.0 * len(t), 6) == labels
    thinned = spaced_labels(labels, 500, lambda t: 8.0 * len(t), 6)  # 5 px a load, 30 needed
    assert thinned[:11] == ["1", "", "", "", "", "", "", "", "", "", "11"]
    assert spaced_labels([], 500, len, 1) == []
