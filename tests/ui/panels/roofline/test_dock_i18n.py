"""The Roofline dock in Chinese: every word it shows (labels, tabs, buttons, the picker's names,
the charts' titles, axes, legends and texts, tooltips) is Chinese but for the figures' units and
the field's own names (GPU, TPOT, MBU, KV, FLOP/B, tok/s, token...)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QTabWidget, QWidget

from app.ui.app_setup_i18n import Translations

# Names the Chinese UI keeps as they are: units, metric and product names, number formats.
KEPT = {
    "gpu", "tpot", "ttft", "itl", "mbu", "kv", "flop", "tflop", "flops", "tok", "token", "tokens",
    "ms", "gb", "gib", "tb", "tp", "bf16", "fp16", "fp8", "int4", "awq", "gptq", "nvfp4",
    "geforce", "rtx", "qwen", "p50", "p99", "c1", "c4", "c16", "c32", "b", "s",
    "vllm", "metrics", "hugging", "face", "config", "json", "gpu_memory_utilization", "v", "h",
    "transformer", "x", "y", "max", "gflop", "mfu", "num_gpu_blocks", "torch", "mb",
}  # fmt: skip


def _words(text: str) -> list[str]:
    text = re.sub(r"<[^>]+>", " ", text)  # rich text: the tags are not shown
    # A command-line flag and a formula's function (floor(b)) are names, not words.
    text = re.sub(r"--[\w-]+|\b\w+\(", " ", text)
    return [w for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", text) if w.lower() not in KEPT]


def _shown(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) of everything the dock shows in words."""
    for label in root.findChildren(QLabel):
        yield "label", label.text()
    for button in root.findChildren(QAbstractButton):
        yield "button", button.text()
    for tabs in root.findChildren(QTabWidget):
        for i in range(tabs.count()):
            yield "tab", tabs.tabText(i)
    for widget in root.findChildren(QWidget):
        yield f"tooltip of {type(widget).__name__}", widget.toolTip()
    for plot in root.findChildren(pg.PlotWidget):
        item = plot.getPlotItem()
        yield "title", item.titleLabel.text
        for side in ("left", "bottom"):
            yield "axis", item.getAxis(side).labelText
        if item.legend is not None:
            for _sample, legend_label in item.legend.items:
                yield "legend", legend_label.text
        for child in item.items:
            if isinstance(child, pg.TextItem) and child.isVisible():
                yield "chart text", child.toPlainText()
            label = getattr(child, "label", None)
            if isinstance(label, pg.TextItem):
                yield "line label", label.toPlainText()


@pytest.fixture
def chinese(qapp) -> Iterator[None]:
    translations = Translations(QApplication.instance())
    translations.install("zh_CN")
    yield
    translations.install("en")


def test_roofline_dock_shows_no_english_in_chinese(qtbot, chinese) -> None:
    from app.ui.panels.roofline.panel import RooflinePanel

    panel = RooflinePanel()
    qtbot.addWidget(panel)
    panel.set_context("rtx3090", "qwen2.5-7b", "bf16", "fp16")
    panel.resize(420, 900)
    panel.show()
    qtbot.waitExposed(panel)
    for c, p50, p99, batch in ((1, 19.7, 31, 1), (4, 19.8, 23, 4), (16, 22.9, 25, 12)):
        panel.add_measured_point(c, p50, p99, running_batch=batch, output_tok_s=40.0 * batch)
    panel.set_live_tpot_ms(20.4, 32.0)
    english = [(where, text) for where, text in _shown(panel) if _words(text)]
    assert english == [], "\n".join(f"{w}: {t!r}" for w, t in english)
