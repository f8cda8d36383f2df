"""An API key that cannot be sent safely: refused up front, never echoed, and a warning when a
key would travel unencrypted. Real CLI processes against the simulator (a keyed gateway)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.bench.doctor.keys import auth_check
from app.bench.doctor.probe import Probe
from app.bench.doctor.run import CHECK_IDS, DoctorTarget, diagnose
from app.bench.http.auth import cleartext_host, is_loopback_host
from app.cli import main

KEY = "sk-tpot-right-key-0123456789abcd"
INJECTED = "sk-secret-abcdef123456\nX-Injected: 1"


def cli(*args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    if key is not None:
        env["TEST_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def assert_no_trace_of(key: str, text: str) -> None:
    for piece in (key, key.strip(), repr(key)[1:-1], json.dumps(key)[1:-1], *key.split("\n")):
        assert piece not in text, text


@pytest.fixture(scope="module")
def gateway() -> Iterator[object]:
    from app.sim.config import SimConfig
    from app.sim.embedded import start_sim_thread

    with start_sim_thread(SimConfig(api_key=KEY), port=0) as running:
        yield running


@pytest.mark.parametrize(
    "command",
    [
        ["probe", "--max-tokens", "4"],
        ["probe", "--max-tokens", "4", "--events", "jsonl"],
        ["sweep", "--num-prompts", "2", "--output-len", "4"],
        ["sweep", "--num-prompts", "2", "--output-len", "4", "--events", "jsonl"],
        ["doctor", "--json"],
    ],
    ids=["probe", "probe-events", "sweep", "sweep-events", "doctor-json"],
)
@pytest.mark.parametrize(
    ("key", "said"),
    [
        (INJECTED, "the API key contains a line break"),
        ("sk-secret-abcdef123456\r", "the API key contains a line break"),
        ("sk-secret\x1b[2Jabcdef123456", "the API key contains a control character"),
    ],
    ids=["LF", "CR", "ESC"],
)
def test_a_key_with_control_characters_is_refused_and_never_echoed(
    gateway, tmp_path, command, key, said
) -> None:
    if key.endswith("\r"):
        key = key[:-1] + "\rX"  # a CR that survives stripping
    args = [*command, "--base-url", gateway.base_url, "--api-key-env", "TEST_KEY"]
    if command[0] == "sweep":
        args += ["--result-dir", str(tmp_path)]
    proc = cli(*args, key=key)
    assert proc.returncode == 2, proc.stderr
    assert said in proc.stderr
    assert "$TEST_KEY" in proc.stderr  # where the key came from, so it can be fixed
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert_no_trace_of(key, proc.stdout + proc.stderr)
    if "--events" in command:
        events = [json.loads(line) for line in proc.stdout.splitlines()]
        assert [e["type"] for e in events] == ["error"]
        assert said in events[0]["message"]
    assert list(tmp_path.iterdir()) == []


class _Echo(BaseHTTPRequestHandler):
    """Every answer is a web page quoting the request's Authorization header, as some
    misconfigured gateways' error pages do."""

    requests = 0

    def _send(self) -> None:
        type(self).requests += 1
        if self.command == "POST":
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = (
            f"<html><body>Proxy error. Request headers: "
            f"Authorization: {self.headers.get('Authorization')}</body></html>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _send

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo() -> Iterator[str]:
    _Echo.requests = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(5)


def test_the_doctor_in_the_window_sends_nothing_with_such_a_key(echo) -> None:
    """The window's doctor calls diagnose() directly: the key never reaches the HTTP client."""
    report = asyncio.run(diagnose(DoctorTarget(echo, api_key=INJECTED), timeout_s=3))
    statuses = {c.id: c.status for c in report.checks}
    assert [c.id for c in report.checks] == list(CHECK_IDS)
    assert statuses["auth"] == "fail"
    assert {statuses[c] for c in CHECK_IDS if c != "auth"} == {"skip"}
    assert "line break" in report.check("auth").detail
    assert_no_trace_of(INJECTED, report.json_text())
    assert _Echo.requests == 0


def test_doctor_excerpts_of_pages_that_echo_the_key_are_redacted(echo) -> None:
    report = asyncio.run(diagnose(DoctorTarget(echo, model="m", api_key=KEY), timeout_s=3))
    assert _Echo.requests > 0
    metrics = report.check("metrics")
    assert metrics.status == "warn"
    assert "not with Prometheus text" in metrics.detail
    assert "Bearer <redacted>" in metrics.detail
    assert KEY not in report.json_text()


# ---- plain http:// to another computer --------------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("LOCALHOST.", True),
        ("app.localhost", True),
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("[::1]", True),
        ("::ffff:127.0.0.1", True),
        ("0.0.0.0", True),
        ("10.0.0.5", False),
        ("192.168.1.20", False),
        ("gpu-box.lan", False),
        ("localhost.example.com", False),
    ],
)
def test_loopback_hosts(host, loopback) -> None:
    assert is_loopback_host(host) is loopback


def test_cleartext_host_needs_http_a_key_and_another_computer() -> None:
    assert cleartext_host("http://10.0.0.5:8000/v1", KEY) == "10.0.0.5"
    assert cleartext_host("HTTP://gpu-box.lan", KEY) == "gpu-box.lan"
    assert cleartext_host("https://10.0.0.5:8000", KEY) is None
    assert cleartext_host("http://127.0.0.1:8000", KEY) is None
    assert cleartext_host("http://10.0.0.5:8000", "") is None
    assert cleartext_host("http://10.0.0.5:8000", "  ") is None
    assert cleartext_host("http://[::1", KEY) is None  # not a URL: the resolver says so


@pytest.fixture
def no_network(monkeypatch):
    """The requests themselves are stubbed: a host other than 127.0.0.1 must not be contacted
    from the tests, and the warning is printed before anything is sent."""
    import app.bench.http.client

    calls: list[object] = []

    class NotSent(str):  # probe prints it as "nothing answered"; sweep's exit code is 1
        def __int__(self) -> int:
            return 1

    def stub(coro):
        coro.close()
        calls.append(coro)
        return NotSent("not sent (test)")

    monkeypatch.setattr(app.bench.http.client, "run", stub)
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", "/nonexistent-tpotbench-test")
    for name in ("OPENAI_API_KEY", "API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return calls


@pytest.mark.parametrize("command", ["probe", "sweep"])
@pytest.mark.parametrize(
    ("url", "key", "warned"),
    [
        ("http://10.0.0.5:8000", KEY, True),
        ("http://gpu-box.lan:8000/v1", KEY, True),
        ("https://10.0.0.5:8000", KEY, False),
        ("http://127.0.0.1:8000", KEY, False),
        ("http://localhost:8000", KEY, False),
        ("http://10.0.0.5:8000", None, False),
    ],
)
def test_cli_warns_before_sending_a_key_unencrypted(
    capsys, monkeypatch, no_network, tmp_path, command, url, key, warned
) -> None:
    if key:
        monkeypatch.setenv("OPENAI_API_KEY", key)
    args = [command, "--base-url", url, "--model", "m"]
    if command == "sweep":
        args += ["--num-prompts", "2", "--result-dir", str(tmp_path)]
    with contextlib.suppress(SystemExit):
        main(args)
    err = capsys.readouterr().err
    assert no_network, err  # got as far as sending
    lines = [line for line in err.splitlines() if line.startswith("warning:")]
    if warned:
        host = url.split("//")[1].split(":")[0]
        assert lines == [
            f"warning: the API key is sent unencrypted over http:// to {host}; anyone on the "
            "way can read it. Use https:// (or an SSH tunnel to localhost)."
        ]
    else:
        assert lines == []
    assert KEY not in err


def _auth(base_url: str, key: str | None, statuses: list[int]):
    target = DoctorTarget(base_url, api_key=key, key_source="from $OPENAI_API_KEY")
    return auth_check(Probe(None, target, "chat"), statuses)  # type: ignore[arg-type]


def test_doctor_warns_when_an_accepted_key_crossed_the_network_unencrypted() -> None:
    auth = _auth("http://10.0.0.5:8000", KEY, [200, 200])
    assert auth.status == "warn"
    assert auth.detail == (
        "accepted Authorization: Bearer sk-…abcd (from $OPENAI_API_KEY), but over plain "
        "http:// to 10.0.0.5: the key crossed the network unencrypted"
    )
    assert "https://" in auth.fix
    assert _auth("https://10.0.0.5:8000", KEY, [200, 200]).status == "ok"
    assert _auth("http://127.0.0.1:8000", KEY, [200, 200]).status == "ok"
    assert _auth("http://10.0.0.5:8000", None, [200, 200]).status == "ok"


# ---- a 401 is a key problem, before any question of models -------------------------------


def test_probe_without_model_on_a_keyed_server_says_key_not_model(gateway) -> None:
    missing = cli("probe", "--base-url", gateway.base_url, "--max-tokens", "4")
    assert missing.returncode == 1
    assert "--model is required" not in missing.stderr
    assert f"HTTP 401 from {gateway.base_url}/v1/models" in missing.stderr
    assert "wants an API key and none was sent" in missing.stderr

    wrong = cli(
        "probe", "--base-url", gateway.base_url, "--api-key-env", "TEST_KEY", key="sk-wrong-0000"
    )
    assert wrong.returncode == 1
    assert "--model is required" not in wrong.stderr
    assert "rejected the API key" in wrong.stderr
    assert "sk-wrong-0000" not in wrong.stderr

    right = cli(
        "probe", "--base-url", gateway.base_url, "--max-tokens", "4", "--api-key-env", "TEST_KEY",
        key=KEY,
    )  # fmt: skip
    assert right.returncode == 0, right.stderr
