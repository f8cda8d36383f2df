""" "Copy as command": the pasted line, read back by the CLI's own parser, asks for what the
window would run; the key never appears; vLLM's lines where vLLM has the same workload."""

from __future__ import annotations

import math
import shlex
from dataclasses import replace

from app.bench.schema.run_config import RunConfig
from app.cli import build_command_parser
from app.commands.argv import KEY_ENV, SweepSpec, build_run_config
from app.commands.copy_command import copied_commands
from app.commands.run_args import parse_config
from app.commands.sweep_flags import roofline_config
from app.profiles import Target
from app.roofline.context import RooflineContext

SECRET = "sk-copy-secret-7"
ROOFLINE = RooflineContext("rtx3090", "qwen2.5-7b", "bf16", "fp16", 512, 2)


def _target(**overrides: object) -> Target:
    values: dict[str, object] = {
        "profile_name": "lab",
        "base_url": "http://gpu-box:8000/v1",
        "api": "chat",
        "model": "qwen2.5-7b",
        "api_key": SECRET,
    }
    values.update(overrides)
    return Target(**values)  # type: ignore[arg-type]


def _spec(**overrides: object) -> SweepSpec:
    values: dict[str, object] = {
        "request_rates": [1.0, math.inf],
        "max_concurrencies": [4, 32],
        "dataset": "random",
        "random_input_len": 300,
        "random_output_len": 50,
        "num_prompts": 40,
        "seed": 7,
        "label": "exp A",  # a space: the shell quoting must keep it one word
        "slos": [],
        "roofline": roofline_config(ROOFLINE),
        "server_metrics": True,
    }
    values.update(overrides)
    return SweepSpec(**values)  # type: ignore[arg-type]


def _parse(line: str, command: str) -> RunConfig:
    words = shlex.split(line)
    assert words[:2] == ["tpotbench", command]
    parser, _ = build_command_parser(command)
    parser.parse_args(words[2:])  # the real command line's parser takes it
    return parse_config(words[1:])


def test_the_copied_line_asks_for_what_the_window_runs() -> None:
    spec, target = _spec(), _target()
    copied = copied_commands(spec, target, "/data/results/exp A")
    ours = _parse(copied.tpotbench, "sweep")
    window = build_run_config(replace(spec, result_dir="/data/results/exp A"), target)
    # Only how the result reaches the window and where the key is read from differ.
    assert window.output.events and window.endpoint.api_key_env == KEY_ENV
    assert ours == replace(
        window,
        endpoint=replace(window.endpoint, api_key_env="OPENAI_API_KEY"),
        output=replace(window.output, events=False),
    )
    assert ours.output.result_dir == "/data/results/exp A" and ours.output.label == "exp A"
    assert ours.roofline.tensor_parallel_size == 2 and ours.roofline.gpu == "rtx3090"
    assert ours.load.request_rates == (1.0, math.inf) and ours.load.seed == 7
    assert ours.options.server_metrics
    text = copied.text()
    assert SECRET not in text
    assert text.startswith("# the key is not copied: export OPENAI_API_KEY=<your key> first\n")


def test_vllm_gets_one_line_per_point_with_the_same_workload() -> None:
    copied = copied_commands(_spec(), _target(), "/r")
    assert len(copied.vllm) == 4  # 2 rates x 2 concurrencies
    first = shlex.split(copied.vllm[0])
    assert first[:3] == ["vllm", "bench", "serve"]

    def flag(name: str) -> str:
        return first[first.index(name) + 1]

    assert flag("--base-url") == "http://gpu-box:8000"
    assert flag("--endpoint") == "/v1/chat/completions"
    assert flag("--backend") == "openai-chat" and flag("--dataset-name") == "random"
    assert (flag("--random-input-len"), flag("--random-output-len")) == ("300", "50")
    assert (flag("--request-rate"), flag("--max-concurrency")) == ("1", "4")
    assert flag("--result-filename") == "exp A_rate1_conc4.json"
    last = shlex.split(copied.vllm[-1])
    assert last[last.index("--request-rate") + 1] == "inf"
    assert SECRET not in "".join(copied.vllm)


def test_no_vllm_line_where_vllm_has_no_match_and_no_key_line_without_a_key() -> None:
    search = _spec(search={"start": 1, "max": 64})
    copied = copied_commands(search, _target(api_key=""), "/r")
    search_config = _parse(copied.tpotbench, "search").search
    assert search_config is not None and search_config.max == 64
    assert copied.vllm == [] and "capacity search" in copied.vllm_missing
    assert "export" not in copied.text() and "--api-key-env" not in copied.tpotbench
    conversations = copied_commands(_spec(dataset="conversations"), _target(), "/r")
    assert conversations.vllm == [] and "conversations" in conversations.text()
