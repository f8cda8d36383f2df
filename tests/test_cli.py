"""The command-line front door: version, help, one-line errors with exit code 2."""

import subprocess
import sys

from app import __version__


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=60
    )


def test_version_matches_package_metadata() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"tpotbench {__version__}"
    assert __version__ != "0.0.0+source"


def test_unknown_flag_is_one_line_and_exit_code_2() -> None:
    proc = run_cli("--no-such-flag")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "--no-such-flag" in proc.stderr


def test_a_bad_window_size_is_one_line_and_exit_code_2() -> None:
    for args in (["--screenshot", "x.png", "--size", "12x7"], ["--size", "1280x720"]):
        proc = run_cli(*args)
        assert proc.returncode == 2, args
        assert proc.stderr.count("\n") == 1
        assert "--size" in proc.stderr
