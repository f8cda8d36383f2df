"""The roofline panel on the reference case: floor, MBU, what-if, selectors and tooltips."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF, Qt

from app.roofline.catalog import CatalogError
from app.roofline.context import RooflineContext
from app.ui.panels.roofline.custom_gpu_dialog import CustomGpuDialog
from app.ui.panels.roofline.panel import RooflinePanel

# Reference case by hand, context 512 (the panel's default):
#   bytes per step = 14,141,238,272 (weights + LM head) + 512 * 57,344 (KV) = 14,170,598,400 B
#   floor = 14,170,598,400 / 936e9 = 15.1395 ms
#   MBU at 19.7 ms = 14,170,598,400 / 0.0197 / 936e9 = 76.85 % (shown as 76.9 %)
#   AWQ INT4: 4,480,752,640 + 29,360,128 = 4,510,112,768 B / 936e9 = 4.8185 ms (31.8 %)


@pytest.fixture
def panel(qtbot):
    widget = RooflinePanel()
    qtbot.addWidget(widget)
    widget.set_context("rtx3090", "qwen2.5-7b", "bf16", "fp16")
    return widget


def test_reference_floor_label_and_line(panel):
    assert "15.14 ms" in panel.floor_label.text()
    assert panel.floor_line.value() == pytest.approx(15.1395, abs=1e-4)
    assert "15.1 ms" in panel.floor_line.label.format
    assert "max(bytes ÷ bandwidth" in panel.floor_label.toolTip()
    assert "14.171 GB ÷ 936 GB/s" in panel.floor_label.toolTip()
    assert "84,896 tokens" in panel.capacity_label.text()
    assert "66.1 tok/s" in panel.speed_label.text()


def test_measured_point_gives_mbu(panel):
    assert "run a probe or sweep" in panel.mbu_label.text()
    panel.add_measured_point(1, 19.7, 19.8)
    assert "76.9 %" in panel.mbu_label.text()
    assert "19.70 ms ÷ 936 GB/s = 76.9 %" in panel.mbu_label.toolTip()
    # xData/yData are the data as given (getData() returns the log10-mapped x)
    curve = panel.measured_curve
    assert list(curve.xData) == [1.0] and list(curve.yData) == [19.7]
    assert [t.toPlainText() for t in panel._mbu_texts] == ["c1: 77%"]  # concurrency and MBU
    # the server's running batch, when known, places the point instead of the concurrency
    panel.add_measured_point(32, 30.0, 60.0, running_batch=28.0)
    assert list(curve.xData) == [1.0, 28.0]
    assert list(panel.band_curve.yData) == [19.7, 19.8, 30.0, 60.0]
    panel.clear_measured()
    assert curve.xData is None or len(curve.xData) == 0
    assert panel._mbu_texts == []


def test_live_probe_tpot(panel):
    panel.set_live_tpot_ms(19.7)
    assert "76.9 %" in panel.mbu_label.text()
    assert "live probe" in panel.mbu_label.text()


def test_whatif_table_has_awq_int4_at_under_half(panel):
    rows = {r[0]: r for r in panel.whatif_rows() if len(r) == 5}
    assert rows["BF16"][1] == "15.14 ms"
    awq = rows["AWQ INT4 (group 128)"]
    assert awq[1] == "4.82 ms"
    assert float(awq[1].split()[0]) / 15.14 < 0.5
    assert awq[4] == "3.14×"
    assert "NVIDIA H100 SXM5 80 GB" in rows
    assert "3.1× faster" in panel.gain_label.text()
    item = panel.whatif_table.item(2, 1)  # BF16 floor cell, under the first section row
    assert "per step ÷ 936 GB/s" in item.toolTip()


def test_user_change_emits_context_and_set_context_does_not(panel, qtbot):
    seen: list[RooflineContext] = []
    panel.contextChanged.connect(seen.append)
    panel.set_context(fmt="fp8")
    assert seen == []
    with qtbot.waitSignal(panel.contextChanged, timeout=1000) as blocker:
        panel.picker.fmt_combo.setCurrentIndex(panel.picker.fmt_combo.findData("awq-int4"))
    assert blocker.args[0] == RooflineContext("rtx3090", "qwen2.5-7b", "awq-int4", "fp16", 512, 1)
    assert "4.82 ms" in panel.floor_label.text()


def test_bad_context_is_refused_and_nothing_changes(panel):
    with pytest.raises(CatalogError, match="unknown GPU 'rtx9999'"):
        panel.set_context("rtx9999", None, None, None)
    assert panel.context().gpu_id == "rtx3090"


def test_config_json_model(panel, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text("{oops")
    assert not panel.load_model_config(str(bad))
    assert ": not valid JSON" in panel.floor_label.text()
    good = tmp_path / "tiny" / "config.json"
    good.parent.mkdir()
    good.write_text(
        json.dumps(
            {"model_type": "llama", "hidden_size": 1024, "intermediate_size": 4096,
             "num_hidden_layers": 8, "num_attention_heads": 8, "vocab_size": 1000}
        )
    )  # fmt: skip
    assert panel.load_model_config(str(good))
    assert panel.context().model_id == str(good)


def test_custom_gpu_dialog_adds_gpu(panel, qtbot):
    dialog = CustomGpuDialog(panel)
    dialog.save()
    assert "id" in dialog.error.text()
    dialog.id_edit.setText("lab-card")
    dialog.source_edit.setText("vendor sheet rev 2")
    dialog.bandwidth.setValue(1872)
    dialog.save()
    assert dialog.gpu is not None and dialog.gpu.id == "lab-card"
    panel.picker.fill()
    panel.set_context(gpu_id="lab-card")
    # twice the RTX 3090's bandwidth: 14,170,598,400 / 1872e9 = 7.57 ms
    assert "7.57 ms" in panel.floor_label.text()


def test_panel_renders(panel, qtbot):
    panel.resize(560, 820)
    panel.add_measured_point(1, 19.7, 19.8)
    panel.show()
    qtbot.waitExposed(panel)
    image = panel.grab().toImage()
    assert image.width() == 560
    colours = {image.pixel(x, y) for x in range(0, 560, 7) for y in range(300, 820, 7)}
    assert len(colours) > 5  # the plot drew something, not a blank rectangle
    panel.hide()


def _labels_settled(chart) -> bool:
    """A paint settles the view's ranges (and TextItems place their box relative to the view
    then); a range change lays the labels out again on the next event-loop turn."""
    chart.grab()
    return not chart._relayout_timer.isActive() and not chart.declutter.pending


def test_labels_of_close_points_do_not_overlap_and_name_the_concurrency(qtbot, panel):
    panel.resize(420, 760)
    panel.show()
    qtbot.waitExposed(panel)
    # A demo sweep: concurrency 4..32 ran at 2.3..5.4 sequences on the server.
    for conc, p50, running in ((4, 19.68, 2.3), (8, 20.07, 3.8), (16, 20.34, 4.2), (32, 24.0, 5.4)):
        panel.add_measured_point(conc, p50, p50 * 1.5, running)
    qtbot.waitUntil(lambda: _labels_settled(panel.batch_plot))
    texts = panel._mbu_texts
    assert sorted(t.toPlainText().split(":")[0] for t in texts) == ["c16", "c32", "c4", "c8"]
    # A label with no room beside its point is left out, named on its point and in the tooltip.
    for t in texts:
        assert t.isVisible() or t.toPlainText() in panel.batch_plot.toolTip()
    texts = [t for t in texts if t.isVisible()]
    rects = [t.sceneBoundingRect() for t in texts]
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert not a.intersects(b), (a, b)
    # Nor does a label run across another point's p50-p99 band (drawn 6 px wide).
    vb = panel.batch_plot.getPlotItem().getViewBox()
    for m in panel._measured:
        low = vb.mapViewToScene(QPointF(math.log10(m.batch), m.p50_ms))
        high = vb.mapViewToScene(QPointF(math.log10(m.batch), m.p99_ms))
        band = QRectF(low.x() - 3, high.y(), 6, low.y() - high.y())
        for text, rect in zip(texts, rects, strict=True):
            if not text.toPlainText().startswith(f"c{m.concurrency}:"):
                assert not rect.intersects(band), (text.toPlainText(), m)


def test_whatif_names_wrap_instead_of_eliding(qtbot, panel):
    panel.resize(420, 760)
    panel.show()
    panel.tabs.setCurrentWidget(panel.whatif)
    qtbot.waitExposed(panel)
    table = panel.whatif_table

    def names_fit() -> None:
        line = table.fontMetrics().height()
        column = table.columnWidth(0)
        for row in range(table.rowCount()):
            item = table.item(row, 0)
            if item is None or table.columnSpan(row, 0) > 1:
                continue
            needed = table.fontMetrics().horizontalAdvance(item.text()) > column - 8
            if needed:  # a name wider than the column gets a second line, never an ellipsis
                assert table.rowHeight(row) >= 2 * line, item.text()

    # Row heights follow the column width once the table has laid itself out.
    qtbot.waitUntil(names_fit)


def test_labels_near_the_steep_floor_do_not_cross_it(qtbot, panel):
    panel.resize(420, 760)
    panel.show()
    qtbot.waitExposed(panel)
    plot = panel.batch_plot
    floor_b = np.asarray(plot.floor_curve.xData, dtype=float)
    floor_ms = np.asarray(plot.floor_curve.yData, dtype=float)
    # Points just above the floor where it climbs fast (the batch nears the KV capacity).
    for conc, batch in ((64, 60.0), (128, 110.0)):
        p50 = float(np.interp(batch, floor_b, floor_ms)) * 1.04
        panel.add_measured_point(conc, p50, p50 * 1.02, batch)
    qtbot.waitUntil(lambda: _labels_settled(plot))
    vb = plot.getPlotItem().getViewBox()
    floor_b = np.asarray(plot.floor_curve.xData, dtype=float)
    floor_ms = np.asarray(plot.floor_curve.yData, dtype=float)
    for text in panel._mbu_texts:
        rect = text.sceneBoundingRect()
        left = vb.mapSceneToView(QPointF(rect.left(), rect.center().y())).x()
        right = vb.mapSceneToView(QPointF(rect.right(), rect.center().y())).x()
        for lx in np.linspace(left, right, 25):
            ms = float(np.interp(10**lx, floor_b, floor_ms))
            y = vb.mapViewToScene(QPointF(lx, ms)).y()
            assert not rect.top() <= y <= rect.bottom(), (text.toPlainText(), 10**lx, ms)


def test_a_label_moves_off_the_live_marker(qtbot, panel):
    panel.resize(420, 760)
    panel.show()
    qtbot.waitExposed(panel)
    plot = panel.batch_plot
    # The demo sweep's points; c1's label is pushed right past the bands of c4 and c16.
    for conc, p50, p99, running in (
        (1, 19.6, 19.9, 1.0),
        (4, 19.8, 22.3, 2.3),
        (16, 20.3, 33.0, 8.0),
    ):
        panel.add_measured_point(conc, p50, p99, running)
    qtbot.waitUntil(lambda: _labels_settled(plot))
    vb = plot.getPlotItem().getViewBox()
    (c1,) = [t for t in panel._mbu_texts if t.toPlainText().startswith("c1:")]
    where = vb.mapSceneToView(c1.sceneBoundingRect().center())
    # A running sweep's live TPOT lands right there.
    panel.set_live_tpot_ms(where.y(), 10 ** where.x(), "live")
    qtbot.waitUntil(lambda: _labels_settled(plot))
    marker = vb.mapViewToScene(QPointF(where.x(), where.y()))
    for text in panel._mbu_texts:
        if not text.isVisible():  # left out (no room beside its point): named on its point
            assert text.toPlainText() in plot.toolTip()
            continue
        rect = text.sceneBoundingRect().adjusted(-4, -4, 4, 4)  # the marker's own size
        assert not rect.contains(marker), (text.toPlainText(), rect, marker)


def test_labels_stay_in_view_when_the_live_marker_and_the_floor_crowd_them(qtbot, panel):
    # The Chinese demo at 1280x720: c1's label, pushed right past c4, c16 and the live
    # marker, met the floor curve and jumped left of its own point, out of the view.
    panel.resize(360, 560)
    panel.show()
    qtbot.waitExposed(panel)
    plot = panel.batch_plot
    demo = ((1, 19.6, 19.81, 1.0), (4, 19.74, 22.38, 2.3), (16, 20.26, 32.93, 8.0))
    for conc, p50, p99, running in (*demo, (32, 26.59, 32.21, 10.0)):
        panel.add_measured_point(conc, p50, p99, running)
    panel.set_live_tpot_ms(20.3, 17.0, "live")
    qtbot.waitUntil(lambda: _labels_settled(plot))
    vb = plot.getPlotItem().getViewBox()
    view = vb.sceneBoundingRect()
    marker = vb.mapViewToScene(QPointF(math.log10(17.0), 20.3))
    for text in panel._mbu_texts:
        rect = text.sceneBoundingRect()
        assert view.contains(rect), (text.toPlainText(), rect, view)
        assert not rect.adjusted(-4, -4, 4, 4).contains(marker), text.toPlainText()


def test_the_chart_shows_the_latest_sweep_or_all_and_clears(qtbot, panel):
    """A session's sweeps no longer pile up on one chart: the latest by default, all on
    request, and Clear empties it."""
    panel.start_run()
    for conc, p50 in ((1, 19.7), (4, 20.1)):
        panel.add_measured_point(conc, p50, p50 * 1.2)
    panel.start_run()  # the next sweep
    for conc, p50 in ((8, 20.5), (16, 21.0), (32, 25.0)):
        panel.add_measured_point(conc, p50, p50 * 1.2)
    xs, _ = panel.measured_curve.getData()
    assert len(xs) == 3 and [m.concurrency for m in panel._measured] == [8, 16, 32]
    assert sorted(t.toPlainText().split(":")[0] for t in panel._mbu_texts) == ["c16", "c32", "c8"]
    panel.runs_combo.setCurrentIndex(panel.runs_combo.findData("all"))
    assert len(panel.measured_curve.getData()[0]) == 5
    assert panel.clear_button.isEnabled()
    qtbot.mouseClick(panel.clear_button, Qt.MouseButton.LeftButton)
    xs, _ = panel.measured_curve.getData()
    assert xs is None or len(xs) == 0
    assert panel._mbu_texts == [] and not panel.clear_button.isEnabled()


def test_the_legend_sits_off_the_data(qtbot, panel):
    item = panel.batch_plot.getPlotItem()
    assert item.legend is None  # no box over the points
    title = item.titleLabel.text
    for word in ("floor", "measured p50–p99", "live"):
        assert word in title
    # The KV-full label sits left of its line: at the axis' right end it stays in the chart.
    assert panel.batch_plot.kv_line.label.anchors[0] == (1, 0.5)


def test_the_add_gpu_message_is_shown_whole(panel, qtbot):
    dialog = CustomGpuDialog(panel)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.save()  # no id, no source: the two-line message
    error = dialog.error

    def whole() -> None:
        assert error.height() >= error.heightForWidth(error.width())  # no line cut off
        assert error.geometry().bottom() <= dialog.height()

    qtbot.waitUntil(whole)
    dialog.close()


def test_the_ridge_label_is_inside_the_roofline_plot(qtbot, panel):
    panel.resize(420, 760)
    panel.show()
    qtbot.waitExposed(panel)
    plot = panel.roof_plot
    panel.tabs.setCurrentWidget(plot)
    qtbot.waitUntil(plot.isVisible)
    vb = plot.getPlotItem().getViewBox()

    def inside() -> bool:
        box = vb.sceneBoundingRect()
        return box.contains(plot.ridge_text.sceneBoundingRect())

    assert "ridge" in plot.ridge_text.toPlainText()
    qtbot.waitUntil(lambda: vb.sceneBoundingRect().height() > 100)
    assert inside(), (plot.ridge_text.sceneBoundingRect(), vb.sceneBoundingRect())
