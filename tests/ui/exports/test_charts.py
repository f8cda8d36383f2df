"""Chart export: the SVG draws what the PNG draws (opened in a real Chromium, compared pixel by
pixel)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtGui import QColor, QImage

from app.ui.exports.charts import export_curves
from app.ui.plots.chart import PALETTE
from app.ui.plots.sweep_curves import Series
from tests.report.browser import screenshot
from tests.ui.rows import row_of

SIZE = (900, 600)


def _points() -> list[dict]:
    return [
        {
            "max_concurrency": c,
            "request_rate": "inf",
            "output_throughput": 50 * c**0.8,
            "median_tpot_ms": 19 + c * 0.3,
            "p99_tpot_ms": 22 + c * 0.5,
            "p99_ttft_ms": 40.0 * c,
        }
        for c in (1, 4, 16, 32, 64)
    ]


def _pixels(image: QImage, colour: str) -> np.ndarray:
    """(x, y) of the pixels within a small distance of `colour` (the run's curve and dots)."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    raw = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(h, image.bytesPerLine())
    bgr = raw[:, : w * 4].reshape(h, w, 4)[:, :, :3].astype(int)
    want = QColor(colour)
    target = np.array([want.blue(), want.green(), want.red()])
    ys, xs = np.nonzero(np.abs(bgr - target).sum(axis=2) < 40)
    return np.column_stack([xs, ys])


def test_the_svg_export_draws_the_curve_where_the_png_does(qapp, tmp_path: Path) -> None:
    series = [Series("run", [row_of(p) for p in _points()])]
    [png, *_] = export_curves(series, tmp_path / "charts.png", size=SIZE)
    [svg, *_] = export_curves(series, tmp_path / "charts.svg", size=SIZE)
    assert png.name == "charts_throughput.png" and svg.name == "charts_throughput.svg"
    text = svg.read_text(encoding="utf-8")
    # Markers drawn as shapes: the on-screen pixmap atlas squeezed into each marker garbled them.
    assert "<image" not in text
    drawn = _pixels(QImage(str(png)), PALETTE[0])
    # As a browser shows the file: at its own size (Qt's SVG renderer hid the fault).
    shot = screenshot(svg, tmp_path / "svg.png", tmp_path / "chromium", size="900,600")
    rendered = _pixels(QImage(str(shot)), PALETTE[0])
    assert len(drawn) > 200 and len(rendered) > 200
    # The curve spans the same box, within a few pixels (it sat offset and scaled before).
    for axis in (0, 1):
        assert abs(int(drawn[:, axis].min()) - int(rendered[:, axis].min())) <= 4
        assert abs(int(drawn[:, axis].max()) - int(rendered[:, axis].max())) <= 4
    # Nearly every curve pixel of the PNG has an SVG curve pixel next to it.
    near = {(int(x) // 4, int(y) // 4) for x, y in rendered}
    hits = sum((int(x) // 4, int(y) // 4) in near for x, y in drawn)
    assert hits / len(drawn) > 0.9
