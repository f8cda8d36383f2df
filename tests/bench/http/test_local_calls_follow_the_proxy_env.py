"""Every call to the endpoint follows the proxy environment the same way as the measuring
transport: /v1/models (probe without --model), the doctor and the measured request all go
through HTTP_PROXY for 127.0.0.1 (the transport tunnels loopback too: test_stamping.py), and
all of them reach the simulator directly when NO_PROXY names it. A real simulator, a proxy
variable pointing at a closed port on 127.0.0.1, the commands run in process."""

from __future__ import annotations

import socket

import pytest

from app.cli import main


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens


@pytest.fixture
def dead_proxy(monkeypatch: pytest.MonkeyPatch) -> int:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    port = _closed_port()
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    return port


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


def test_with_no_proxy_naming_the_host_every_call_reaches_the_simulator(
    sim, dead_proxy: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    code, text = _run(capsys, "probe", "--base-url", sim.base_url, "--max-tokens", "2")
    assert code == 0 and "model qwen2.5-7b" in text, text  # /v1/models, then the request
    code, text = _run(capsys, "doctor", "--base-url", sim.base_url)
    assert code == 0 and "all checks passed" in text, text
    assert str(dead_proxy) not in text


def test_without_it_every_call_goes_to_the_proxy(
    sim, dead_proxy: int, capsys: pytest.CaptureFixture[str]
) -> None:
    port = str(dead_proxy)
    code, text = _run(capsys, "probe", "--base-url", sim.base_url, "--max-tokens", "2")
    assert code == 1 and "/v1/models" in text and port in text, text
    code, text = _run(
        capsys, "probe", "--base-url", sim.base_url, "--model", "qwen2.5-7b", "--max-tokens", "2"
    )
    assert code == 1 and port in text and "[connect]" in text, text  # the measuring transport
    code, text = _run(capsys, "doctor", "--base-url", sim.base_url)
    assert code == 1 and "1 failed (reachable)" in text, text
