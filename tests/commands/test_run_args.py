"""Flags <-> RunConfig: config_argv is the inverse of parsing (on many configs), every flag of
`sweep` and `search` has its RunConfig field, and a config given as JSON (`--config`) runs like
its flags, is refused in one line (exit 2) when malformed, and never carries a key."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.bench.datasets.prompts import DATASET_NAMES
from app.bench.results.read import load_result
from app.bench.schema.run_config import LoadConfig, OutputConfig, RunConfig, SearchConfig
from app.commands.connection import BACKENDS
from app.commands.credentials import UsageError
from app.commands.run_args import (
    FLAGS,
    SEARCH_FLAGS,
    command_parser,
    config_argv,
    config_from_json,
    config_json,
    parse_config,
    read_config,
)

# Text a user may give a flag: any printable, including a leading '-' and spaces.
# ('--' alone is argparse's end of options, read as no value at all: not a name anyone gives.)
TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12).filter(
    lambda t: t != "--"
)
WORD = st.text("abcdefghijklmnopqrstuvwxyz0123456789:._", min_size=1, max_size=10)
RATE = st.one_of(
    st.just(math.inf), st.floats(0.001, 1e5, allow_nan=False), st.integers(1, 500).map(float)
)


def _number(lo: float, hi: float) -> st.SearchStrategy[str]:
    return st.floats(lo, hi, allow_nan=False).map(repr)


def _whole(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.integers(lo, hi).map(str)


# One strategy per flag that takes a value: what a user could type there and the parser takes.
VALUES: dict[str, st.SearchStrategy[str]] = {
    "--port": _whole(1, 65535),
    "--backend": st.sampled_from(BACKENDS),
    "--dataset-name": st.sampled_from(DATASET_NAMES),
    "--num-prompts": _whole(1, 10_000),
    "--trace-speedup": _number(0.01, 100.0),
    "--random-input-len": _whole(0, 5000),
    "--random-output-len": _whole(1, 5000),
    "--random-range-ratio": _number(0.0, 0.99),
    "--prefix-repetition-prefix-len": _whole(1, 5000),
    "--prefix-repetition-suffix-len": _whole(1, 5000),
    "--prefix-repetition-num-prefixes": _whole(1, 100),
    "--prefix-repetition-output-len": _whole(1, 5000),
    "--sharegpt-output-len": _whole(1, 5000),
    "--output-len": _whole(1, 5000),
    "--burstiness": _number(0.01, 100.0),
    "--seed": _whole(0, 2**32 - 1),
    "--num-sessions": _whole(1, 1000),
    "--max-turns": _whole(2, 50),
    "--think-time": _number(0.0, 100.0),
    "--think-time-stddev": _number(0.0, 100.0),
    "--workers": _whole(1, 256),
    "--num-warmups": _whole(0, 100),
    "--temperature": _number(0.0, 2.0),
    "--good-share": _number(0.01, 1.0),
    "--roofline-context": _whole(1, 100_000),
    "--tensor-parallel-size": _whole(1, 8),
    "--timeout": _number(0.1, 86_400.0),
    "--request-timeout": _number(0.0, 86_400.0),
    "--grace-period": _number(0.0, 100.0),
    "--over": st.sampled_from(["concurrency", "rate"]),
    "--start": _number(0.5, 100.0),
    "--max": _number(0.5, 1000.0),
    "--growth": _number(1.01, 10.0),
    "--runs": _whole(1, 5),
    "--min-prompts": _whole(1, 1000),
    "--prompts-per-unit": _number(0.0, 100.0),
    "--lang": st.sampled_from(["en", "zh_CN"]),
}


@st.composite
def flag_lists(draw: st.DrawFn) -> list[str]:
    """A `sweep` or `search` command line: a random subset of its flags with random values."""
    command = draw(st.sampled_from(["sweep", "search"]))
    table = FLAGS + (SEARCH_FLAGS if command == "search" else ())
    argv = [command]
    for flag in draw(st.lists(st.sampled_from(table), unique=True, max_size=14)):
        if flag.form in ("true", "false"):
            argv.append(flag.option)
        elif flag.form == "bool":
            argv.append(draw(st.sampled_from([flag.option, "--no-reset-prefix-cache"])))
        elif flag.form == "events":
            argv += [flag.option, "jsonl"]
        elif flag.form == "json":
            body = draw(st.dictionaries(WORD, st.integers() | WORD | st.booleans(), max_size=3))
            argv += [flag.option, json.dumps(body)]
        elif flag.form == "items":
            items = draw(st.lists(TEXT if flag.option == "--header" else WORD, min_size=1))
            if flag.option == "--header":
                for item in items:
                    argv.append(f"--header={item}")
            else:
                argv += [flag.option, *items]
        else:
            argv.append(f"{flag.option}={draw(VALUES.get(flag.option, TEXT))}")
    if draw(st.booleans()):
        rates = draw(st.lists(RATE, min_size=1, max_size=4))
        argv.append("--request-rate=" + ",".join(repr(r) for r in rates))
    if draw(st.booleans()):
        concs = draw(st.lists(st.integers(1, 5000), min_size=1, max_size=4))
        argv.append("--max-concurrency=" + ",".join(map(str, concs)))
    return argv


@settings(max_examples=300, deadline=None)
@given(flag_lists())
@example(["sweep", "--header=-X:y", "--header=Z: -1", "--label=-l", "--model=-m"])
@example(["search", "--over=rate", "--start=0.1", "--request-rate=0.30000000000000004"])
def test_config_argv_is_the_inverse_of_parsing(argv: list[str]) -> None:
    config = parse_config(argv)
    again = config_argv(config)
    assert parse_config(again) == config
    assert config_argv(parse_config(again)) == again  # and stable
    assert config_from_json(config_json(config)) == config  # JSON gives the same run


def test_every_flag_of_both_commands_has_its_field() -> None:
    """A flag added to the command line without a RunConfig field (or the other way) fails
    here, not in a window whose run silently lacks it."""
    covered = {f.option for f in FLAGS + SEARCH_FLAGS} | {
        "--no-reset-prefix-cache",
        "--scrape-metrics",  # --server-metrics' other name
        "--request-rate",
        "--max-concurrency",
        "--config",
    }
    options = {o for action in command_parser("search")._actions for o in action.option_strings}
    assert options == covered


def test_defaults_give_no_flags_and_the_flags_give_typed_values() -> None:
    assert config_argv(RunConfig()) == ["sweep"]
    assert parse_config(["sweep"]) == RunConfig()
    assert parse_config(["search"]) == RunConfig(
        dataset=RunConfig().dataset.__class__(num_prompts=200), search=SearchConfig()
    )
    config = parse_config(
        ["sweep", "--request-rate", "1,2.5,inf", "--max-concurrency", "4,32", "--label=-x"]
    )
    assert config.load == LoadConfig(request_rates=(1.0, 2.5, math.inf), max_concurrencies=(4, 32))
    assert config_argv(config) == [
        "sweep",
        "--request-rate",
        "1,2.5,inf",
        "--max-concurrency",
        "4,32",
        "--label=-x",  # a value that starts with '-' stays a value
    ]
    with pytest.raises(UsageError, match="empty item"):
        parse_config(["sweep", "--request-rate", "1,,2"])


def test_the_json_config_cannot_hold_a_key() -> None:
    obj = json.loads(config_json(RunConfig()))
    obj["endpoint"]["api_key"] = "sk-never"
    with pytest.raises(UsageError, match=r"^--config: config\.endpoint\.api_key: unknown field"):
        config_from_json(json.dumps(obj))


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json", "--config: not valid JSON"),
        ('{"load": {"seed": "x"}}', "--config: config.load.seed: must be a whole number"),
        ('{"dataset": {"num_prompts": 0}}', "--config: argument --num-prompts: must be at least 1"),
        ('{"load": {"request_rates": [-1]}}', "--config: --request-rate: -1 must be greater"),
        ('{"schema_version": 9}', "--config: schema_version 9 is not 1"),
        ("[1, 2]", "--config: config: must be an object"),
        ('{"search": {}}', "--config: the config describes a search; run tpotbench search"),
    ],
)
def test_a_malformed_config_on_stdin_is_one_line_and_exit_2(
    tmp_path: Path, text: str, says: str
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "sweep", "--config", "-"],
        input=text + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tpotbench sweep: error: " + says), lines
    assert proc.stdout == ""


def test_config_with_other_flags_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(config_json(RunConfig()), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "app", "sweep", "--config", str(path), "--label", "x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "--config holds the whole run; drop --label" in proc.stderr
    with pytest.raises(UsageError, match="cannot read"):
        read_config(str(tmp_path / "missing.json"), "sweep")


def test_a_config_on_stdin_runs_the_sweep_its_flags_would(sim, tmp_path: Path) -> None:
    """The window's path without the window: the config as one line on stdin, the key only in
    the environment, the events on stdout, the points on disk."""
    key_env = "TPOTBENCH_TEST_RUN_KEY"
    config = parse_config(
        [
            "sweep",
            "--base-url",
            sim.base_url,
            "--api-key-env",
            key_env,
            "--num-prompts",
            "2",
            "--output-len",
            "4",
            "--max-concurrency",
            "1,2",
            "--label",
            "cfg",
            "--result-dir",
            str(tmp_path),
            "--events",
            "jsonl",
        ]
    )
    env = {**os.environ, key_env: "sk-run-config-secret"}
    proc = subprocess.run(
        [sys.executable, "-m", "app", "sweep", "--config", "-"],
        input=config_json(config) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    kinds = [json.loads(line)["type"] for line in proc.stdout.splitlines()]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("point_finished") == 2
    names = sorted(p.name for p in tmp_path.glob("cfg_*.json"))
    assert names == ["cfg_rateinf_conc1.json", "cfg_rateinf_conc2.json"]
    assert load_result(tmp_path / names[0]).completed == 2
    assert "sk-run-config-secret" not in config_json(config) + proc.stdout + proc.stderr


def test_the_output_section_is_where_the_files_go() -> None:
    config = parse_config(["sweep", "--result-dir", "/r", "--overwrite", "--save-detailed"])
    assert config.output == OutputConfig(result_dir="/r", overwrite=True, save_detailed=True)
