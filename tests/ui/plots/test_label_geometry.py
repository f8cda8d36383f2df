"""Chart labels read as geometry on real widgets (offscreen): the Roofline dock's leader lines
never cross, and no label sits on a plotted line (the floor curve, a point's p50-p99 band, the
dotted floor of the sweep's TPOT chart, the Pareto chart's hardware curve). A label the chart
had no room for is named on its point: hovering the marker shows it."""

from __future__ import annotations

import math
import re

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from app.ui.plots.capacity import Marks, draw_marks
from app.ui.plots.declutter import (
    LEADER_REACH,
    MARKER_PX,
    Segment,
    crosses,
    leader_to,
    segments_cross,
)
from app.ui.plots.sweep_curves import Series, SweepCurves
from tests.ui.rows import row_of


def _segments(plot: pg.PlotItem, curve: pg.PlotDataItem) -> list[Segment]:
    """A curve's drawn segments in scene pixels (pairs for connect='pairs')."""
    vb = plot.getViewBox()
    xs, ys = curve.getData()
    if xs is None or len(xs) < 2:
        return []
    pts = [vb.mapViewToScene(QPointF(float(x), float(y))) for x, y in zip(xs, ys, strict=True)]
    step = 2 if curve.opts.get("connect") == "pairs" else 1
    return [
        (pts[k].x(), pts[k].y(), pts[k + 1].x(), pts[k + 1].y())
        for k in range(0, len(pts) - 1, step)
        if all(math.isfinite(v) for v in (pts[k].x(), pts[k].y(), pts[k + 1].x(), pts[k + 1].y()))
    ]


def _on_lines(labels, segments: list[Segment]) -> list[str]:
    return [
        t.toPlainText()
        for t in labels
        if t.isVisible() and any(crosses(t.sceneBoundingRect(), s, 0.0) for s in segments)
    ]


def _dock(qtbot, loads, size=(420, 640)):
    from app.ui.panels.roofline.panel import RooflinePanel

    panel = RooflinePanel()
    qtbot.addWidget(panel)
    panel.set_context("rtx3090", "qwen2.5-7b", "bf16", "fp16")
    panel.resize(*size)
    panel.show()
    qtbot.waitExposed(panel)
    for c, p50, p99, batch in loads:
        panel.add_measured_point(c, p50, p99, running_batch=batch)
    plot = panel.batch_plot

    def settled() -> bool:
        plot.grab()
        return not plot._relayout_timer.isActive() and not plot.declutter.pending

    qtbot.waitUntil(settled)
    return panel, plot


# A server of 4 sequences: loads from 4 up run at a batch of about 4 (c1 was pushed right past
# every band, its leader crossing the others'); the demo sweep; a sweep past the KV capacity.
DOCK_CASES = {
    "four_slots": ((1, 19.7, 20.5, 1), (2, 20.0, 21.5, 2), (4, 20.4, 23, 4), (8, 20.6, 40, 4),
                   (16, 20.7, 80, 4), (32, 20.8, 160, 4)),
    "demo": ((1, 19.61, 31.0, 1), (4, 19.84, 23.5, 3.6), (16, 22.86, 24.9, 9.5),
             (32, 30.87, 41.4, 17.0)),
    "big_batches": ((8, 16.0, 18.0, 8), (32, 19.0, 24.0, 32), (64, 24.0, 33.0, 64),
                    (128, 38.0, 52.0, 128), (256, 70.0, 90.0, 165)),
    # The demo sweep of the final screenshots (1400 x 900, Chinese): "c4: 77%" sat beside the
    # c16 marker, its leader running back across c16's bar.
    "demo_late": ((1, 19.61, 20.11, 1.0), (4, 19.72, 22.26, 3.6), (16, 20.28, 32.88, 9.5),
                  (32, 30.99, 40.31, 16.0)),
    # Another demo sweep (1280 x 720, Chinese): "c4: 77%" went beside the c16 marker, whose
    # bar is short, and c16's label above c4's.
    "demo_short_bar": ((1, 19.61, 19.79, 1.0), (4, 19.81, 22.63, 3.6), (16, 20.95, 21.01, 9.0),
                       (32, 31.14, 41.41, 16.0)),
}  # fmt: skip
DOCK_SIZES = [(420, 640), (360, 480), (375, 800), (340, 680)]  # the last two: the window's


@pytest.fixture
def chinese(qapp):
    """The window's Chinese (wider labels: "c4：77%")."""
    from app.ui.app_setup_i18n import Translations

    translations = Translations(qapp)
    assert translations.install("zh_CN")
    yield
    translations.install("en")


@pytest.mark.parametrize("case", list(DOCK_CASES))
@pytest.mark.parametrize("size", DOCK_SIZES)
def test_dock_labels_in_chinese_sit_beside_their_own_points(qtbot, chinese, case, size) -> None:
    panel, plot = _dock(qtbot, DOCK_CASES[case], size)
    assert all("：" in t.toPlainText() for t in panel._mbu_texts)  # "c4：77%"
    _labels_beside_their_points(panel, plot)


@pytest.mark.parametrize("case", list(DOCK_CASES))
@pytest.mark.parametrize("size", DOCK_SIZES)
def test_dock_leaders_never_cross_and_labels_keep_off_the_lines(qtbot, case, size) -> None:
    panel, plot = _dock(qtbot, DOCK_CASES[case], size)
    item = plot.getPlotItem()
    leaders = plot.leader_segments()
    for k, a in enumerate(leaders):
        for b in leaders[k + 1 :]:
            assert not segments_cross(a, b), (case, a, b)
    labels = panel._mbu_texts
    lines = _segments(item, plot.floor_curve) + _segments(item, plot.band_curve)
    assert _on_lines(labels, lines) == [], case
    # Every label is on the chart or named on its point.
    shown = [t for t in labels if t.isVisible()]
    names = list(plot.measured_curve.scatter.data["data"])
    for t in labels:
        assert t.toPlainText() in names
    assert len(shown) >= len(labels) // 2
    _labels_beside_their_points(panel, plot)


def _labels_beside_their_points(panel, plot) -> None:
    """Each label shown sits beside its own point: its leader (from the point to the label's
    near side) at most LEADER_REACH of its heights long, over no other point's marker, across
    no other point's bar (but those of a point drawn on top of its own) and through no other
    label, and no other point nearer its end than its own."""
    vb = plot.getPlotItem().getViewBox()

    def px(x: float, y: float) -> tuple[float, float]:
        at = vb.mapViewToScene(QPointF(math.log10(x), y))
        return at.x(), at.y()

    bars = {
        m.concurrency: (*px(m.batch, m.p50_ms), *px(m.batch, m.p99_ms)) for m in panel._measured
    }
    for m in panel._measured:
        [label] = [t for t in panel._mbu_texts if _names(t, m.concurrency)]
        if not label.isVisible():
            continue
        rect = label.sceneBoundingRect()
        leader = leader_to(bars[m.concurrency][:2], rect)
        name = label.toPlainText()
        assert math.dist(leader[:2], leader[2:]) <= LEADER_REACH * rect.height(), name
        for other, bar in bars.items():
            if other == m.concurrency or math.dist(bar[:2], leader[:2]) <= MARKER_PX:
                continue  # its own, or drawn on top of it (no leader can leave it clear)
            assert not segments_cross(leader, bar), (name, "crosses the bar of", other)
            assert _distance_to(leader, bar[:2]) > MARKER_PX, (name, "over the marker of", other)
            # Its leader's end nearer its own point than any other: beside another marker it
            # reads as that one's.
            end = leader[2:]
            assert math.dist(end, bar[:2]) > math.dist(end, leader[:2]), (name, "beside", other)
        for other in panel._mbu_texts:
            if other is not label and other.isVisible():
                assert not crosses(other.sceneBoundingRect(), leader, 0.0), (name, "through", other)


def _names(label, concurrency: int) -> bool:
    """Whether a dock label names that concurrency ("c4: 77%", in Chinese "c4：77%")."""
    return re.match(rf"c{concurrency}[:：]", label.toPlainText()) is not None


def _distance_to(seg: Segment, at: tuple[float, float]) -> float:
    (x1, y1, x2, y2), (x, y) = seg, at
    span = (x2 - x1) ** 2 + (y2 - y1) ** 2
    t = max(0.0, min(1.0, ((x - x1) * (x2 - x1) + (y - y1) * (y2 - y1)) / (span or 1.0)))
    return math.dist((x, y), (x1 + t * (x2 - x1), y1 + t * (y2 - y1)))


def _hover(plot: pg.PlotWidget, scene_pos: QPointF) -> bool:
    """The mouse moved onto a place of the chart, as the window system delivers it (again on
    each call: pyqtgraph rate-limits the hover events it passes on)."""
    at = plot.mapFromScene(scene_pos)
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(at),
        QPointF(plot.viewport().mapToGlobal(at)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(plot.viewport(), event)
    return True


def test_hovering_a_dock_point_names_it(qtbot) -> None:
    panel, plot = _dock(qtbot, DOCK_CASES["demo"])
    vb = plot.getPlotItem().getViewBox()
    for m, label in zip(panel._measured, panel._mbu_texts, strict=False):
        name = next(t.toPlainText() for t in panel._mbu_texts
                    if t.toPlainText().startswith(f"c{m.concurrency}:"))  # fmt: skip
        at = vb.mapViewToScene(QPointF(math.log10(m.batch), m.p50_ms))
        qtbot.waitUntil(lambda name=name, at=at: _hover(plot, at) and vb.toolTip() == name)
        del label


def test_a_load_label_with_no_room_is_named_when_its_point_is_hovered(qtbot) -> None:
    curves = SweepCurves()
    qtbot.addWidget(curves)
    curves.resize(700, 260)  # squeezed: some of the bunched loads' labels have no room
    curves.show()
    qtbot.waitExposed(curves)
    points = [_sweep_point(1, 100, 20.0, 50.0, 15.0), _sweep_point(2, 100, 21.0, 95.0, 15.0)]
    points += [_sweep_point(c, 900, 40.0 + c / 64, 800.0 + c / 8, 15.0)
               for c in (8, 16, 24, 32, 48, 64, 96, 128)]  # fmt: skip
    curves.set_series([Series("lead", [row_of(p) for p in points])])
    pareto = curves.pareto
    qtbot.waitUntil(lambda: not pareto.declutter.pending)
    hidden = [t for t in pareto.texts if not t.isVisible()]
    assert hidden, "every label was placed: no case for the point's name"
    vb = pareto.getPlotItem().getViewBox()
    for label in hidden:
        name = label.toPlainText()
        at = label.parentItem().mapToScene(pareto.declutter.home(label))
        qtbot.waitUntil(lambda name=name, at=at: _hover(pareto, at) and name in vb.toolTip())
        assert name in pareto.toolTip()


def _sweep_point(c: int, ttft: float, tpot: float, tok_s: float, floor: float) -> dict:
    return {"max_concurrency": c, "request_rate": "inf", "completed": 256, "num_prompts": 256,
            "p99_ttft_ms": ttft, "median_tpot_ms": tpot, "p99_tpot_ms": tpot * 1.2,
            "output_throughput": tok_s,
            "tpotbench": {"roofline": {"floor_tpot_ms": floor, "batch": c}}}  # fmt: skip


@pytest.mark.parametrize("height", [380, 300])
def test_sweep_mark_labels_keep_off_the_dotted_floor(qtbot, height: int) -> None:
    curves = SweepCurves()
    qtbot.addWidget(curves)
    curves.resize(860, height)
    curves.show()
    qtbot.waitExposed(curves)
    # The floor climbs through the bottom of the TPOT chart, where "capacity 4" sits.
    loads = ((1, 120, 20, 60, 15), (2, 140, 21, 110, 15.3), (4, 700, 23, 200, 16.0),
             (8, 1000, 30, 330, 17.5), (16, 1050, 45, 420, 21.0))  # fmt: skip
    points = [_sweep_point(*row) for row in loads]
    series = [Series("lead", [row_of(p) for p in points])]
    curves.set_series(series)
    marks = Marks(slos=["tpot:p99:40"], highest_pass=4, lowest_fail=8, knees={"tpot": 4})
    draw_marks(curves, series, marks)
    qtbot.waitUntil(lambda: not any(d.pending for d in curves.declutter.values()))
    item = curves.tpot.getPlotItem()
    labels = [i.label for i in item.items if isinstance(i, pg.InfiniteLine) and i.label]
    assert any("capacity" in t.toPlainText() for t in labels)
    curves_drawn = [i for i in item.listDataItems() if i.opts.get("pen") is not None]
    assert any(i.opts["pen"].style() == Qt.PenStyle.DotLine for i in curves_drawn)  # the floor
    lines = [s for c in curves_drawn for s in _segments(item, c)]
    assert _on_lines(labels, lines) == []
    # A mark's label with no room is named on its line: hovering the line shows it.
    for t in labels:
        if not t.isVisible():
            assert t.toPlainText() in t.parentItem().toolTip()


def test_pareto_hardware_labels_keep_off_the_hardware_curve(qtbot) -> None:
    curves = SweepCurves()
    qtbot.addWidget(curves)
    curves.resize(860, 380)
    curves.show()
    qtbot.waitExposed(curves)
    roof = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16", "kv_dtype": "fp16",
            "context": 512}  # fmt: skip
    points = []
    for c, tpot, tok_s in ((1, 19.7, 50.0), (4, 20.4, 190.0), (16, 23.0, 650.0), (32, 31, 900)):
        p = _sweep_point(c, 100.0, tpot, tok_s, 15.0)
        p["tpotbench"]["roofline"] = {**roof, "batch": float(c), "tensor_parallel": 1}
        points.append(p)
    curves.set_series([Series("lead", [row_of(p) for p in points])])
    pareto = curves.pareto
    qtbot.waitUntil(lambda: not pareto.declutter.pending)
    item = pareto.getPlotItem()
    hardware = [t for t in pareto.texts if t.toPlainText().startswith("b=")]
    assert hardware
    lines = _segments(item, pareto.data_items["hardware 0"])
    assert _on_lines(hardware, lines) == []
    # Every load and every named batch can be read at its point.
    names = list(pareto.data_items["points 0"].scatter.data["data"])
    assert names == [f"conc {c}" for c in (1, 4, 16, 32)]
