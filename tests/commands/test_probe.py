"""`tpotbench probe` against the built-in simulator: output, JSON, events, exit codes."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from app.cli import main
from tests.event_lines import wire_event


def probe(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(["probe", *args])
    except SystemExit as exc:  # argparse errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_with_the_model_taken_from_v1_models(sim, capsys):
    code, out, err = probe(capsys, "--base-url", sim.base_url, "--max-tokens", "16", "--ignore-eos")
    assert code == 0, err
    assert f"{sim.base_url}/v1/chat/completions (chat, model qwen2.5-7b)" in out
    assert "16 tokens (usage), 16 chunks, finish_reason length" in out
    for label in ("TTFT", "TPOT", "ITL", "E2EL", "tok/s"):
        assert f"\n{label} " in "\n" + out
    assert err == ""  # a bare server root needs no note


def test_json_has_every_itl(sim, capsys):
    code, out, _ = probe(
        capsys,
        "--base-url",
        sim.base_url + "/v1",
        "--backend",
        "openai",
        "--max-tokens",
        "12",
        "--ignore-eos",
        "--json",
    )
    assert code == 0
    report = json.loads(out)
    assert report["ok"] and report["api"] == "completions"
    assert report["url"] == sim.base_url + "/v1/completions"
    assert report["output_tokens"] == 12 and report["output_tokens_source"] == "usage"
    assert len(report["itl_ms"]) == 11  # one token per chunk: n - 1 gaps
    # E2EL = TTFT + sum of the gaps; TPOT = that span over n - 1 tokens
    assert report["e2el_ms"] == pytest.approx(report["ttft_ms"] + sum(report["itl_ms"]))
    assert report["tpot_ms"] == pytest.approx(sum(report["itl_ms"]) / 11)
    assert report["output_tok_s"] == pytest.approx(12 / report["e2el_ms"] * 1e3)


def test_events_jsonl(sim, capsys):
    code, out, _ = probe(
        capsys, "--base-url", sim.base_url, "--max-tokens", "6", "--ignore-eos", "--events", "jsonl"
    )
    assert code == 0
    events = [wire_event(line) for line in out.splitlines()]
    types = [e["type"] for e in events]
    assert types[:2] == ["run_started", "point_started"]
    assert types[-3:] == ["request", "point_finished", "run_finished"]
    assert set(types[2:-3]) <= {"tokens"}
    itls = [v for e in events if e["type"] == "tokens" for v in e["itl_ms"]]
    assert len(itls) == 5
    start = events[0]
    assert start["points"] == [{"index": 0, "request_rate": "inf", "max_concurrency": 1}]
    assert start["endpoint"]["model"] == "qwen2.5-7b"
    request = events[-3]
    assert request["ok"] and request["output_tokens"] == 6
    summary = events[-2]["summary"]
    assert summary["tpot_ms"] == pytest.approx(request["tpot_ms"], abs=1e-3)
    assert summary["output_tokens_source"] == "usage" and summary["generated_text"]


def test_key_from_env_and_never_printed(make_sim, capsys, monkeypatch):
    server = make_sim(api_key="sk-sim-secret")
    monkeypatch.setenv("MY_KEY", "sk-sim-secret")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("API_KEY", raising=False)
    args = ["--base-url", server.base_url, "--model", "qwen2.5-7b", "--max-tokens", "3"]
    code, out, err = probe(capsys, *args, "--api-key-env", "MY_KEY", "--json")
    assert code == 0, err
    assert json.loads(out)["ok"]
    code, out, err = probe(capsys, *args)
    assert code == 1
    assert "[http_401]" in err and "--api-key-env" in err and err.count("\n") == 1
    monkeypatch.setenv("MY_KEY", "sk-wrong-key")
    code, out, err = probe(capsys, *args, "--api-key-env", "MY_KEY")
    assert code == 1 and "http_401" in err
    assert "sk-sim-secret" not in out + err and "sk-wrong-key" not in out + err


def test_no_usage_is_marked_estimate(make_sim, capsys):
    server = make_sim(no_stream_usage=True)
    code, out, _ = probe(
        capsys, "--base-url", server.base_url, "--max-tokens", "8", "--ignore-eos", "--json"
    )
    assert code == 0
    report = json.loads(out)
    assert report["output_tokens_source"] == "estimate"
    assert report["output_tokens"] >= 1


def test_server_error_is_exit_1_with_its_kind(make_sim, capsys):
    server = make_sim(faults=["500"])
    code, _, err = probe(capsys, "--base-url", server.base_url, "--model", "qwen2.5-7b")
    assert code == 1
    assert "[http_5xx]" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--base-url", "localhost:8000"], "http://localhost:8000"),
        (
            [
                "--base-url",
                "http://h:8000",
                "--endpoint",
                "/v1/chat/completions",
                "--backend",
                "openai",
            ],
            "--backend openai-chat",
        ),
        (["--base-url", "http://h:8000", "--max-tokens", "0"], "--max-tokens"),
        (
            ["--base-url", "http://h:8000", "--api-key-env", "TPOTBENCH_NO_SUCH_VAR"],
            "TPOTBENCH_NO_SUCH_VAR is not set",
        ),
        (["--base-url", "http://h:8000", "--tokenizer", "/nonexistent-dir"], "tokenizer.json"),
        (["--base-url", "http://h:8000", "--header", "novalue"], "KEY=VALUE"),
        ([], "--base-url is required"),
        (["--backend", "tgi"], "invalid choice"),
    ],
)
def test_bad_flags_exit_2_with_one_line(capsys, args, words):
    code, out, err = probe(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1 and words in err, err
    assert out == ""


def test_unreachable_endpoint_is_one_line_and_exit_1():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.run(
        [sys.executable, "-m", "app", "probe", "--base-url", f"http://127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1
    assert "cannot reach" in proc.stderr and "Traceback" not in proc.stderr


def test_profile_supplies_url_api_and_model(make_sim, capsys, monkeypatch, tmp_path):
    from app.profiles import Profile, ProfileStore

    server = make_sim(api_key="sk-profile-key")
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("PROFILE_KEY", "sk-profile-key")
    ProfileStore().add(
        Profile(
            name="lab",
            kind="vllm",
            base_url=server.base_url + "/v1",
            api="completions",
            model="qwen2.5-7b",
            headers={"X-Team": "a"},
        )
    )
    code, out, err = probe(
        capsys, "--profile", "lab", "--api-key-env", "PROFILE_KEY", "--max-tokens", "2", "--json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["url"] == server.base_url + "/v1/completions"
    assert report["model"] == "qwen2.5-7b" and report["ok"]
    code, _, err = probe(capsys, "--profile", "nope", "--api-key-env", "PROFILE_KEY")
    assert code == 2 and "no profile named 'nope'" in err


def test_reasoning_model_shows_ttfo_and_reasoning_tokens(make_sim, capsys):
    sim = make_sim(reasoning_share=0.25)
    args = ("--base-url", sim.base_url, "--max-tokens", "20", "--ignore-eos")
    code, out, err = probe(capsys, *args)
    assert code == 0, err
    assert "after 5 reasoning tokens, usage" in out and "\nTTFO " in "\n" + out
    code, out, _ = probe(capsys, *args, "--json")
    report = json.loads(out)
    assert report["reasoning_tokens"] == 5 and report["ttfo_ms"] > report["ttft_ms"]
