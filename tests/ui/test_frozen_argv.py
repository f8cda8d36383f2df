"""Worker command lines in a PyInstaller bundle: the program runs itself, not `python -m app`;
the sweep's settings go on its stdin (--config -)."""

from __future__ import annotations

import sys

import pytest

from app.commands.argv import SweepSpec, build_run_config, sweep_command
from app.profiles import Target
from app.ui.panels.probe.panel import probe_argv

BUNDLE_EXE = "/opt/tpotbench/tpotbench"


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> str:
    """What PyInstaller's bootloader sets: sys.frozen, and sys.executable = the bundle program."""
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", BUNDLE_EXE)
    return BUNDLE_EXE


def _target() -> Target:
    return Target("sim", "http://127.0.0.1:9", "chat", "m1")


def test_probe_argv_in_a_bundle_starts_with_the_bundle_program(frozen: str) -> None:
    argv = probe_argv(_target(), "hi", 8)
    assert argv[:2] == [BUNDLE_EXE, "probe"]
    assert "-m" not in argv


def test_sweep_argv_in_a_bundle_starts_with_the_bundle_program(frozen: str) -> None:
    spec = SweepSpec(request_rates=[1.0], max_concurrencies=[4], result_dir="/results/x")
    argv = sweep_command(build_run_config(spec, _target()))
    assert argv == [BUNDLE_EXE, "sweep", "--config", "-"]


def test_from_source_both_run_the_package_with_this_interpreter() -> None:
    assert probe_argv(_target(), "hi", 8)[:4] == [sys.executable, "-m", "app", "probe"]
    spec = SweepSpec(request_rates=[1.0], max_concurrencies=[4], result_dir="/results/x")
    assert sweep_command(build_run_config(spec, _target()))[:4] == [
        sys.executable,
        "-m",
        "app",
        "sweep",
    ]
