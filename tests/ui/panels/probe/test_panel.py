"""The probe panel's worker command line and its reading of the worker's summary."""

from __future__ import annotations

import sys

import numpy as np

from app.bench.schema.probe_summary import ProbeSummary
from app.bench.sweep.contract import Tokens
from app.commands.argv import KEY_ENV
from app.profiles import Target
from app.ui.panels.probe.panel import outcome_from_summary, probe_argv


def test_argv_names_the_key_variable_never_the_key() -> None:
    target = Target(
        "gw",
        "https://gw.example/api",
        "completions",
        "m1",
        verify_tls=False,
        headers={"X-Org": "lab"},
        api_key="sk-secret-9",
    )
    argv = probe_argv(target, "hi", 16)
    assert argv[:4] == [sys.executable, "-m", "app", "probe"]
    assert "sk-secret-9" not in " ".join(argv)
    assert argv[argv.index("--api-key-env") + 1] == KEY_ENV
    assert argv[argv.index("--backend") + 1] == "openai"
    assert argv[argv.index("--max-tokens") + 1] == "16"
    assert argv[argv.index("--header") + 1] == "X-Org: lab"
    assert "--insecure" in argv


def test_summary_becomes_outcome_and_failures_read_as_sentences() -> None:
    ok = outcome_from_summary(
        ProbeSummary(
            ok=True,
            ttft_ms=40.0,
            tpot_ms=19.5,
            e2el_ms=659.5,
            output_tokens=33,
            output_tok_s=50.04,
            output_tokens_source="usage",
        ),
        np.array([0.06, 0.08]),
        np.array([20.0, 19.0]),
    )
    assert (ok.ttft_ms, ok.tpot_ms, ok.output_tokens, ok.tok_s) == (40.0, 19.5, 33, 50.04)
    bad = outcome_from_summary(
        ProbeSummary(ok=False, error_kind="http_401", error="HTTP 401 Unauthorized: bad key"),
        np.empty(0),
        np.empty(0),
    )
    assert not bad.ok
    assert bad.message.splitlines() == [
        "HTTP 401 unauthorized: HTTP 401 Unauthorized: bad key",
        "Enter a valid API key for this endpoint in the editor on the left.",
    ]


def test_tiles_and_text_fill_while_the_reply_streams(qtbot, qloop, sim) -> None:
    from app.ui.panels.probe.panel import ProbePanel

    panel = ProbePanel(lambda: Target("sim", sim.base_url, "chat", "qwen2.5-7b"))
    qtbot.addWidget(panel)
    panel.max_tokens.setValue(64)
    seen: list[tuple[str, str, str, bool]] = []

    def on_tokens(_event: Tokens) -> None:  # after the panel's own handler: what a frame shows
        panel.redraw()
        seen.append(
            (
                panel.readouts.ttft.value.text(),
                panel.readouts.tokens.value.text(),
                panel.text.toPlainText(),
                False,
            )
        )

    finished: list[ProbeSummary] = []
    panel.worker.tokens.connect(on_tokens)
    panel.worker.pointFinished.connect(lambda e: finished.append(e.summary))
    with qtbot.waitSignal(panel.probeFinished, timeout=60_000):
        panel.start()
    # Events arrive in stream order, so everything in `seen` was shown before the summary.
    assert len(seen) >= 2
    ttft_live, _tokens, _text, _ = seen[0]
    assert ttft_live != "–"  # TTFT at the first chunk, not at the end
    assert float(ttft_live) == float(panel.readouts.ttft.value.text())  # the same stamp, final
    assert any(tokens.startswith("≈") for _t, tokens, _x, _ in seen)  # counted from chunks
    assert seen[-1][2] and finished[0].generated_text.startswith(seen[-1][2])
    assert panel.readouts.tokens.value.text() == "64"  # the server's usage replaces the estimate
    assert panel.text.toPlainText() == finished[0].generated_text


def test_connection_errors_and_the_default_prompt_follow_the_ui_language(qapp) -> None:
    from PySide6.QtCore import QTranslator

    from app.paths import resources_dir
    from app.ui.panels.probe.outcome import failure_message, worker_error_message
    from app.ui.panels.probe.panel import default_prompt, is_default_prompt

    english = default_prompt()
    translator = QTranslator()
    assert translator.load("tpotbench_zh_CN", str(resources_dir() / "i18n"))
    qapp.installTranslator(translator)
    try:
        text = failure_message("connect", "cannot connect: [Errno 111] Connection refused")
        assert text.startswith("连接被拒绝或被重置：")  # the taxonomy's title, in Chinese
        assert "Errno 111" in text  # the OS's own words are kept
        line = worker_error_message(
            "cannot reach http://127.0.0.1:9/v1/models (connect: All connection attempts failed)"
        )
        assert line.startswith("无法连接 http://127.0.0.1:9/v1/models。连接被拒绝或被重置")
        assert "确认服务器正在运行" in line  # and the fix sentence
        assert default_prompt() != english and "显存带宽" in default_prompt()
        assert is_default_prompt(english) and is_default_prompt(default_prompt())
    finally:
        qapp.removeTranslator(translator)


def test_events_nobody_listens_to_are_not_decoded(qtbot, qloop, sim, monkeypatch) -> None:
    """A probe's worker writes run_started, point_started and request events the probe panel
    has no use for: they are skipped before decoding; every event decoded reaches a receiver."""
    from PySide6.QtCore import QMetaMethod

    from app.ui import run_process
    from app.ui.panels.probe.panel import ProbePanel

    decoded: list[str] = []
    real_decode = run_process.decode

    def counting_decode(raw: bytes):  # type: ignore[no-untyped-def]
        event = real_decode(raw)
        decoded.append(event.kind)
        return event

    monkeypatch.setattr(run_process, "decode", counting_decode)
    panel = ProbePanel(lambda: Target("sim", sim.base_url, "chat", "qwen2.5-7b"))
    qtbot.addWidget(panel)
    panel.max_tokens.setValue(8)
    with qtbot.waitSignal(panel.probeFinished, timeout=60_000):
        panel.start()
    worker = panel.worker
    assert worker.unread_lines >= 3  # run_started, point_started, request at the least
    assert "request" not in decoded and "point_finished" in decoded
    for kind in set(decoded) - {"run_finished"}:
        signal = getattr(worker, run_process.signal_name(kind))
        assert worker.isSignalConnected(QMetaMethod.fromSignal(signal)), kind
