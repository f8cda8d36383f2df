"""`probe`, `sweep` and `doctor` against a hostile server (tests/hostile_server.py): every odd or
endless reply ends by itself, bounded in memory, as a named failure kind with one clear line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bench.http.failures import KINDS
from app.cli import main
from tests.hostile_server import HostileServer

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    with HostileServer(drip_interval_s=0.05) as server:
        yield server


def probe_json(capsys, url: str, *extra: str) -> tuple[int, dict, str]:
    args = ["--base-url", url, "--endpoint", "/v1/chat/completions", "--model", "m"]
    code = main(["probe", *args, "--max-tokens", "4", "--json", *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


@pytest.mark.parametrize(
    ("mode", "kind", "words"),
    [
        ("usage-negative", "malformed_usage", "usage.completion_tokens is -7"),
        ("usage-absurd", "malformed_usage", "not a possible token count"),
        ("usage-fraction", "malformed_usage", "is 2.5"),
        ("usage-list", "malformed_chunk", "unexpected types"),
        ("content-int", "malformed_chunk", '"content": 5'),
        ("redirect", "redirect", "redirect to https://elsewhere.example/v1/chat/completions"),
        ("bad-chunk", "malformed_stream", "framing is broken"),
        ("early-close", "stream_cut", "connection lost"),
        ("inflate", "oversized", "grew past 16 MiB"),
        ("endless", "oversized", "endless line"),
        ("big-event", "oversized", "oversized event"),
    ],
)
def test_probe_names_each_hostile_reply(capsys, hostile, mode, kind, words) -> None:
    # a limit far below the test's own: a reply that only a deadline ends fails as "timeout"
    code, report, err = probe_json(capsys, hostile.url(mode), "--request-timeout", "20")
    assert code == 1
    assert report["ok"] is False
    assert report["error_kind"] == kind, report["error"]
    assert words in report["error"]
    assert report["fix"] == KINDS[kind].fix
    lines = [line for line in err.splitlines() if not line.startswith("note:")]
    assert "Traceback" not in err and len(lines) == 1


def test_a_bom_at_the_start_of_the_stream_is_tolerated(capsys, hostile) -> None:
    code, report, _ = probe_json(capsys, hostile.url("bom"))
    assert code == 0 and report["ok"] is True
    assert report["output_tokens"] == 3 and report["chunks"] == 3
    assert report["generated_text"] == "toktoktok"


def test_a_drip_ends_at_the_request_timeout(capsys, hostile) -> None:
    # one byte every 50 ms: the silence timeout (120 s) never fires, the total deadline does
    code, report, _ = probe_json(capsys, hostile.url("drip"), "--request-timeout", "1")
    assert code == 1
    assert report["error_kind"] == "timeout"
    assert "did not finish within --request-timeout 1 s" in report["error"]


def test_a_dripping_models_list_ends_at_the_request_timeout(capsys, hostile) -> None:
    code = main(["probe", "--base-url", hostile.url("drip-models"), "--request-timeout", "0.5"])
    _, err = capsys.readouterr()
    assert code == 1
    assert "no complete answer within --request-timeout 0.5 s" in err


def test_an_inflating_models_list_is_refused_and_not_echoed(capsys, hostile) -> None:
    code = main(["probe", "--base-url", hostile.url("inflate-models")])
    out, err = capsys.readouterr()
    assert code == 1
    assert "larger than 8 MiB" in err and "oversized" in err
    assert len(out) + len(err) < 1000  # the "model id" of 1 GiB is never printed


@pytest.mark.parametrize("flag", ["--request-timeout", "--timeout"])
@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_bad_timeouts_are_one_line_usage_errors(capsys, flag, value) -> None:
    try:
        code = main(["probe", "--base-url", "http://127.0.0.1:9", flag, value])
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    _, err = capsys.readouterr()
    assert code == 2
    assert err.strip().splitlines() == [err.strip()] and flag in err


def _sweep(url: str, result_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        sys.executable,
        "-m",
        "app",
        "sweep",
        "--base-url",
        url,
        "--model",
        "m",
        "--endpoint",
        "/v1/chat/completions",
        "--dataset-name",
        "random",
        "--random-input-len",
        "8",
        "--output-len",
        "4",
        "--num-prompts",
        "3",
        "--result-dir",
        str(result_dir),
        "--disable-tqdm",
        *extra,
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=100, env=env)


@pytest.mark.parametrize(
    ("mode", "kind", "extra"),
    [
        ("inflate", "oversized", ()),
        ("big-event", "oversized", ()),
        ("drip", "timeout", ("--request-timeout", "1")),
        ("drip", "timeout", ("--request-timeout", "1", "--workers", "2")),
        ("usage-negative", "malformed_usage", ()),
        ("content-int", "malformed_chunk", ()),
        ("bad-chunk", "malformed_stream", ()),
    ],
)
def test_sweep_records_each_hostile_reply_as_its_kind(tmp_path, hostile, mode, kind, extra):
    done = _sweep(hostile.url(mode), tmp_path, "--max-concurrency", "3", *extra)
    assert "Traceback" not in done.stderr, done.stderr
    (path,) = tmp_path.glob("*conc3.json")
    result = json.loads(path.read_text())
    assert result["completed"] == 0 and result["failed"] == 3
    failures = result["tpotbench"]["failures"]
    assert [(f["kind"], f["count"]) for f in failures] == [(kind, 3)]
    assert failures[0]["fix"] == KINDS[kind].fix
    # no throughput made up from impossible counts
    assert result["output_throughput"] == 0 and result["total_output_tokens"] == 0


def test_doctor_ends_on_a_drip_with_its_request_timeout(capsys, hostile) -> None:
    code = main(["doctor", "--base-url", hostile.url("drip"), "--request-timeout", "1", "--json"])
    out, _ = capsys.readouterr()
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    assert code == 1
    assert checks["body"]["status"] == "fail"
    assert "within 1 s (--request-timeout)" in checks["body"]["detail"]


@pytest.mark.parametrize(
    ("mode", "extra", "problem"),
    [
        ("inflate-models", [], "is larger than 8 MiB"),
        (
            "drip-models",
            ["--request-timeout", "1"],
            "did not finish within 1 s (--request-timeout)",
        ),
        # a byte every 60 s outlasts a silence limit of 2 s (the generation requests answer
        # at once): the transport's own message for it was "Cancelled via cancel scope ...;
        # reason: deadline exceeded"
        ("slow-drip-models", ["--timeout", "2"], "stalled: nothing arrived for 2 s (--timeout)"),
    ],
)
def test_doctor_says_a_bad_model_list_came_from_a_reached_server_and_goes_on(
    capsys, hostile, mode, extra, problem
) -> None:
    if mode == "slow-drip-models":
        with HostileServer(drip_interval_s=60) as slow:
            url = slow.url("drip-models")
            code = main(["doctor", "--base-url", url, "--model", "m", "--json", *extra])
    else:
        url = hostile.url(mode)
        code = main(["doctor", "--base-url", url, "--model", "m", "--json", *extra])
    out, _ = capsys.readouterr()
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    reachable = checks["reachable"]
    assert reachable["status"] == "warn", reachable
    assert "answered (HTTP 200), but its reply to GET" in reachable["detail"]
    assert problem in reachable["detail"]
    assert "cancel scope" not in out.lower()
    # the checks that need no model list ran: auth, path, body and streaming
    assert checks["auth"]["status"] == "ok" and checks["path"]["status"] == "ok"
    assert checks["streaming"]["status"] == "ok"
    assert code == 0  # warnings only: the endpoint works


def test_doctor_names_a_server_that_streams_when_asked_not_to(capsys, hostile) -> None:
    code = main(["doctor", "--base-url", hostile.url("ok"), "--model", "m", "--json"])
    out, _ = capsys.readouterr()
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    body = checks["body"]
    assert body["status"] == "warn"
    assert "the server streams regardless" in body["detail"]
    assert "match --backend" not in (body.get("fix") or "")  # not the chat/completions advice
    assert checks["streaming"]["status"] == "ok"
    assert code == 0


@pytest.mark.parametrize("transport", ["native", "httpx"])
def test_an_inflating_body_stops_at_the_decoded_size_cap(hostile, transport) -> None:
    import asyncio

    from app.bench.http.client import make_client
    from app.bench.http.endpoint import resolve_endpoint
    from app.bench.http.request import RequestSpec
    from app.bench.http.stream import send_request

    resolved = resolve_endpoint(hostile.url("inflate-events"), None, "chat", model="m")

    async def go():
        async with make_client(1, transport=transport) as client:
            return await send_request(
                client, resolved, RequestSpec("hi", 1, 4), max_body_bytes=2 * 1024 * 1024
            )

    rec = asyncio.run(go())
    assert rec.error_kind == "oversized"
    assert rec.error == "the streamed reply is larger than 2 MiB; stopped reading it there"
    # every event before the cap was parsed: a stream of tokens, not one blob
    assert len(rec.chunk_ns) > 10_000


def test_a_dripping_metrics_page_is_skipped_at_the_deadline(hostile) -> None:
    import asyncio

    from app.bench.serverstats.scrape import MetricsScraper

    async def go() -> MetricsScraper:
        scraper = MetricsScraper(hostile.url("drip") + "/metrics", request_timeout_s=0.5)
        await scraper.start()  # the baseline scrape fails (skipped), it does not hang
        await scraper.stop()
        return scraper

    scraper = asyncio.run(go())
    assert scraper.failures == 1 and not scraper.available
    assert scraper.last_error is not None and "Timeout" in scraper.last_error
