"""The Results tab's Compare view and definitions switch, in English and Chinese: pick two runs,
see the verdicts; switch the table to GuideLLM's definitions and read its figures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.ui.app_setup_i18n import Translations
from app.ui.panels.results.panel import ResultsPanel
from tests.bench.compare.synthetic import point_doc


@pytest.fixture
def root(tmp_path: Path) -> Path:
    rng = np.random.default_rng(5)
    for name, scale in (("base", 1.0), ("slower", 1.4)):
        folder = tmp_path / name
        folder.mkdir()
        doc = point_doc(rng, 120, scale=scale)
        doc["label"] = name
        (folder / f"{name}_rateinf_conc16.json").write_text(json.dumps(doc))
    return tmp_path


@pytest.fixture
def translations():  # type: ignore[no-untyped-def]
    t = Translations(QApplication.instance())
    yield t
    t.install("en")


def _cell(table, row: int, col: int) -> str:  # type: ignore[no-untyped-def]
    return table.item(row, col).text()


def _rows(table, figure: str) -> list[str]:  # type: ignore[no-untyped-def]
    for row in range(table.rowCount()):
        if table.item(row, 1).text().startswith(figure + " "):
            return [_cell(table, row, c) for c in range(table.columnCount())]
    raise KeyError(figure)


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_pick_two_runs_and_read_the_verdicts(qtbot, root: Path, translations, lang: str) -> None:
    translations.install(lang)
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(root)
    view = panel.compare
    names = [panel.compare.base.itemText(i) for i in range(view.base.count())]
    assert len(names) == 2
    base = next(n for n in names if "base" in n)
    slower = next(n for n in names if "slower" in n)
    # selecting the two runs in the list picks them for the Compare view
    for i in range(panel.tree.topLevelItemCount()):
        panel.tree.topLevelItem(i).setSelected(True)
    assert {view.base.currentText(), view.candidate.currentText()} == {base, slower}
    view.pick(base, slower)
    panel.chart_tabs.setCurrentWidget(view)
    qtbot.mouseClick(view.compare_button, Qt.MouseButton.LeftButton)
    worse, unknown = ("worse", "unknown") if lang == "en" else ("更差", "未知")
    ttft = _rows(view.table, "ttft:mean")
    assert ttft[2] == worse and ttft[3].startswith("+")
    assert _rows(view.table, "ttft:p99")[2] == unknown  # 120 requests: too few for a p99
    assert _rows(view.table, "goodput")[2] == unknown
    method = view.method.text()
    assert ("bootstrap" in method) if lang == "en" else ("自助法" in method)
    # and the other way round: the faster run is better
    view.pick(slower, base)
    qtbot.mouseClick(view.compare_button, Qt.MouseButton.LeftButton)
    assert _rows(view.table, "tpot:mean")[2] == ("better" if lang == "en" else "更好")
    assert panel.chart_tabs.tabText(2) == ("Compare" if lang == "en" else "对比")


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_definitions_switch_shows_the_tools_figures(
    qtbot, root: Path, translations, lang: str
) -> None:
    translations.install(lang)
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.set_folder(root)
    panel.show_runs([panel.runs[0].name])
    assert panel.tables.currentWidget() is panel.table
    panel.definitions.setCurrentIndex(panel.definitions.findData("guidellm"))
    assert panel.tables.currentWidget() is panel.tool_table
    doc = json.loads(next((root / "base").glob("*.json")).read_text())
    block = doc["tpotbench"]["requests"]
    e2el, n = np.asarray(block["e2el_ms"]), np.asarray(block["output_tokens"])
    want = e2el.sum() / n.sum()  # GuideLLM: E2EL / n weighted by n
    assert float(panel.tool_table.cell(0, "TPOT (incl. TTFT) mean")) == pytest.approx(
        want, abs=0.01
    )
    assert "GuideLLM" in panel.definitions_note.text()
    panel.definitions.setCurrentIndex(panel.definitions.findData("aiperf"))
    tpot = np.asarray(block["tpot_ms"]).mean()
    assert float(panel.tool_table.cell(0, "ITL (= vLLM TPOT) mean")) == pytest.approx(
        tpot, abs=0.01
    )
    panel.definitions.setCurrentIndex(panel.definitions.findData("vllm"))
    assert panel.tables.currentWidget() is panel.table
    assert panel.definitions_label.text() == ("Definitions" if lang == "en" else "指标定义")
