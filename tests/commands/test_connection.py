"""One set of endpoint flags for probe, sweep, search and doctor: both header syntaxes reach a
real server, a profile fills what the flags leave out, and every command parses them alike."""

from __future__ import annotations

import json

import pytest

from app.cli import build_command_parser, main
from app.commands.connection import (
    BACKENDS,
    connection_from,
    header_args,
    parse_headers,
    split_header,
)
from app.commands.credentials import UsageError

KEY = "sk-header-only-7"
NETWORKED = ("probe", "sweep", "search", "doctor")
SHARED_FLAGS = (
    "--base-url",
    "--endpoint",
    "--backend",
    "--model",
    "--profile",
    "--api-key-env",
    "--header",
    "--insecure",
)


def test_both_header_syntaxes_and_the_first_separator_wins() -> None:
    assert split_header("X-Org: acme") == ("X-Org", "acme")
    assert split_header("X-Org = acme") == ("X-Org", "acme")
    assert split_header("Authorization: Bearer abc==") == ("Authorization", "Bearer abc==")
    assert split_header("X-Time=12:00") == ("X-Time", "12:00")
    assert split_header("X-Empty:") == ("X-Empty", "")
    assert split_header("novalue") is None
    assert split_header(": v") is None
    items = ["X-A: 1", "X-B=2", "X-A=3"]
    assert parse_headers(items) == {"X-A": "3", "X-B": "2"}


def test_a_bad_header_is_named_without_its_value() -> None:
    with pytest.raises(UsageError, match=r"'Bearer\.\.\.' is not 'Name: value'") as caught:
        parse_headers(["Bearer sk-very-secret"])
    assert "sk-very-secret" not in str(caught.value)
    with pytest.raises(UsageError, match="header name 'Bad Name' is not valid"):
        parse_headers(["Bad Name: sk-very-secret"])


def test_a_built_argv_uses_the_canonical_syntax_and_parses_back() -> None:
    headers = {"X-Team": "perf", "X-Time": "12:00=noon"}
    argv = header_args(headers)
    assert argv == ["--header", "X-Team: perf", "--header", "X-Time: 12:00=noon"]
    parser, _ = build_command_parser("probe")
    args = parser.parse_args(argv)
    assert parse_headers(args.header) == headers


@pytest.mark.parametrize("command", NETWORKED)
def test_every_networked_command_takes_the_same_endpoint_flags(command: str) -> None:
    parser, _ = build_command_parser(command)
    actions = parser._option_string_actions
    assert all(flag in actions for flag in SHARED_FLAGS)
    assert tuple(actions["--backend"].choices) == BACKENDS
    # both ways of giving several headers: one flag with a list, or the flag repeated
    args = parser.parse_args(["--header", "A: 1", "B=2", "--header", "C: 3"])
    assert args.header == ["A: 1", "B=2", "C: 3"]
    assert "'Name: value'" in parser.format_help().replace("\n", " ")


def test_the_profile_fills_what_the_flags_leave_out(tmp_path, monkeypatch) -> None:
    from app.profiles import Profile, ProfileStore

    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path))
    ProfileStore().add(
        Profile(
            name="lab",
            kind="vllm",
            base_url="https://lab.example:8443/v1",
            api="completions",
            model="m1",
            verify_tls=True,
            headers={"X-Team": "a", "X-Keep": "k"},
            ray_address="auto",
        )
    )
    parser, _ = build_command_parser("sweep")
    args = parser.parse_args(["--profile", "lab", "--header", "X-Team: b", "--insecure"])
    conn = connection_from(args)
    assert (conn.base_url, conn.api, conn.model, conn.profile) == (
        "https://lab.example:8443/v1",
        "completions",
        "m1",
        "lab",
    )
    assert conn.headers == {"X-Team": "b", "X-Keep": "k"}  # the flag wins
    assert conn.verify_tls is False and conn.ray_address == "auto"
    args = parser.parse_args(["--profile", "lab", "--base-url", "http://h:1", "--model", "m2"])
    conn = connection_from(args)
    assert (conn.base_url, conn.model) == ("http://h:1", "m2")
    with pytest.raises(UsageError, match=r"^--profile: no profile named 'nope'$"):
        connection_from(parser.parse_args(["--profile", "nope"]))


@pytest.fixture
def keyed(make_sim, monkeypatch):
    """A simulator that wants KEY, and no key in the environment: only a header can carry it."""
    for name in ("OPENAI_API_KEY", "API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return make_sim(api_key=KEY)


@pytest.mark.parametrize("header", [f"Authorization: Bearer {KEY}", f"Authorization=Bearer {KEY}"])
def test_probe_sends_a_header_given_either_way(keyed, capsys, header: str) -> None:
    base = ["probe", "--base-url", keyed.base_url, "--max-tokens", "2", "--json"]
    assert main(base) == 1  # no key: the server refuses
    capsys.readouterr()
    assert main([*base, "--header", header]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


def test_sweep_and_doctor_send_the_headers_too(keyed, capsys, tmp_path) -> None:
    code = main(
        [
            "sweep",
            "--base-url",
            keyed.base_url,
            "--num-prompts",
            "2",
            "--result-dir",
            str(tmp_path),
            "--label",
            "h",
            "--disable-tqdm",
            "--header",
            f"Authorization: Bearer {KEY}",
            "X-Team=perf",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Successful requests:                     2" in out
    code = main(
        ["doctor", "--base-url", keyed.base_url, "--json", "--header", f"Authorization={KEY}"]
    )
    report = json.loads(capsys.readouterr().out)
    auth = next(c for c in report["checks"] if c["id"] == "auth")
    assert auth["status"] == "fail"  # the server wants "Bearer KEY": the value went as given
    main(
        [
            "doctor",
            "--base-url",
            keyed.base_url,
            "--json",
            "--header",
            f"Authorization: Bearer {KEY}",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    auth = next(c for c in report["checks"] if c["id"] == "auth")
    assert auth["status"] == "ok", auth
