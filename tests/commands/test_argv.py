"""The window's runs, built in one place and read back by the CLI's own parsers: probe's
command line and sweep's RunConfig give the same endpoint for a Target, the key never appears."""

from __future__ import annotations

from app.cli import build_command_parser
from app.commands.argv import KEY_ENV, SweepSpec, build_run_config, probe_argv
from app.commands.connection import connection_from
from app.commands.run_args import config_argv, config_json
from app.profiles import Target

SECRET = "sk-argv-secret-9"


def _target() -> Target:
    return Target(
        profile_name="lab",
        base_url="https://gw.example.test/v1",
        api="completions",
        model="qwen",
        api_key=SECRET,
        verify_tls=False,
        headers={"X-Team": "perf", "X-Time": "12:00=noon"},
    )


def _parsed(argv: list[str], command: str):  # type: ignore[no-untyped-def]
    start = argv.index(command) + 1
    parser, _ = build_command_parser(command)
    return parser.parse_args(argv[start:])


def test_probe_and_sweep_send_the_same_endpoint() -> None:
    target = _target()
    probe = _parsed(probe_argv(target, "hi", 8), "probe")
    sweep = _parsed(config_argv(build_run_config(SweepSpec(result_dir="/r"), target)), "sweep")
    for args in (probe, sweep):
        conn = connection_from(args)
        assert (conn.base_url, conn.api, conn.model, conn.verify_tls) == (
            "https://gw.example.test/v1",
            "openai",
            "qwen",
            False,
        )
        assert conn.headers == target.headers  # a value with ':' and '=' survives
        assert args.api_key_env == KEY_ENV
    assert not any(SECRET in arg for arg in probe_argv(target, "hi", 8))
    assert SECRET not in config_json(build_run_config(SweepSpec(), target))
