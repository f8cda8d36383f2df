"""Every numeric flag of every command, found by walking the parsers (so a flag added later is
covered too), refuses NaN, infinities and absurd sizes with one line that names it, exit 2."""

from __future__ import annotations

import socket

import pytest

from app.cli import COMMANDS, build_command_parser, main

_VALUES = ["nan", "inf", "-inf", "1e400", "99999999999999999999", "-99999999999999999999"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# The least each command needs to get past its own required flags (a closed local port).
_BASE = {
    "probe": ["--base-url", f"http://127.0.0.1:{_closed_port()}", "--model", "m"],
    "sweep": ["--base-url", f"http://127.0.0.1:{_closed_port()}", "--model", "m"],
    "search": [
        "--base-url",
        f"http://127.0.0.1:{_closed_port()}",
        "--model",
        "m",
        "--slo",
        "tpot:p99:50",
    ],
    "doctor": ["--base-url", f"http://127.0.0.1:{_closed_port()}"],
    "report": ["."],
    "roofline": [],
    "sim": [],
    "selftest": ["--no-save"],
    "compare": [".", "."],
}


def _numeric_flags() -> list[tuple[str, str]]:
    found = []
    for command in COMMANDS:
        parser, _ = build_command_parser(command)
        for action in parser._actions:
            typed = action.type is not None and action.type is not str
            if typed and action.option_strings and not action.choices:
                if getattr(action.type, "__name__", "") in ("json_object",):
                    continue  # JSON, not a number: covered by the bad-input table
                found.append((command, action.option_strings[0]))
    return found


FLAGS = _numeric_flags()


def test_the_walk_finds_the_known_numeric_flags() -> None:
    assert ("doctor", "--timeout") in FLAGS
    assert ("sweep", "--num-prompts") in FLAGS and ("sweep", "--seed") in FLAGS
    assert ("roofline", "--bandwidth-gb-s") in FLAGS and ("sim", "--step-overhead-ms") in FLAGS
    assert len(FLAGS) >= 40


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    import uvicorn

    for name in ("OPENAI_API_KEY", "API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    # A value that got through would start the simulator: its serving loop is the one part
    # replaced here (it would serve until interrupted); the test then fails on the exit code.
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, *a, **k: None)


@pytest.mark.parametrize(("command", "flag"), FLAGS, ids=[f"{c} {f}" for c, f in FLAGS])
def test_numeric_flag_refuses_non_finite_and_absurd_values(capsys, command, flag) -> None:
    for value in _VALUES:
        try:
            code = main([command, *_BASE[command], f"{flag}={value}"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        err = capsys.readouterr().err
        assert code == 2, f"{command} {flag}={value}: exit {code}: {err}"
        assert err.count("\n") == 1 and flag in err, f"{command} {flag}={value}: {err}"
