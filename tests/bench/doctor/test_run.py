"""`tpotbench doctor`: one diagnosis per field-guide error, reproduced against the simulator."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from app.bench.doctor.run import (
    CHECK_IDS,
    Check,
    DoctorReport,
    DoctorTarget,
    diagnose,
    key_problems,
    redact_key,
)
from app.bench.http.endpoint import EndpointError
from app.sim.config import SimConfig
from app.sim.embedded import RunningSim, start_sim_thread

KEY = "sk-tpot-right-key-0123456789abcd"
MODEL = "qwen2.5-7b"


@pytest.fixture(scope="module")
def sim_with() -> Iterator[Callable[..., RunningSim]]:
    """One simulator per distinct config, shared by this module's tests."""
    running: dict[str, RunningSim] = {}

    def get(**overrides: Any) -> RunningSim:
        key = json.dumps(overrides, sort_keys=True)
        if key not in running:
            running[key] = start_sim_thread(SimConfig(**overrides))
        return running[key]

    yield get
    for sim in running.values():
        sim.stop()


def run(base_url: str, **kw: Any) -> DoctorReport:
    kw.setdefault("model", MODEL)
    seen: list[Check] = []
    report = asyncio.run(diagnose(DoctorTarget(base_url, **kw), timeout_s=3, on_check=seen.append))
    assert [c.id for c in report.checks] == list(CHECK_IDS)  # every check, in the guide's order
    assert seen == report.checks  # each was handed over as it was decided
    return report


def statuses(report: DoctorReport) -> dict[str, str]:
    return {c.id: c.status for c in report.checks}


def test_healthy_simulator_passes_every_check(sim: RunningSim) -> None:
    report = run(sim.base_url)
    assert report.ok
    assert set(statuses(report).values()) == {"ok"}
    assert report.resolved_url == f"{sim.root_url}/v1/chat/completions"
    assert "qwen2.5-7b" in report.check("model").detail
    assert "[DONE] seen" in report.check("streaming").detail
    assert "usage: 8 completion tokens" in report.check("streaming").detail
    metrics = report.check("metrics").detail
    assert "vLLM (V1 metric names)" in metrics
    assert "5,306 blocks × 16 = 84,896 tokens" in metrics
    # --max-model-len 4096: 256 blocks per request, 5306 // 256 = 20 at once (field guide setup)
    assert metrics.endswith("; 20 requests of the full 4,096-token context fit at once")


def test_wrong_port_is_connection_refused() -> None:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    report = run(f"http://127.0.0.1:{port}")
    reach = report.check("reachable")
    assert reach.status == "fail"
    assert f"127.0.0.1:{port} (connection refused)" in reach.detail
    assert "port" in reach.fix and "running" in reach.fix
    assert statuses(report) == {"reachable": "fail"} | {c: "skip" for c in CHECK_IDS[1:]}
    assert not report.ok


def test_missing_key(sim_with: Callable[..., RunningSim]) -> None:
    report = run(sim_with(api_key=KEY).base_url, key_source="environment variable X is not set")
    auth = report.check("auth")
    assert auth.status == "fail"
    assert auth.detail == (
        "HTTP 401: the server wants a key and none was sent (environment variable X is not set)"
    )
    assert "--api-key-env" in auth.fix
    assert statuses(report)["body"] == "skip"
    assert statuses(report)["metrics"] == "ok"  # /metrics needs no key even on a keyed server


def test_wrong_key_is_shown_redacted(sim_with: Callable[..., RunningSim]) -> None:
    wrong = "sk-tpot-wrong-key-9999999999wxyz"
    report = run(sim_with(api_key=KEY).base_url, api_key=wrong)
    auth = report.check("auth")
    assert auth.status == "fail"
    assert "HTTP 401: the server rejected Authorization: Bearer sk-…wxyz" in auth.detail
    assert "expired" in auth.detail
    assert wrong not in report.json_text()
    assert wrong[3:-4] not in report.json_text()


def test_key_with_trailing_space(sim_with: Callable[..., RunningSim]) -> None:
    report = run(sim_with(api_key=KEY).base_url, api_key=KEY + " ")
    auth = report.check("auth")
    # The engine strips the space, so the request passes; curl or vllm bench would get 401.
    assert auth.status == "warn"
    assert "Bearer sk-…abcd␠" in auth.detail
    assert "a trailing space" in auth.detail
    assert "curl" in auth.fix
    assert report.ok and statuses(report)["body"] == "ok"


def test_doubled_v1_is_repaired_and_flagged(sim_with: Callable[..., RunningSim]) -> None:
    sim = sim_with()
    report = run(sim.root_url + "/v1", endpoint="/v1/chat/completions")
    path = report.check("path")
    assert path.status == "warn"
    assert report.resolved_url == f"{sim.root_url}/v1/chat/completions"
    assert "/v1 is both at the end of the base URL and at the start of the endpoint" in path.detail
    assert path.fix.startswith(f"Write the base URL as {sim.root_url} ")
    assert "--endpoint /v1/chat/completions" in path.fix


def test_api_v1_given_for_an_api_root(sim_with: Callable[..., RunningSim]) -> None:
    sim = sim_with(path_prefix="/api")
    report = run(sim.root_url + "/api/v1", endpoint="/v1/chat/completions")
    path = report.check("path")
    assert path.status == "warn"
    assert report.resolved_url == f"{sim.root_url}/api/v1/chat/completions"
    assert path.fix.startswith(f"Write the base URL as {sim.root_url}/api ")
    assert statuses(report)["metrics"] == "ok"  # the gateway's /api/metrics


def test_gateway_root_forgotten_names_the_url_that_answers(
    sim_with: Callable[..., RunningSim],
) -> None:
    sim = sim_with(path_prefix="/api")
    report = run(sim.root_url)
    path = report.check("path")
    assert path.status == "fail"
    assert f"POST {sim.root_url}/v1/chat/completions gave HTTP 404" in path.detail
    assert f"{sim.root_url}/api/v1/chat/completions answers instead" in path.detail
    assert path.fix == (
        f"Use --base-url {sim.root_url}/api (requests then go to "
        f"{sim.root_url}/api/v1/chat/completions)."
    )
    assert statuses(report)["auth"] == "warn"  # nothing answered, so the key is unchecked


def test_unknown_model_lists_served_ids(sim_with: Callable[..., RunningSim]) -> None:
    report = run(sim_with().base_url, model="qwen-7b")
    model = report.check("model")
    assert model.status == "fail"
    assert model.detail == "'qwen-7b' is not served; served ids: qwen2.5-7b"
    assert "--served-model-name" in model.fix
    assert statuses(report)["path"] == "ok"  # vLLM's 404 for a model is not a path problem


def test_chat_endpoint_with_the_completions_flavour(sim_with: Callable[..., RunningSim]) -> None:
    sim = sim_with()
    report = run(sim.root_url, endpoint="/v1/chat/completions", api="openai")
    body = report.check("body")
    assert body.status == "fail"
    assert "HTTP 400 with a completions body" in body.detail
    assert "'messages' must be a non-empty list" in body.detail
    assert "it is the chat endpoint" in body.detail
    assert "use --backend openai-chat" in body.fix
    assert statuses(report)["streaming"] == "skip"


def test_no_usage_in_the_stream(sim_with: Callable[..., RunningSim]) -> None:
    report = run(sim_with(no_stream_usage=True).base_url)
    stream = report.check("streaming")
    assert stream.status == "warn"
    assert "[DONE] seen, but no usage in the stream" in stream.detail
    assert "estimated" in stream.fix
    assert report.ok  # a warning, not a failure


def test_no_metrics_endpoint(sim_with: Callable[..., RunningSim]) -> None:
    sim = sim_with(disable_metrics=True)
    report = run(sim.base_url)
    metrics = report.check("metrics")
    assert metrics.status == "warn"
    assert metrics.detail == f"no Prometheus metrics at {sim.root_url}/metrics (HTTP 404)"
    assert report.ok


def test_rate_limited_429_is_classified(sim_with: Callable[..., RunningSim]) -> None:
    report = run(sim_with(faults=["429"]).base_url)
    body = report.check("body")
    assert body.status == "fail"
    assert body.detail.startswith("HTTP 429: Rate limit reached")
    assert body.detail.endswith("(Retry-After: 1 s)")
    assert "--request-rate" in body.fix  # failures.py's http_429 sentence
    assert statuses(report)["auth"] == "ok"


def test_server_error_500_is_classified(sim_with: Callable[..., RunningSim]) -> None:
    report = run(sim_with(faults=["500"]).base_url)
    body = report.check("body")
    assert body.status == "fail"
    assert body.detail == "HTTP 500: Internal server error (simulated fault)."
    assert "check its log" in body.fix


def test_reply_without_choices(sim_with: Callable[..., RunningSim]) -> None:
    report = run(sim_with(faults=["no-choices"]).base_url)
    body = report.check("body")
    assert body.status == "fail"
    assert "HTTP 200 but it has no 'choices' (the KeyError: 'choices' case)" in body.detail
    assert '"usage"' in body.detail  # an excerpt of what came back
    assert "--backend" in body.fix


def test_unusable_url_raises_endpoint_error() -> None:
    with pytest.raises(EndpointError, match="no scheme"):
        asyncio.run(diagnose(DoctorTarget("localhost:8000")))


def test_redaction_and_key_slips() -> None:
    assert redact_key("sk-abcdefghijklmnopqrs") == "sk-…pqrs"
    assert redact_key(" sk-abcdefghijklmnopqrs\n") == "␠sk-…pqrs⏎"
    assert redact_key("sk-abcdefghijkl") == "…ijkl"  # 15 characters: no prefix shown
    assert redact_key("key-ab12") == "…12"
    assert redact_key("short7k") == "…"
    assert key_problems("sk-abc ") == ["a trailing space"]
    assert key_problems("\tsk-abc") == ["a leading tab"]
    assert key_problems('"sk-abc"') == ["quotes around it"]
    assert key_problems("Bearer sk-abc") == [
        "whitespace inside it",
        "the word 'Bearer' in it (TPOT Bench adds that itself)",
    ]
    assert key_problems("sk-abc") == []


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "app", "doctor", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=full_env,
    )


def test_cli_json_shape_and_exit_codes(sim_with: Callable[..., RunningSim]) -> None:
    sim = sim_with(api_key=KEY)
    ok = _cli(
        "--base-url", sim.base_url, "--model", MODEL, "--api-key-env", "TPOT_KEY", "--json",
        env={"TPOT_KEY": KEY},
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert list(data) == ["ok", "resolved_url", "checks"]
    assert data["ok"] is True
    assert data["resolved_url"] == f"{sim.root_url}/v1/chat/completions"
    assert [c["id"] for c in data["checks"]] == list(CHECK_IDS)
    assert all(list(c) == ["id", "status", "detail", "fix"] for c in data["checks"])
    assert KEY not in ok.stdout + ok.stderr

    unset = _cli("--base-url", sim.base_url, "--api-key-env", "TPOT_UNSET_KEY")
    assert unset.returncode == 1
    assert "[FAIL] auth" in unset.stdout
    assert "environment variable TPOT_UNSET_KEY is not set" in unset.stdout
    assert "1 failed (auth)" in unset.stdout.splitlines()[-1]

    bad = _cli("--base-url", "localhost:8000")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "http://localhost:8000" in bad.stderr
    assert _cli().returncode == 2


def test_https_to_a_plain_http_server_is_a_tls_failure(sim: RunningSim) -> None:
    report = run(sim.root_url.replace("http://", "https://"))
    reach = report.check("reachable")
    assert reach.status == "fail"
    assert reach.detail.startswith(f"TLS handshake or certificate failed for 127.0.0.1:{sim.port}")
    assert "https://" in reach.fix


def test_silent_server_is_a_timeout() -> None:
    with socket.socket() as mute:  # listens, never accepts: requests go out, nothing comes back
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)
        port = mute.getsockname()[1]
        target = DoctorTarget(f"http://127.0.0.1:{port}", model=MODEL)
        report = asyncio.run(diagnose(target, timeout_s=0.3))
    reach = report.check("reachable")
    assert reach.status == "fail"
    assert reach.detail.startswith("no answer within the time limit for 127.0.0.1:")
    assert "overloaded" in reach.fix


def test_cli_reads_a_saved_profile(sim_with: Callable[..., RunningSim], tmp_path: Path) -> None:
    from app.profiles import Profile, ProfileStore

    sim = sim_with(path_prefix="/api", api_key=KEY)
    ProfileStore(tmp_path).add(Profile("My gateway", "gateway", sim.base_url, "chat", MODEL))
    env = {"TPOTBENCH_CONFIG_DIR": str(tmp_path), "GW_KEY": KEY}
    proc = _cli("--profile", "My gateway", "--api-key-env", "GW_KEY", "--json", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["resolved_url"] == f"{sim.root_url}/api/v1/chat/completions"
    assert "(from $GW_KEY)" in data["checks"][1]["detail"]

    missing = _cli("--profile", "Nope", env=env)
    assert missing.returncode == 2
    assert missing.stderr == "tpotbench doctor: error: no profile named 'Nope'\n"


def test_generation_that_never_answers_is_not_called_a_path_problem(
    sim_with: Callable[..., RunningSim],
) -> None:
    sim = sim_with(faults=["slow-first-byte"], slow_first_byte_ms=1500)
    report = asyncio.run(diagnose(DoctorTarget(sim.base_url, model=MODEL), timeout_s=0.3))
    assert statuses(report) == {
        "reachable": "ok",
        "auth": "ok",
        "path": "warn",
        "model": "ok",
        "body": "fail",
        "streaming": "skip",
        "metrics": "ok",
    }
    body = report.check("body")
    assert body.detail.startswith(f"POST {sim.root_url}/v1/chat/completions: timed out")
    assert "overloaded" in body.fix


def test_redirect_is_named_with_its_target() -> None:
    """A purpose-built server that redirects every request, as an http->https front door does."""

    class Redirect(BaseHTTPRequestHandler):
        def _send(self) -> None:
            self.send_response(308)
            self.send_header("Location", "https://llm.example.test" + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = _send

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        report = run(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    path = report.check("path")
    assert path.status == "fail"
    assert path.detail.endswith(
        "is redirected (HTTP 308) to https://llm.example.test/v1/chat/completions"
    )
    assert "https://" in path.fix
    assert statuses(report)["body"] == "skip"
