"""The doctor checklist in Chinese: titles, status words, explanations and the engine's
detail sentences all translated."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.bench.doctor.run import CHECK_IDS
from app.profiles import Target
from app.sim.embedded import RunningSim
from app.ui.app_setup_i18n import Translations
from app.ui.panels.doctor.panel import DoctorPanel, check_explanations, status_words


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    translations = Translations(qapp)
    assert translations.install("zh_CN")
    yield
    translations.install("en")


def test_every_check_has_an_explanation_and_every_status_a_word() -> None:
    assert set(check_explanations()) == set(CHECK_IDS)
    assert set(status_words()) == {"ok", "warn", "fail", "skip", "pending", "running"}


def test_chinese_titles_status_words_and_explanations(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, sim: RunningSim, chinese: None
) -> None:
    target = Target("sim", sim.base_url, "chat", "qwen2.5-7b")
    panel = DoctorPanel(lambda: target)
    qtbot.addWidget(panel)
    path = panel.rows["path"]
    assert "URL 路径" in path.title.text()
    assert "未运行" in path.title.text()  # "not run", before any check
    assert path.explanation.text() == "URL 是否正确：带不带 /v1，/api 还是 /api/v1（404/405）。"
    assert panel.rows["auth"].explanation.text().startswith("API 密钥是否已发送")
    with qtbot.waitSignal(panel.finished, timeout=20_000) as blocker:
        panel.start()
    assert blocker.args[0].ok is True
    for cid in CHECK_IDS:
        assert "通过" in panel.rows[cid].title.text(), cid  # "passed"
    detail = panel.rows["path"].detail.text()
    assert detail == f"POST {sim.base_url}/v1/chat/completions 返回 HTTP 200"
    metrics = panel.rows["metrics"].detail.text()
    assert metrics == (
        f"{sim.root_url}/metrics 上是 vLLM（V1 指标名）；KV 缓存 5,306 块 × 16 = 84,896 个 token；"
        "可同时容纳 20 个占满 4,096 token 上下文的请求"
    )


def test_english_status_words_by_default(qtbot: QtBot) -> None:
    panel = DoctorPanel(lambda: Target("x", "http://127.0.0.1:1", "chat", "m"))
    qtbot.addWidget(panel)
    assert "not run" in panel.rows["reachable"].title.text()
    assert panel.rows["model"].explanation.text() == (
        "Does the server serve the model id you entered."
    )
