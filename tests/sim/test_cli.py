"""`tpotbench sim` from the command line: bad flags, start-up, the child-process runner."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from app.sim.embedded import SimStartError, start_sim_process


def run_sim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", "sim", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--gpu", "rtx9999"], "rtx9999"),
        (["--port", "-1"], "--port"),
        (["--gpu-memory-utilization", "1.5"], "--gpu-memory-utilization"),
        (["--model", "no-such-model"], "no-such-model"),
        (["--fault", "explode"], "--fault"),
        (["--max-model-len", "131072"], "--max-model-len"),
        (["--frontend-us-per-token", "-1"], "--frontend-us-per-token"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(args: list[str], needle: str) -> None:
    proc = run_sim(*args)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_help_names_the_fault_and_gateway_flags() -> None:
    proc = run_sim("--help")
    assert proc.returncode == 0
    for flag in ("--fault", "--fault-every", "--no-stream-usage", "--disable-metrics", "--api-key"):
        assert flag in proc.stdout


def test_process_sim_serves_and_stops() -> None:
    # How fast it starts (the 2 s goal) is a timing figure: benchmarks/startup_time.py.
    sim = start_sim_process(["--served-model-name", "a", "b", "--path-prefix", "/api"])
    try:
        models = httpx.get(f"{sim.base_url}/v1/models").json()
        assert [m["id"] for m in models["data"]] == ["a", "b"]
    finally:
        sim.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{sim.base_url}/v1/models")


def test_process_start_failure_is_reported() -> None:
    with pytest.raises(SimStartError, match="rtx9999"):
        start_sim_process(["--gpu", "rtx9999"])


def test_api_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TPOTBENCH_SIM_TEST_KEY", "k-123")
    with start_sim_process(["--api-key-env", "TPOTBENCH_SIM_TEST_KEY"]) as sim:
        assert httpx.get(f"{sim.base_url}/v1/models").status_code == 401
        headers = {"Authorization": "Bearer k-123"}
        assert httpx.get(f"{sim.base_url}/v1/models", headers=headers).status_code == 200
