"""Shared fixtures: the built-in simulator on a free port (a real HTTP server on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.sim.config import SimConfig
from app.sim.embedded import RunningSim, start_sim_thread


@pytest.fixture(autouse=True)
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own config folder: what a user (or another run on this machine)
    saved there, e.g. the client's ceiling from `tpotbench selftest`, changes what a sweep
    prints, so no test may read the real one."""
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TPOTBENCH_LOG_DIR", str(tmp_path / "log"))


@pytest.fixture(scope="session")
def sim() -> Iterator[RunningSim]:
    """One simulator for the whole session, default (reference-case) settings."""
    with start_sim_thread(SimConfig(), port=0) as running:
        yield running


@pytest.fixture
def make_sim() -> Iterator[Callable[..., RunningSim]]:
    """Factory: make_sim(api_key="k", faults=["500"], ...) -> a started simulator, stopped after."""
    started: list[RunningSim] = []

    def make(**overrides: object) -> RunningSim:
        running = start_sim_thread(SimConfig(**overrides), port=0)  # type: ignore[arg-type]
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()
