"""`tpotbench sweep --workers N` / `--ray auto`: the same files, events and counts as one
process, with a `workers` block saying how the load was split."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.sim.embedded import RunningSim
from tests.event_lines import wire_event


def _sweep(base_url: str, result_dir: Path, *extra: str) -> list[str]:
    return [
        *(sys.executable, "-m", "app", "sweep", "--base-url", base_url),
        *("--output-len", "5", "--result-dir", str(result_dir), "--disable-tqdm"),
        *extra,
    ]


def _run(cmd: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=240, env={**base, **(env or {})}
    )


def _points(result_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(result_dir.glob("*_rate*.json"))]


def test_two_worker_processes_give_every_point_its_requests(sim: RunningSim, tmp_path) -> None:
    proc = _run(
        _sweep(
            sim.base_url,
            tmp_path,
            *("--num-prompts", "7", "--max-concurrency", "3,5", "--workers", "2"),
            *("--events", "jsonl", "--label", "w2"),
        )
    )
    assert proc.returncode == 0, proc.stderr
    events = [wire_event(line) for line in proc.stdout.splitlines()]
    requests = [e for e in events if e["type"] == "request"]
    assert len(requests) == 14 and all(r["ok"] and r["output_tokens"] == 5 for r in requests)
    tokens = [e for e in events if e["type"] == "tokens"]
    assert sum(len(e["itl_ms"]) for e in tokens) == 14 * 4  # every gap, relayed by the workers
    assert all(0 <= t < 120 for e in tokens for t in e["t_s"])  # on the point's own time axis
    points = _points(tmp_path)
    assert [p["max_concurrency"] for p in points] == [3, 5]
    for point in points:
        assert point["completed"] == 7 and point["failed"] == 0
        assert point["total_output_tokens"] == 35
        block = point["tpotbench"]["workers"]
        assert block["where"] == "processes" and block["used"] == 2
        assert sum(block["requests"]) == 7 and block["lost"] == {}
        assert sum(block["max_concurrency"]) == point["max_concurrency"]
    report = _run([sys.executable, "-m", "app", "report", str(tmp_path), "--json"])
    assert report.returncode == 0, report.stderr
    rows = json.loads(report.stdout)
    assert sorted(row["completed"] for row in rows) == [7, 7]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--workers", "0"], "must be at least 1, got 0"),
        (["--workers", "100000"], "must be at most 256, got 100,000"),
        (["--workers", "two"], "expected a whole number, got 'two'"),
        (["--ray", " "], "--ray needs an address"),
        (["--ray", "not an address"], "is not an address: use auto, or the head's HOST:PORT"),
        (["--ray", "127.0.0.1"], "is not an address"),
        (["--ray", "127.0.0.1:99999"], "is not an address"),
        (["--ray", "1.2.3.400:6379"], "is not an IPv4 address"),
        (["--ray", "a_b:6379"], "is not a host name"),
    ],
)
def test_bad_worker_flags_are_one_line_and_exit_2(tmp_path: Path, extra, message) -> None:
    proc = _run(_sweep("http://127.0.0.1:9", tmp_path, *extra))
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_ray_sweep_writes_the_same_files(sim: RunningSim, tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray is not installed: pip install 'tpotbench[distributed]'")
    home = tmp_path / "home"  # Ray writes ~/.ray (an auth token): keep it out of the real home
    home.mkdir()
    proc = _run(
        _sweep(
            sim.base_url,
            tmp_path / "res",
            *("--num-prompts", "6", "--max-concurrency", "4", "--ray", "auto"),
        ),
        env={"HOME": str(home)},
    )
    assert proc.returncode == 0, proc.stderr
    (point,) = _points(tmp_path / "res")
    assert point["completed"] == 6 and point["total_output_tokens"] == 30
    block = point["tpotbench"]["workers"]
    assert block["where"] == "ray auto" and block["used"] == 2 and sum(block["requests"]) == 6


def _closed_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("listener", ["none", "silent", "not-grpc"])
def test_a_ray_head_that_is_not_there_stops_the_sweep_in_one_line(
    sim: RunningSim, tmp_path: Path, listener: str
) -> None:
    """Nothing on the port, a listener that never answers, one that answers HTTP/1: each is
    named before Ray is handed the address (Ray itself would retry for minutes), the sweep
    exits non-zero with one line and no point file. Only loopback is ever dialled: Ray is
    never asked to connect anywhere."""
    pytest.importorskip("ray", reason="Ray is not installed: pip install 'tpotbench[distributed]'")
    stop = threading.Event()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = _closed_loopback_port() if listener == "none" else server.getsockname()[1]
    held: list[socket.socket] = []

    def serve() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            if listener == "not-grpc":
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            held.append(conn)  # "silent": accepted, never answered

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        proc = _run(
            _sweep(sim.base_url, tmp_path, "--num-prompts", "2", "--ray", f"127.0.0.1:{port}"),
            env={"HOME": str(tmp_path / "home")},
        )
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        server.close()
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if f"127.0.0.1:{port}" in line]
    assert lines, proc.stderr
    expected = {
        "none": "cannot reach a Ray head",
        "silent": "did not answer as a Ray head",
        "not-grpc": "not as a Ray head",
    }[listener]
    assert expected in lines[0]
    assert "Traceback" not in proc.stderr
    assert not _points(tmp_path)
