"""How each request's token times were stamped, said on the record and in the point file:
kernel receive stamps for plain HTTP on Linux, TLS records for https, the loop's clock (and
why); through a proxy's CONNECT tunnel the reads are still the transport's own."""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bench.http.client import make_client
from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.http.stream import send_request
from app.bench.http.wire.transport import WireTransport
from tests.connect_proxy import ConnectProxy
from tests.hostile_server import HostileServer

pytestmark = pytest.mark.timeout(120)


def _one(url: str, *, verify: bool = True) -> RequestRecord:
    resolved = resolve_endpoint(url, None, "chat", model="m")

    async def go() -> RequestRecord:
        async with make_client(1, verify_tls=verify) as client:
            return await send_request(client, resolved, RequestSpec("hi", 1, 4))

    return asyncio.run(go())


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    with HostileServer() as server:
        yield server


@pytest.fixture
def no_proxy_env(monkeypatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.mark.skipif(sys.platform != "linux", reason="kernel receive stamps are Linux's")
def test_a_plain_http_stream_is_kernel_stamped_on_linux(hostile, no_proxy_env) -> None:
    rec = _one(hostile.url("ok"))
    assert rec.ok, rec.error
    assert rec.stamping == "kernel", rec.stamping_why
    assert "SO_TIMESTAMPNS" in rec.stamping_why


@pytest.fixture
def proxy(monkeypatch) -> Iterator[ConnectProxy]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    with ConnectProxy() as server:
        yield server


def test_an_http_proxy_carries_the_stream_in_a_connect_tunnel(hostile, proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.proxy_url)
    rec = _one(hostile.url("ok"))
    assert rec.ok, rec.error
    assert proxy.targets == [f"127.0.0.1:{hostile.port}"]  # it did go through the proxy
    # the reads are the transport's own reads of the tunnel: kernel-stamped on Linux
    assert rec.stamping == ("kernel" if sys.platform == "linux" else "loop"), rec.stamping_why
    assert f"through the proxy's CONNECT tunnel (HTTP_PROXY={proxy.proxy_url})" in rec.stamping_why


def test_an_https_stream_goes_through_the_tunnel_too(tls_server, proxy, monkeypatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy.proxy_url)
    rec = _one(tls_server.url("ok"), verify=False)
    assert rec.ok, rec.error
    assert proxy.targets == [f"127.0.0.1:{tls_server.port}"]
    assert rec.stamping == "tls-record"
    assert "CONNECT tunnel (HTTPS_PROXY=" in rec.stamping_why


def test_a_proxy_password_is_sent_and_never_shown(hostile, monkeypatch) -> None:
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with ConnectProxy(password=("ann", "s3cret")) as proxy:
        monkeypatch.setenv("ALL_PROXY", proxy.proxy_url)
        rec = _one(hostile.url("ok"))
    assert rec.ok, rec.error
    assert proxy.auth == ["ann:s3cret"]
    assert "ALL_PROXY" in rec.stamping_why and "s3cret" not in rec.stamping_why


@pytest.mark.parametrize("refuse", [True, False], ids=["refused", "wrong-password"])
def test_a_proxy_that_gives_no_tunnel_is_a_connect_failure(hostile, monkeypatch, refuse) -> None:
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with ConnectProxy(password=("ann", "right"), refuse=refuse) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.proxy_url.replace("right", "wrong-pw"))
        rec = _one(hostile.url("ok"))
    assert rec.error_kind == "connect", rec.error
    assert "refused a tunnel" in rec.error and ("403" if refuse else "407") in rec.error
    assert "wrong-pw" not in rec.error


def test_no_proxy_bypasses_the_tunnel(hostile, proxy, monkeypatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.proxy_url)
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    rec = _one(hostile.url("ok"))
    assert rec.ok, rec.error
    assert proxy.targets == [] and proxy.auth == []
    assert "proxy" not in rec.stamping_why


def test_a_proxy_the_tunnel_cannot_use_is_left_to_httpx(monkeypatch) -> None:
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    transport = WireTransport()
    http, https = transport.proxy_for("http", "a.example"), transport.proxy_for("https", "b")
    assert http is not None and http.tunnels and http.variable == "HTTP_PROXY"
    assert https is not None and not https.tunnels and https.variable == "ALL_PROXY"


def test_no_proxy_keeps_the_own_transport(hostile, monkeypatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    rec = _one(hostile.url("ok"))
    assert rec.ok, rec.error
    assert "proxy" not in rec.stamping_why


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory) -> Iterator[HostileServer]:
    where = tmp_path_factory.mktemp("tls")
    key, cert = where / "key.pem", where / "cert.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    with HostileServer(tls=context) as server:
        yield server


def test_a_tls_stream_is_stamped_per_tls_record(tls_server, no_proxy_env) -> None:
    rec = _one(tls_server.url("ok"), verify=False)
    assert rec.ok, rec.error
    assert rec.output_tokens == 4
    assert rec.stamping == "tls-record"
    assert "TLS" in rec.stamping_why


def test_a_self_signed_certificate_is_refused_when_verified(tls_server, no_proxy_env) -> None:
    rec = _one(tls_server.url("ok"))
    assert not rec.ok and rec.error_kind == "tls", rec.error


def test_the_point_file_and_console_say_how_tokens_were_stamped(
    tmp_path: Path, hostile, no_proxy_env
) -> None:
    cmd = [
        *(sys.executable, "-m", "app", "sweep", "--base-url", hostile.url("ok"), "--model", "m"),
        *("--endpoint", "/v1/chat/completions", "--dataset-name", "random"),
        *("--random-input-len", "8", "--output-len", "4", "--num-prompts", "3"),
        *("--max-concurrency", "3", "--result-dir", str(tmp_path), "--disable-tqdm"),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=100, env=env)
    assert done.returncode == 0, done.stderr
    (path,) = tmp_path.glob("*conc3.json")
    (entry,) = json.loads(path.read_text())["tpotbench"]["stamping"]
    kind = "kernel" if sys.platform == "linux" else "loop"
    assert (entry["kind"], entry["requests"]) == (kind, 3)
    assert entry["why"]
    assert f"Token stamps ({kind}):" in done.stdout


def test_the_point_file_says_the_stream_went_through_a_proxy_tunnel(
    tmp_path: Path, hostile, proxy
) -> None:
    cmd = [
        *(sys.executable, "-m", "app", "sweep", "--base-url", hostile.url("ok"), "--model", "m"),
        *("--endpoint", "/v1/chat/completions", "--dataset-name", "random"),
        *("--random-input-len", "8", "--output-len", "4", "--num-prompts", "2"),
        *("--max-concurrency", "2", "--result-dir", str(tmp_path), "--disable-tqdm"),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    env["HTTP_PROXY"] = proxy.proxy_url
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=100, env=env)
    assert done.returncode == 0, done.stderr
    (path,) = tmp_path.glob("*conc2.json")
    (entry,) = json.loads(path.read_text())["tpotbench"]["stamping"]
    assert entry["requests"] == 2
    assert f"through the proxy's CONNECT tunnel (HTTP_PROXY={proxy.proxy_url})" in entry["why"]
    assert len(proxy.targets) >= 1
