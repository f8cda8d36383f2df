"""The Sweep tab's "Copy as command": the clipboard gets the line the window would run, which the
CLI's parser reads back to the form's settings, and never the key."""

from __future__ import annotations

import shlex

from PySide6.QtGui import QGuiApplication

from app.cli import build_command_parser
from app.profiles import Target
from app.roofline.context import RooflineContext
from app.ui.panels.sweep.panel import SweepPanel
from app.ui.run_extras import RunExtras

SECRET = "sk-window-secret-3"
ROOFLINE = RooflineContext("rtx3090", "qwen2.5-7b", "bf16", "fp16", 512, 1)


def test_copy_as_command_puts_the_runnable_line_on_the_clipboard(qtbot, tmp_path) -> None:
    target = Target("lab", "http://127.0.0.1:8000", "chat", "qwen2.5-7b", api_key=SECRET)
    panel = SweepPanel(lambda: target, lambda: RunExtras(roofline=ROOFLINE, server_metrics=True))
    qtbot.addWidget(panel)
    panel.form.results_root.setText(str(tmp_path / "my results"))
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
    panel.form.input_len.setValue(48)
    panel.form.rates.setText("2, inf")
    panel.form.concurrencies.setText("1, 8")
    panel.form.num_prompts.setValue(20)
    panel.form.label.setText("expB")
    panel.copy_button.click()

    text = QGuiApplication.clipboard().text()
    assert SECRET not in text and panel.copy_command() == text
    lines = text.splitlines()
    assert lines[0] == "# the key is not copied: export OPENAI_API_KEY=<your key> first"
    words = shlex.split(lines[1])
    assert words[:2] == ["tpotbench", "sweep"]
    parser, _ = build_command_parser("sweep")
    args = parser.parse_args(words[2:])
    assert args.base_url == "http://127.0.0.1:8000" and args.model == "qwen2.5-7b"
    assert (args.request_rate, args.max_concurrency) == ("2,inf", "1,8")
    assert args.num_prompts == 20 and args.random_input_len == 48
    assert args.label == "expB" and args.result_dir == str(tmp_path / "my results" / "expB")
    assert args.api_key_env == "OPENAI_API_KEY" and args.events is None
    assert args.gpu == "rtx3090" and args.server_metrics
    vllm = [line for line in lines if line.startswith("vllm bench serve")]
    assert len(vllm) == 4  # one per point: 2 rates x 2 concurrencies
    assert "4 vllm bench serve line(s)" in panel.status.text()
    assert panel.status.toolTip() == text


def test_copy_as_command_says_what_is_wrong_with_the_form(qtbot, tmp_path) -> None:
    panel = SweepPanel(lambda: Target("lab", "http://127.0.0.1:8000", "chat", ""))
    qtbot.addWidget(panel)
    QGuiApplication.clipboard().setText("before")
    panel.form.rates.setText("fast")
    assert panel.copy_command() == ""
    assert "'fast' is not a request rate" in panel.status.text()
    assert QGuiApplication.clipboard().text() == "before"
