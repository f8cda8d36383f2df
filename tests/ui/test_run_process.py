"""The sweep worker: command line, key hand-off, event parsing, crash and cancel handling."""

from __future__ import annotations

import json
import math
import sys
import textwrap

import pytest

from app.bench.schema.point_doc import PointDoc, VllmKeys
from app.bench.schema.run_config import OutputConfig, RunConfig
from app.bench.sweep.contract import (
    EndpointInfo,
    PointFinished,
    RunError,
    RunFinished,
    RunStarted,
    Tokens,
    encode,
)
from app.commands.argv import KEY_ENV, SweepSpec, build_run_config, sweep_command
from app.commands.run_args import config_json
from app.profiles import Target
from app.ui.run_process import RunProcess

SECRET = "sk-test-0123456789-secret"
# Whole lines as the engine writes them (the window refuses anything less).
RUN_STARTED = encode(
    RunStarted(points=(), num_prompts=1, endpoint=EndpointInfo("http://h/v1", "m", "chat"))
).strip()


def _target(key: str = SECRET, **kw: object) -> Target:
    values = dict(
        profile_name="t",
        base_url="http://127.0.0.1:9",
        api="chat",
        model="m1",
        headers={"X-Org": "lab"},
        api_key=key,
    )
    values.update(kw)
    return Target(**values)  # type: ignore[arg-type]


def test_the_config_names_the_key_variable_but_never_holds_the_key() -> None:
    spec = SweepSpec(
        request_rates=[1.0, 2.5, math.inf],
        max_concurrencies=[4, 32],
        dataset="random",
        random_input_len=100,
        random_output_len=20,
        num_prompts=10,
        seed=7,
        ignore_eos=True,
        label="expA",
        result_dir="/results/run1",
    )
    config = build_run_config(spec, _target())
    assert sweep_command(config) == [sys.executable, "-m", "app", "sweep", "--config", "-"]
    assert SECRET not in config_json(config)
    assert config.load.request_rates == (1.0, 2.5, math.inf)
    assert config.load.max_concurrencies == (4, 32)
    assert config.endpoint.api_key_env == KEY_ENV
    assert config.output.events
    assert (config.endpoint.backend, config.endpoint.model) == ("openai-chat", "m1")
    assert config.dataset.random_input_len == 100
    assert config.endpoint.headers == ("X-Org: lab",)  # the canonical header syntax
    assert config.options.ignore_eos
    assert spec.num_points == 6
    completions = build_run_config(spec, _target(api="completions"))
    assert completions.endpoint.backend == "openai"
    assert build_run_config(spec, _target(key="")).endpoint.api_key_env is None


def test_unknown_dataset_is_refused_with_the_choices() -> None:
    with pytest.raises(
        ValueError, match="synthetic, conversations, prefix, mooncake, sharegpt, random, prompts"
    ):
        build_run_config(SweepSpec(dataset="csv"), _target())


def test_the_worker_reads_its_config_from_stdin_and_its_key_from_the_environment(
    qtbot,
) -> None:
    worker = RunProcess()
    seen: list[str] = []
    worker.errorMessage.connect(seen.append)
    # The child echoes the first line of its stdin and its argv, as the engine would read them.
    argv = _script(
        f"""
        import json, os, sys
        line = sys.stdin.readline()
        print(json.dumps({{"type": "error", "message": line.strip()}}), flush=True)
        print({encode(RunFinished(False, (), None)).strip()!r})
        """
    )
    config = build_run_config(SweepSpec(result_dir="/r", label="lab"), _target())
    with qtbot.waitSignal(worker.stopped, timeout=10_000):
        worker.start(config, _target(), argv=argv)
    assert seen == [config_json(config)]
    assert SECRET not in seen[0]


def test_the_worker_emits_typed_events_and_counts_bad_lines(qtbot) -> None:
    worker = RunProcess()
    tokens: list[Tokens] = []
    errors: list[str] = []
    worker.tokens.connect(tokens.append)
    worker.errorMessage.connect(errors.append)
    lines = [
        '{"type":"tokens","point":0,"t_s":[0.5,0.75],"itl_ms":[20.0,21.5]}',
        '{"type":"tokens","point":0,"t_s":[0.5],"itl_ms":[]}',  # lengths differ
        "Traceback (most recent call last):",
        '{"type":"no_such_event"}',
        '{"type":"tokens","point":0,"t_s":[0.5],"itl_ms":[1],"secret":"x"}',  # unknown field
        encode(RunError("the engine stopped")).strip(),
        encode(RunFinished(False, (), None)).strip(),
    ]
    argv = _script(f"print({json.dumps(chr(10).join(lines))})")
    with qtbot.waitSignal(worker.stopped, timeout=10_000):
        worker.start(RunConfig(), _target(), argv=argv)
    assert tokens == [Tokens(0, [0.5, 0.75], [20.0, 21.5])]
    assert errors == ["the engine stopped"]
    assert worker.bad_lines == 4


def _script(body: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(body)]


def test_key_reaches_the_worker_only_through_its_variable(qtbot, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-shell")
    worker = RunProcess()
    seen: list[str] = []
    worker.errorMessage.connect(seen.append)
    # The child reports what it can see of the key (its length, and the fallbacks' presence).
    argv = _script(
        f"""
        import json, os, sys
        key = os.environ.get({KEY_ENV!r}, "")
        fallback = "OPENAI_API_KEY" in os.environ
        print(json.dumps({{"type": "error", "message": f"len={{len(key)}} fb={{fallback}}"}}))
        print({encode(RunFinished(False, (), None)).strip()!r})
        print(" ".join(sys.argv))
        """
    )
    with qtbot.waitSignal(worker.stopped, timeout=10_000):
        worker.start(RunConfig(), _target(), argv=argv)
    assert seen == [f"len={len(SECRET)} fb=False"]
    assert not worker.is_running()


def test_a_dying_worker_gives_a_readable_message_and_keeps_finished_points(qtbot) -> None:
    worker = RunProcess()
    finished: list[PointFinished] = []
    errors: list[str] = []
    worker.pointFinished.connect(finished.append)
    worker.errorMessage.connect(errors.append)
    point = {"type": "point_finished", "point": 0, "path": "/r/a.json", "summary": {"completed": 3}}
    argv = _script(
        f"""
        import sys
        print({json.dumps(json.dumps(point))}, flush=True)
        print("garbage that is not an event", flush=True)
        sys.stderr.write("RuntimeError: the engine fell over\\n")
        sys.exit(3)
        """
    )
    with qtbot.waitSignal(worker.stopped, timeout=10_000):
        worker.start(RunConfig(output=OutputConfig(result_dir="/r")), _target(), argv=argv)
    assert finished == [PointFinished(0, "/r/a.json", PointDoc(VllmKeys(completed=3)))]
    assert worker.bad_lines == 1
    assert len(errors) == 1
    assert "exit code 3" in errors[0]
    assert "RuntimeError: the engine fell over" in errors[0]
    assert "/r" in errors[0]


def test_a_worker_that_cannot_start_says_so(qtbot) -> None:
    worker = RunProcess()
    errors: list[str] = []
    worker.errorMessage.connect(errors.append)
    with qtbot.waitSignal(worker.stopped, timeout=10_000):
        worker.start(RunConfig(), _target(), argv=["/nonexistent/python-binary"])
    assert errors and "could not start" in errors[0]


def test_cancel_writes_cancel_then_terminates_a_worker_that_ignores_it(qtbot) -> None:
    worker = RunProcess(cancel_grace_ms=300)
    finished: list[RunFinished] = []
    worker.runFinished.connect(finished.append)
    # Reads stdin: its config, then echoes what came next as an error event, then hangs
    # (ignores the request).
    argv = _script(
        f"""
        import json, sys, time
        print({RUN_STARTED!r}, flush=True)
        sys.stdin.readline()
        line = sys.stdin.readline().strip()
        print(json.dumps({{"type": "error", "message": "got " + line}}), flush=True)
        time.sleep(60)
        """
    )
    errors: list[str] = []
    worker.errorMessage.connect(errors.append)
    with qtbot.waitSignal(worker.runStarted, timeout=10_000):
        worker.start(RunConfig(), _target(), argv=argv)
    with qtbot.waitSignal(worker.stopped, timeout=10_000):
        worker.cancel()
    assert errors == ["got cancel"]
    assert finished == [RunFinished(True, (), None)]


def test_shutdown_lets_the_engine_save_then_never_leaves_an_orphan(qtbot) -> None:
    worker = RunProcess()
    ended: list[RunFinished] = []
    worker.runFinished.connect(ended.append)
    # Answers "cancel" like the engine: a last event, then exit 0.
    polite = _script(
        f"""
        import sys
        print({RUN_STARTED!r}, flush=True)
        sys.stdin.readline()  # the config
        sys.stdin.readline()  # cancel
        print({encode(RunFinished(True, ("/r/p.json",), None)).strip()!r})
        """
    )
    with qtbot.waitSignal(worker.runStarted, timeout=10_000):
        worker.start(RunConfig(), _target(), argv=polite)
    worker.shutdown(wait_ms=5_000)
    assert not worker.is_running()
    assert ended == [RunFinished(True, ("/r/p.json",), None)]

    stubborn = _script(
        f"""
        import time
        print({RUN_STARTED!r}, flush=True)
        time.sleep(3600)
        """
    )
    with qtbot.waitSignal(worker.runStarted, timeout=10_000):
        worker.start(RunConfig(), _target(), argv=stubborn)
    # It would sleep an hour: shutdown returning with it gone means it was killed, not awaited.
    worker.shutdown(wait_ms=300)
    assert not worker.is_running()


# Here, not beside the engine's tests: they need the window's modules (the engine tier runs
# with Qt blocked).
def test_the_window_and_the_command_line_agree() -> None:
    from app.commands.credentials import UsageError
    from app.commands.flags import MAX_BATCH
    from app.commands.run_args import parse_config
    from app.ui.panels.sweep.form_values import parse_concurrencies as form_concurrencies
    from app.ui.panels.sweep.form_values import parse_rates as form_rates

    def load(*argv: str) -> tuple[tuple[float, ...] | None, tuple[int, ...] | None]:
        config = parse_config(["sweep", *argv])
        return config.load.request_rates, config.load.max_concurrencies

    assert load("--request-rate", "1 2;inf")[0] == (1.0, 2.0, math.inf)
    assert form_rates("1 2;inf") == [1.0, 2.0, math.inf]
    assert load("--max-concurrency", "1,4")[1] == (1, 4)
    assert form_concurrencies("1,4") == [1, 4]
    too_many = str(MAX_BATCH + 1)  # the form took any size before; now both refuse it
    with pytest.raises(UsageError, match="must be from 1 to"):
        load("--max-concurrency", too_many)
    with pytest.raises(ValueError, match="is not a concurrency"):
        form_concurrencies(too_many)


def test_the_panels_use_this_builder() -> None:
    from app.commands import argv
    from app.ui import run_process
    from app.ui.panels.probe import panel

    assert panel.probe_argv is argv.probe_argv
    assert run_process.sweep_command is argv.sweep_command
