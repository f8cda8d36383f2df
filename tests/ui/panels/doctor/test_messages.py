"""The doctor's detail and fix sentences in Chinese: every engine template is catalogued and
translated, a real diagnosis reads in Chinese, and the report the user copies stays English."""

from __future__ import annotations

import ast
import asyncio
import os
import socket
import string
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import app.bench
from app.bench.doctor import keys as doctor_keys
from app.bench.doctor.report import (
    LIST_SEPARATOR,
    PROFILE_SOURCE,
    VERBATIM,
    WINDOW_SOURCES,
)
from app.bench.doctor.run import CHECK_IDS, DoctorReport, DoctorTarget, Msg, diagnose
from app.bench.http import failures
from app.bench.serverstats.parse import SERVER_LABELS
from app.profiles import Target
from app.sim.embedded import RunningSim
from app.ui.app_setup_i18n import Translations
from app.ui.panels.doctor.messages import (
    CONTEXT,
    TEMPLATES,
    translate_check,
    translate_template,
)
from app.ui.panels.doctor.panel import DoctorPanel
from app.ui.panels.doctor.window_words import WINDOW_WORDS

KEY = "sk-tpot-right-key-0123456789abcd"
ENGINE = sorted((Path(app.bench.__file__).parent / "doctor").glob("*.py"))
# Where a template is not a literal, it comes from one of these tables (each checked below).
DYNAMIC = ("failures.fix_for(", "failures.title_for(", "SERVER_LABELS[", "t.key_source", "_WS_")
SAME_IN_CHINESE = {"SGLang", "Text Generation Inference"}  # product names


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    translations = Translations(qapp)
    assert translations.install("zh_CN")
    yield
    translations.install("en")


def templates_in(message: Msg) -> Iterator[str]:
    yield message.template
    for value in message.args.values():
        for part in value if isinstance(value, list) else [value]:
            if isinstance(part, Msg):
                yield from templates_in(part)


def report_templates(report: DoctorReport) -> set[str]:
    found: set[str] = set()
    for check in report.checks:
        found.update(templates_in(check.detail_msg), templates_in(check.fix_msg))
    return found - {VERBATIM, ""}


def fields(text: str) -> list[tuple[str, str, str | None]]:
    parsed = string.Formatter().parse(text)
    return sorted((name, spec or "", conv) for _, name, spec, conv in parsed if name is not None)


def free_port() -> int:
    with socket.socket() as s:  # free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_every_literal_template_in_the_engine_is_catalogued() -> None:
    literals, dynamic = [], []
    for path in ENGINE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "msg":
                first = node.args[0]
                if isinstance(first, ast.Constant):
                    literals.append(first.value)
                else:
                    dynamic.append(f"{path.name}: {ast.unparse(first)}")
    assert len(literals) > 60  # the scan sees the engine's sentences
    assert [t for t in literals if t not in TEMPLATES] == []
    assert [d for d in dynamic if not d.split(": ", 1)[1].startswith(DYNAMIC)] == []


def test_the_tables_the_engine_draws_templates_from_are_catalogued() -> None:
    tables = [k.fix for k in failures.KINDS.values()] + [k.title for k in failures.KINDS.values()]
    tables += list(SERVER_LABELS.values()) + list(doctor_keys._WS_NAMES.values())
    tables += [doctor_keys._WS_OTHER, *WINDOW_SOURCES, LIST_SEPARATOR]
    assert [t for t in tables if t not in TEMPLATES] == []


def test_templates_of_real_diagnoses_are_catalogued(make_sim: Callable[..., RunningSim]) -> None:
    def run(base_url: str, **kw: object) -> DoctorReport:
        kw.setdefault("model", "qwen2.5-7b")
        target = DoctorTarget(base_url, **kw)  # type: ignore[arg-type]
        return asyncio.run(diagnose(target, timeout_s=3))

    plain, gateway = make_sim(), make_sim(path_prefix="/api")
    keyed = make_sim(api_key=KEY, disable_metrics=True, no_stream_usage=True)
    reports = [
        run(f"http://127.0.0.1:{free_port()}"),
        run(plain.base_url),
        run(plain.root_url + "/v1", endpoint="/v1/chat/completions"),
        run(plain.base_url, model="no-such-model"),
        run(plain.root_url + "/v1/chat/completions", api="completions"),
        run(gateway.root_url),
        run(keyed.base_url, key_source=PROFILE_SOURCE),
        run(keyed.base_url, api_key=" " + KEY + "\t", key_source=PROFILE_SOURCE),
        run(keyed.base_url, api_key="sk-tpot-wrong-key-9999999999wxyz"),
    ]
    used = set().union(*map(report_templates, reports))
    assert len(used) > 30
    assert sorted(used - TEMPLATES) == []


def test_every_template_has_a_chinese_translation_keeping_its_placeholders(
    chinese: None,
) -> None:
    untranslated, broken = [], []
    for template in sorted(TEMPLATES):
        zh = QCoreApplication.translate(CONTEXT, template)
        if zh == template and template not in SAME_IN_CHINESE:
            untranslated.append(template)
        if fields(zh) != fields(template):
            broken.append(template)
    assert untranslated == [] and broken == []


def test_wrong_key_reads_in_chinese(make_sim: Callable[..., RunningSim], chinese: None) -> None:
    keyed = make_sim(api_key=KEY, disable_metrics=True)
    target = DoctorTarget(
        keyed.base_url,
        model="qwen2.5-7b",
        api_key="sk-tpot-wrong-key-9999999999wxyz ",
        key_source=PROFILE_SOURCE,
    )
    report = asyncio.run(diagnose(target, timeout_s=3))
    auth = report.check("auth")
    assert translate_check(auth) == (
        "HTTP 401：服务器拒绝了 Authorization: Bearer sk-…wxyz␠（来自端点配置）；"
        "密钥的问题：末尾多了一个空格",
        "发送有效的密钥：在端点的“API 密钥”栏中填写，不要带多余的空格；本地 vLLM 不需要密钥。",
    )
    assert translate_check(report.check("body")) == ("未运行：认证失败", "")
    assert translate_check(report.check("metrics"))[0] == (
        f"{keyed.root_url}/metrics 上没有 Prometheus 指标（HTTP 404）"
    )
    # The English stays what the CLI prints.
    assert auth.detail.startswith("HTTP 401: the server rejected Authorization: Bearer sk-…wxyz␠")


def test_panel_shows_a_failed_connection_in_chinese(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, chinese: None, tmp_path: Path
) -> None:
    port = free_port()
    target = Target("test", f"http://127.0.0.1:{port}", "chat", "qwen2.5-7b")
    panel = DoctorPanel(lambda: target)
    qtbot.addWidget(panel)
    panel.resize(900, 620)
    with qtbot.waitSignal(panel.finished, timeout=20_000) as blocker:
        panel.start()
    reach = panel.rows["reachable"]
    assert reach.detail.text() == f"127.0.0.1:{port} 上没有服务在监听（连接被拒绝）"
    assert "确认服务器正在运行并在这个主机和端口上监听（试试 GET /v1/models）" in reach.fix.text()
    for cid in CHECK_IDS[1:]:
        assert panel.rows[cid].detail.text() == "未运行：无法连接到服务器", cid
    # The report the user copies (and the CLI's --json) keeps the engine's English.
    checks = blocker.args[0].document().checks
    assert checks[0].detail == f"nothing is listening at 127.0.0.1:{port} (connection refused)"
    assert checks[1].detail == "not run: the server could not be reached"
    panel.show()
    qtbot.waitExposed(panel)
    shots = os.environ.get("TPOTBENCH_SHOTS_DIR") or str(tmp_path)
    assert panel.grab().save(os.path.join(shots, "doctor_zh.png"))


# What only a terminal user can act on: flags of tpotbench and its commands.
CLI_ADVICE = (
    "--model",
    "--endpoint",
    "--backend",
    "--base-url",
    "--api-key-env",
    "--request-rate",
    "--max-concurrency",
    "--timeout",
    "--request-timeout",
    "export ",
    "tpotbench doctor",
    "run the doctor",
)


def test_the_window_names_its_fields_where_the_cli_names_flags() -> None:
    """Every sentence the window can show (doctor, probe and sweep failures) says what to
    change in the window; the engine's own sentences keep their flags for the CLI."""
    assert set(WINDOW_WORDS) <= TEMPLATES  # each replaces a sentence the engine really says
    cli_words = [t for t in TEMPLATES if any(flag in t for flag in CLI_ADVICE)]
    assert len(cli_words) > 10 and set(cli_words) <= set(WINDOW_WORDS)
    shown = {t: translate_template(t) for t in TEMPLATES}
    assert [t for t, text in shown.items() if any(flag in text for flag in CLI_ADVICE)] == []
    for cli, window in WINDOW_WORDS.items():  # the window's sentence fills from the same data
        assert {f[0] for f in fields(window)} <= {f[0] for f in fields(cli)}
