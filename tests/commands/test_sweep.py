"""`tpotbench sweep` end to end against the simulator: files, events, exit codes, cancel, kill."""

from __future__ import annotations

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.bench.results.read import load_result, load_results
from tests.documents import document
from tests.event_lines import wire_event

# The keys `vllm bench serve --save-result` writes (vllm/benchmarks/serve.py, default metrics).
VLLM_KEYS = {
    "date",
    "endpoint_type",
    "backend",
    "label",
    "model_id",
    "tokenizer_id",
    "num_prompts",
    "request_rate",
    "burstiness",
    "max_concurrency",
    "duration",
    "completed",
    "failed",
    "total_input_tokens",
    "total_output_tokens",
    "request_throughput",
    "request_goodput",
    "output_throughput",
    "total_token_throughput",
    "latencies",
    "queue_times",
    "max_output_tokens_per_s",
    "max_concurrent_requests",
    "rtfx",
    "mean_ttft_ms",
    "median_ttft_ms",
    "std_ttft_ms",
    "p99_ttft_ms",
    "mean_tpot_ms",
    "median_tpot_ms",
    "std_tpot_ms",
    "p99_tpot_ms",
    "mean_itl_ms",
    "median_itl_ms",
    "std_itl_ms",
    "p99_itl_ms",
}
DETAILED_KEYS = {
    "input_lens",
    "output_lens",
    "ttfts",
    "itls",
    "start_times",
    "generated_texts",
    "errors",
}


def sweep_cmd(base_url: str, result_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "app",
        "sweep",
        "--base-url",
        base_url,
        "--backend",
        "openai-chat",
        "--endpoint",
        "/v1/chat/completions",
        "--output-len",
        "4",
        "--result-dir",
        str(result_dir),
        "--disable-tqdm",
        *extra,
    ]


def run(cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_two_by_two_sweep_writes_points_and_csv(sim, tmp_path: Path) -> None:
    proc = run(
        sweep_cmd(
            sim.base_url,
            tmp_path,
            "--num-prompts",
            "3",
            "--request-rate",
            "50,inf",
            "--max-concurrency",
            "1,2",
            "--label",
            "expA",
            "--save-result",
            "--save-detailed",
            "--goodput",
            "ttft:5000",
        )
    )
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert names == [
        "expA_rate50_conc1.json",
        "expA_rate50_conc2.json",
        "expA_rateinf_conc1.json",
        "expA_rateinf_conc2.json",
    ]
    assert proc.stdout.count("============ Serving Benchmark Result ============") == 4
    assert "Mean TPOT (ms):" in proc.stdout
    data = json.loads((tmp_path / "expA_rate50_conc2.json").read_text())
    assert set(data) >= VLLM_KEYS | DETAILED_KEYS
    assert data["request_rate"] == 50.0 and data["max_concurrency"] == 2
    assert data["model_id"] == "qwen2.5-7b"  # taken from /v1/models: no --model given
    assert (data["completed"], data["failed"]) == (3, 0)
    assert data["output_lens"] == [4, 4, 4]  # from usage
    assert all(len(gaps) == 3 for gaps in data["itls"])  # 4 one-token chunks: 3 gaps each
    assert all(0 < t < 5 for t in data["ttfts"])  # seconds, like vLLM
    assert data["request_goodput"] == pytest.approx(data["request_throughput"])
    block = data["tpotbench"]
    assert block["schema_version"] == 1 and block["endpoint"]["api"] == "chat"
    assert "key" not in json.dumps(block["endpoint"]).lower()
    assert load_result(tmp_path / "expA_rateinf_conc1.json").request_rate == float("inf")
    rows = read_csv(tmp_path / "sweep.csv")
    assert [(r["request_rate"], r["max_concurrency"]) for r in rows] == [
        ("50.0", "1"),
        ("inf", "1"),
        ("50.0", "2"),
        ("inf", "2"),
    ]
    assert all(r["completed"] == "3" for r in rows)


def test_result_filename_for_a_single_point_like_the_field_guide(sim, tmp_path: Path) -> None:
    proc = run(
        sweep_cmd(
            sim.base_url,
            tmp_path,
            "--model",
            "qwen2.5-7b",
            "--num-prompts",
            "2",
            "--request-rate",
            "inf",
            "--max-concurrency",
            "2",
            "--result-filename",
            "expB_rateinf_conc2.json",
        )
    )
    assert proc.returncode == 0, proc.stderr
    point = load_result(tmp_path / "expB_rateinf_conc2.json")
    assert (point.completed, point.max_concurrency) == (2, 2)
    assert "input_lens" not in document(point)  # per-request arrays only with --save-detailed


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--request-rate", "fast"], "--request-rate: 'fast' is not a number"),
        (["--max-concurrency", "0"], "--max-concurrency: 0 must be from 1 to 1,000,000"),
        (["--goodput", "ttft=5"], "--goodput: 'ttft=5' is not KEY:MILLISECONDS"),
        (["--dataset-path", "/nonexistent/sharegpt.json"], "sharegpt.json: dataset file not found"),
        (["--request-rate", "1,2", "--result-filename", "x.json"], "use --label instead"),
        (["--num-prompts", "x"], "--num-prompts: expected a whole number, got 'x'"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(tmp_path: Path, extra: list[str], message: str) -> None:
    proc = run(sweep_cmd("http://127.0.0.1:9", tmp_path, *extra))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_corrupt_dataset_exits_2_naming_the_entry(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('[{"conversations": [{"value": "hi"}, {"value": 3}]}]', encoding="utf-8")
    proc = run(sweep_cmd("http://127.0.0.1:9", tmp_path, "--dataset-path", str(bad)))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert 'broken.json: entry 0: conversations[1] has no "value" string' in proc.stderr


def test_unreachable_endpoint_exits_1_in_one_line(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    proc = run(sweep_cmd(f"http://127.0.0.1:{port}", tmp_path, "--num-prompts", "2"))
    assert proc.returncode == 1
    assert proc.stderr.strip().endswith(")") and "cannot reach" in proc.stderr
    assert "connect" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not list(tmp_path.glob("*.json"))


def test_failing_endpoint_is_counted_by_kind_not_fatal(make_sim, tmp_path: Path) -> None:
    flaky = make_sim(faults=["500"], fault_every=2)
    proc = run(
        sweep_cmd(
            flaky.base_url,
            tmp_path,
            "--num-prompts",
            "4",
            "--max-concurrency",
            "1",
            "--label",
            "flaky",
        )
    )
    assert proc.returncode == 0, proc.stderr
    point = load_result(tmp_path / "flaky_rateinf_conc1.json")
    assert (point.completed, point.failed) == (2, 2)
    failures = document(point)["tpotbench"]["failures"]
    assert [(f["kind"], f["count"]) for f in failures] == [("http_5xx", 2)]
    assert "500" in failures[0]["example"] and failures[0]["fix"]
    assert "Failed (http_5xx):" in proc.stdout


def test_events_stream_parses_in_order(sim, tmp_path: Path) -> None:
    proc = run(
        sweep_cmd(
            sim.base_url,
            tmp_path,
            "--num-prompts",
            "3",
            "--max-concurrency",
            "1,3",
            "--events",
            "jsonl",
            "--server-metrics",
        )
    )
    assert proc.returncode == 0, proc.stderr
    events = [wire_event(line) for line in proc.stdout.splitlines()]
    samples = [e for e in events if e["type"] == "server_metrics"]
    assert len(samples) >= 2 and samples[0]["running"] is not None  # a baseline per point
    events = [e for e in events if e["type"] != "server_metrics"]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert events[0]["points"] == [
        {"index": 0, "request_rate": "inf", "max_concurrency": 1},
        {"index": 1, "request_rate": "inf", "max_concurrency": 3},
    ]
    assert kinds.count("point_started") == kinds.count("point_finished") == 2
    requests = [e for e in events if e["type"] == "request"]
    assert len(requests) == 6 and all(r["ok"] and r["output_tokens"] == 4 for r in requests)
    assert all(r["tpot_ms"] > 0 and r["ttft_ms"] > 0 for r in requests)
    tokens = [e for e in events if e["type"] == "tokens"]
    assert sum(len(e["itl_ms"]) for e in tokens) == 6 * 3  # every gap of every request
    finished = [e for e in events if e["type"] == "point_finished"]
    assert finished[1]["summary"]["completed"] == 3
    assert finished[1]["summary"]["tpotbench"]["server_metrics"]["server"] == "vllm"
    assert "ttfts" not in finished[1]["summary"]
    assert Path(finished[0]["path"]).exists()
    assert events[-1] == {
        "type": "run_finished",
        "cancelled": False,
        "paths": [e["path"] for e in finished],
        "csv": str(tmp_path / "sweep.csv"),
    }
    assert "Serving Benchmark Result" in proc.stderr  # stdout carries only events


def test_cancel_from_stdin_keeps_finished_points(sim, tmp_path: Path) -> None:
    cmd = sweep_cmd(
        sim.base_url,
        tmp_path,
        "--model",
        "qwen2.5-7b",
        "--num-prompts",
        "3",
        "--max-concurrency",
        "1,1,1",
        "--label",
        "openai-chat",
        "--events",
        "jsonl",
        "--grace-period",
        "0",
    )
    cmd[cmd.index("--output-len") + 1] = "8"
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        events = []
        for line in proc.stdout:  # type: ignore[union-attr]
            events.append(wire_event(line))
            if events[-1]["type"] == "point_finished":
                proc.stdin.write("cancel\n")  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.communicate()
    assert events[-1]["type"] == "run_finished" and events[-1]["cancelled"] is True
    first = load_result(tmp_path / "openai-chat_rateinf_conc1.json")
    assert first.completed == 3 and not document(first)["tpotbench"]["cancelled"]
    assert not (tmp_path / "openai-chat_rateinf_conc3.json").exists()  # never started
    partial = tmp_path / "openai-chat_rateinf_conc2.partial.json"
    if partial.exists():  # the point running when the cancel came is saved, marked partial
        assert document(partial)["tpotbench"]["cancelled"]
    assert not (tmp_path / "openai-chat_rateinf_conc2.json").exists()


def test_sigterm_cancels_gracefully_and_saves_what_finished(sim, tmp_path: Path) -> None:
    cmd = sweep_cmd(
        sim.base_url,
        tmp_path,
        "--model",
        "qwen2.5-7b",
        "--num-prompts",
        "3",
        "--max-concurrency",
        "1,2,3",
        "--label",
        "openai-chat",
    )
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not list(tmp_path.glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 143  # 128 + SIGTERM, as a shell reports a terminated process
    assert "Cancelled: finished points are saved." in err
    assert load_result(tmp_path / "openai-chat_rateinf_conc1.json").completed == 3
    assert not (tmp_path / "openai-chat_rateinf_conc3.json").exists()


def _requests_finished(sim) -> float:  # type: ignore[no-untyped-def]
    """The simulator's own count of finished requests (its /metrics)."""
    text = httpx.get(f"{sim.root_url}/metrics", timeout=30).text
    prefix = "vllm:e2e_request_latency_seconds_count"
    return sum(float(x.rsplit(" ", 1)[1]) for x in text.splitlines() if x.startswith(prefix))


def test_sigkill_half_way_leaves_finished_points_readable(sim, tmp_path: Path) -> None:
    cmd = sweep_cmd(
        sim.base_url,
        tmp_path,
        "--model",
        "qwen2.5-7b",
        "--num-prompts",
        "4",
        "--max-concurrency",
        "1,1,1,1,1",
        "--save-detailed",
    )
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not list(tmp_path.glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.02)
        # Inside the second point: the simulator finished a request after the first file.
        first_point_done = _requests_finished(sim)
        while _requests_finished(sim) == first_point_done and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    files = list(tmp_path.glob("*.json"))
    assert files, "no point finished before the kill"
    points = load_results([tmp_path])  # raises if any file were torn
    assert len(points) == len(files) < 5
    assert all(p.completed == 4 for p in points)
    assert len(read_csv(tmp_path / "sweep.csv")) >= 1


def test_gateway_key_from_env_is_used_and_never_written(make_sim, tmp_path: Path) -> None:
    key = "sk-test-never-in-files-0123456789"
    gateway = make_sim(api_key=key, path_prefix="/api")
    env_name = "TPOTBENCH_TEST_KEY"
    cmd = sweep_cmd(
        gateway.base_url,
        tmp_path,
        "--num-prompts",
        "2",
        "--api-key-env",
        env_name,
        "--events",
        "jsonl",
        "--save-detailed",
    )
    env = {**os.environ, env_name: key}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    files = list(tmp_path.iterdir())
    (saved,) = tmp_path.glob("openai-chat-*_rateinf_concnone.json")  # date-time default name
    assert load_result(saved).completed == 2
    for text in [proc.stdout, proc.stderr, *(f.read_text() for f in files)]:
        assert key not in text
    # without the key the gateway refuses every request: counted by kind, not fatal
    proc = run(
        sweep_cmd(
            gateway.base_url,
            tmp_path,
            "--model",
            "qwen2.5-7b",
            "--num-prompts",
            "2",
            "--label",
            "nokey",
        )
    )
    # without the key the gateway's /v1/models already says 401: a key problem, said before
    # any point runs (an all-failed point's summary is tested with a wrong model below)
    assert proc.returncode == 1, proc.stderr
    assert "HTTP 401 from" in proc.stderr and "wants an API key and none was sent" in proc.stderr
    assert not (tmp_path / "nokey_rateinf_concnone.json").exists()


def test_profile_supplies_url_model_and_roofline(sim, tmp_path: Path) -> None:
    from app.profiles import Profile, ProfileStore

    store = ProfileStore(tmp_path / "config")
    store.add(
        Profile(
            name="lab",
            kind="vllm",
            base_url=sim.base_url,
            model="qwen2.5-7b",
            roofline={
                "gpu_id": "rtx3090",
                "model_id": "qwen2.5-7b",
                "fmt": "bf16",
                "kv_dtype": "fp16",
                "context": 512,
            },
        )
    )
    store.save()
    env = {**os.environ, "TPOTBENCH_CONFIG_DIR": str(tmp_path / "config")}
    cmd = [
        sys.executable,
        "-m",
        "app",
        "sweep",
        "--profile",
        "lab",
        "--num-prompts",
        "2",
        "--output-len",
        "4",
        "--result-dir",
        str(tmp_path / "out"),
        "--disable-tqdm",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    point = load_results([tmp_path / "out"])[0]
    assert point.completed == 2 and document(point)["tpotbench"]["profile"] == "lab"
    roofline = document(point)["tpotbench"]["roofline"]
    assert {k: roofline[k] for k in ("gpu_id", "model_id", "fmt", "kv_dtype", "context")} == {
        "gpu_id": "rtx3090",
        "model_id": "qwen2.5-7b",
        "fmt": "bf16",
        "kv_dtype": "fp16",
        "context": 512,
    }
    # No concurrency limit: the batch is the mean number in flight, between 1 and the 2 sent.
    assert roofline["batch_source"] == "mean_in_flight" and 1.0 <= roofline["batch"] <= 2.0
    # Hand count: 7,070,619,136 weights read (total minus the gathered embedding) x 2 bytes
    # + 512 tokens x 57,344 KV bytes per sequence; 1 or 2 sequences.
    assert roofline["bytes_per_step"] in (14_170_598_400, 14_199_958_528)


def test_a_sweep_where_nothing_succeeds_exits_1_and_shows_no_figures(sim, tmp_path: Path) -> None:
    proc = run(
        sweep_cmd(
            sim.base_url, tmp_path, "--model", "Qwen/Qwen2.5-7B-Instruct", "--num-prompts", "3"
        )
    )
    assert proc.returncode == 1, proc.stderr
    assert "Mean TTFT (ms):                          –" in proc.stdout
    assert "Mean TTFT (ms):                          0.00" not in proc.stdout
    assert "no request succeeded: 3 × HTTP 404 not found (fix: " in proc.stdout
    assert "no request succeeded in 1 of 1 point(s)" in proc.stderr.splitlines()[-1]
    (saved,) = tmp_path.glob("openai-chat-*_rateinf_concnone.json")  # a date-time default name
    data = json.loads(saved.read_text())
    assert data["median_ttft_ms"] is None and data["p99_tpot_ms"] is None
    row = read_csv(tmp_path / "sweep.csv")[0]
    assert row["median_ttft_ms"] == "" and row["run"] == data["tpotbench"]["run_id"]
    assert row["partial"] == "False"


def test_an_unwritable_result_folder_is_one_line_before_any_request(sim, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    proc = run(sweep_cmd(sim.base_url, tmp_path / "file" / "results", "--num-prompts", "2"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "--result-dir: cannot write in" in proc.stderr and "Not a directory" in proc.stderr
    assert "Sweep:" not in proc.stderr  # nothing was run


def test_a_named_result_is_not_replaced_without_overwrite(sim, tmp_path: Path) -> None:
    args = ("--num-prompts", "2", "--label", "expA")
    assert run(sweep_cmd(sim.base_url, tmp_path, *args)).returncode == 0
    before = (tmp_path / "expA_rateinf_concnone.json").read_text()
    proc = run(sweep_cmd(sim.base_url, tmp_path, *args))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "expA_rateinf_concnone.json exists (an earlier run); pass --overwrite" in proc.stderr
    assert (tmp_path / "expA_rateinf_concnone.json").read_text() == before
    assert run(sweep_cmd(sim.base_url, tmp_path, *args, "--overwrite")).returncode == 0
    assert (tmp_path / "expA_rateinf_concnone.json").read_text() != before


def test_foreign_files_in_the_folder_get_a_note_and_stop_nothing(sim, tmp_path: Path) -> None:
    (tmp_path / "nan.json").write_text('{"completed": NaN, "duration": 1}', encoding="utf-8")
    bad = {"completed": 1, "duration": 1, "tpotbench": {"failures": [{"count": 1}]}}
    (tmp_path / "nokind.json").write_text(json.dumps(bad), encoding="utf-8")
    proc = run(sweep_cmd(sim.base_url, tmp_path, "--num-prompts", "2", "--max-concurrency", "1,2"))
    assert proc.returncode == 0, proc.stderr
    note = next(line for line in proc.stderr.splitlines() if line.startswith("note: "))
    assert "holds 2 other result file(s)" in note and "sweep.csv lists this run only" in note
    rows = read_csv(tmp_path / "sweep.csv")
    assert len(rows) == 2 and len({r["run"] for r in rows}) == 1
    assert all(r["file"].startswith("openai-chat-") for r in rows)


def test_a_per_point_loop_with_one_label_gathers_its_points_in_sweep_csv(
    sim, tmp_path: Path
) -> None:
    # The field guide's bash loop: one command per point, one --label for the whole run.
    # sweep.csv lists every point of the label so far, never another label's.
    other = ("--num-prompts", "2", "--label", "expA", "--max-concurrency", "3")
    assert run(sweep_cmd(sim.base_url, tmp_path, *other)).returncode == 0
    for conc in ("4", "1", "2"):
        args = ("--num-prompts", "2", "--label", "expB", "--max-concurrency", conc)
        proc = run(sweep_cmd(sim.base_url, tmp_path, *args))
        assert proc.returncode == 0, proc.stderr
    rows = read_csv(tmp_path / "sweep.csv")
    assert [(r["label"], r["max_concurrency"]) for r in rows] == [
        ("expB", "1"),
        ("expB", "2"),
        ("expB", "4"),
    ]
    assert "the earlier ones labelled expB" in proc.stderr
