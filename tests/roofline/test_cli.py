"""`tpotbench roofline` end to end: text, JSON keys and values, one-line errors with exit 2."""

import json
import subprocess
import sys

import pytest

from app.cli import main


def run_json(capsys, *argv: str) -> dict:
    assert main(["roofline", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_reference_case_json(capsys):
    r = run_json(
        capsys,
        "--gpu",
        "rtx3090",
        "--model",
        "qwen2.5-7b",
        "--dtype",
        "bf16",
        "--context",
        "0",
        "--tpot-ms",
        "19.7",
    )
    # 14,141,238,272 B / 936e9 B/s = 15.108 ms; MBU = 15.108 / 19.7 = 0.7669
    assert r["bytes_per_step"] == 14_141_238_272
    assert r["floor_tpot_ms"] == pytest.approx(15.108, abs=1e-3)
    assert r["mbu"] == pytest.approx(0.7669, abs=1e-4)
    assert r["ridge_flops_per_byte"] == pytest.approx(75.85, abs=0.01)
    assert r["kv_capacity_tokens"] == 84_896
    assert r["bound"] == "memory"


# The --json keys in their order (a script's format): the figures, the measured TPOT's, then
# the sources; the prefill floor only when --prompt-tokens asks for it.
JSON_KEYS = [
    "gpu", "model", "dtype", "kv_dtype", "batch", "context", "floor_tpot_ms", "memory_ms",
    "compute_ms", "bound", "bytes_per_step", "weights_bytes", "lm_head_bytes", "kv_bytes",
    "flops_per_step", "arithmetic_intensity", "ridge_flops_per_byte", "best_single_stream_tok_s",
    "kv_capacity_tokens", "num_gpu_blocks", "block_size", "kv_capacity_source",
    "max_concurrency_at_context", "tpot_ms", "mbu", "mfu", "sources",
]  # fmt: skip


def test_json_keys_and_their_order(capsys):
    r = run_json(capsys, "--context", "0")
    assert list(r) == JSON_KEYS and list(r["sources"]) == ["gpu", "model", "dtype"]
    assert r["max_concurrency_at_context"] is None and r["mfu"] is None
    r = run_json(capsys, "--tpot-ms", "20", "--prompt-tokens", "1000")
    assert list(r) == [*JSON_KEYS, "prefill_floor_ms"]
    assert r["prefill_floor_ms"] > 0 and r["mfu"] > 0


def test_default_context_512_and_server_blocks(capsys):
    r = run_json(capsys, "--num-gpu-blocks", "1000", "--batch", "8")
    # KV: 8 * 512 * 57,344 = 234,881,024 B on top of 14,141,238,272 B
    assert r["kv_bytes"] == 234_881_024
    assert r["bytes_per_step"] == 14_376_119_296
    assert r["kv_capacity_tokens"] == 16_000
    assert r["kv_capacity_source"] == "server"
    assert r["mbu"] is None


def test_text_output_and_awq(capsys):
    assert main(["roofline", "--dtype", "awq-int4", "--context", "0", "--tpot-ms", "10"]) == 0
    out = capsys.readouterr().out
    assert "floor TPOT       4.79 ms (memory-bound" in out  # 4,480,752,640 B / 936e9
    assert "MBU 47.9 %" in out  # 4.787 / 10


def test_listing(capsys):
    assert main(["roofline", "--list", "formats"]) == 0
    out = capsys.readouterr().out
    assert "awq-int4   0.5195 B/weight" in out  # (4 + 20/128) / 8


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--gpu", "rtx3099"], "unknown GPU 'rtx3099'; did you mean rtx3090"),
        (["--model", "llama-9b"], "unknown model 'llama-9b'"),
        (["--dtype", "int3"], "unknown weight format 'int3'"),
        (["--tpot-ms", "-1"], "argument --tpot-ms: must be greater than 0"),
    ],
)
def test_bad_input_is_one_line_exit_2(argv, message):
    proc = subprocess.run(
        [sys.executable, "-m", "app", "roofline", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_malformed_config_json(tmp_path, capsys):
    cfg = tmp_path / "config.json"
    cfg.write_text("{not json")
    assert main(["roofline", "--model", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert ": not valid JSON (line 1, column 2" in err


def test_add_custom_gpu_then_use_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path))
    assert main(["roofline", "--add-gpu", "lab-card", "--memory-gib", "48"]) == 2
    assert (
        "--add-gpu also needs --bandwidth-gb-s, --bf16-tflops, --source" in capsys.readouterr().err
    )
    argv = ["roofline", "--add-gpu", "lab-card", "--memory-gib", "48", "--bandwidth-gb-s", "1872",
            "--bf16-tflops", "150", "--source", "vendor sheet rev 2"]  # fmt: skip
    assert main(argv) == 0
    assert (tmp_path / "gpus.json").exists()
    capsys.readouterr()
    r = run_json(capsys, "--gpu", "lab-card", "--context", "0")
    # 14,141,238,272 B / 1872e9 B/s = 7.554 ms
    assert r["floor_tpot_ms"] == pytest.approx(7.554, abs=1e-3)
