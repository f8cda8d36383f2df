"""The failure kinds of hostile replies read as sentences in the window's language."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("kind", "title"),
    [
        ("oversized", "回复超过大小上限"),
        ("malformed_usage", "usage 中的 token 数不可能成立"),
        ("malformed_stream", "HTTP 分块或编码已损坏"),
        ("malformed_chunk", "流消息不是预期的 JSON"),
        ("redirect", "HTTP 重定向（未跟随）"),
    ],
)
def test_new_failure_kinds_are_shown_in_chinese(qapp, kind: str, title: str) -> None:
    from PySide6.QtCore import QTranslator

    from app.paths import resources_dir
    from app.ui.panels.probe.outcome import failure_message, worker_error_message

    translator = QTranslator()
    assert translator.load("tpotbench_zh_CN", str(resources_dir() / "i18n"))
    qapp.installTranslator(translator)
    try:
        text = failure_message(kind, "detail from the server")
        assert text.startswith(title), text
        assert "detail from the server" in text
        line = worker_error_message(
            f"cannot reach http://h/v1/models ({kind}: the answer is larger than 8 MiB)"
        )
        assert line.startswith("无法连接 http://h/v1/models。" + title), line
    finally:
        qapp.removeTranslator(translator)
