"""Today's traffic through `tpotbench sweep` against the simulator: the prefix dataset's hit
rate on both sides, and a reasoning model's TTFT, TTFO and reasoning tokens."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.bench.datasets.synthetic import sample_prefix
from app.bench.schema.point_blocks import point_blocks
from tests.documents import document


def _sweep(base_url: str, out: Path, *extra: str) -> tuple[dict, str]:
    cmd = [sys.executable, "-m", "app", "sweep", "--base-url", base_url, "--result-dir", str(out)]
    proc = subprocess.run(
        [*cmd, "--disable-tqdm", "--save-detailed", "--server-metrics", *extra],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob("*.json")
    raw = document(path)
    point_blocks(raw["tpotbench"], strict=True)  # the typed blocks hold everything written
    return raw, proc.stdout


def test_prefix_samples_share_exactly_num_prefixes_prefixes() -> None:
    samples = sample_prefix(20, prefix_len=64, suffix_len=8, num_prefixes=4, seed=1)
    heads = {" ".join(s.prompt.split()[:64]) for s in samples}
    assert len(heads) == 4 and len({s.prompt for s in samples}) == 20
    assert all(s.prompt_len == 72 and s.expected_output_len == 128 for s in samples)


def test_prefix_dataset_hit_rate_matches_hand_computation_on_both_sides(
    sim, tmp_path: Path
) -> None:
    # 4 prefixes of 256 tokens (16 whole KV blocks), 24 prompts one at a time on /completions
    # (no chat template): the first prompt of each prefix misses, the other 20 reuse 256
    # tokens, so hit rate = 20 x 256 / total prompt tokens.
    raw, stdout = _sweep(
        sim.base_url,
        tmp_path,
        "--backend",
        "openai",
        "--dataset-name",
        "prefix",
        "--prefix-repetition-num-prefixes",
        "4",
        "--prefix-repetition-prefix-len",
        "256",
        "--prefix-repetition-suffix-len",
        "32",
        "--prefix-repetition-output-len",
        "2",
        "--num-prompts",
        "24",
        "--max-concurrency",
        "1",
        "--seed",
        "7",
    )
    block = raw["tpotbench"]
    expected = 20 * 256 / raw["total_input_tokens"]
    client = block["prefix_cache_client"]["hit_rate"]
    server = block["server_metrics"]["prefix_cache"]["hit_rate"]
    # tolerance: a suffix may by chance start with the word a prefix's next block needs
    assert client == pytest.approx(expected, abs=0.01)
    assert server == pytest.approx(client, abs=0.005)
    hits = [c or 0 for c in block["cached_lens"]]
    assert sorted(hits)[:4] == [0, 0, 0, 0] and all(h >= 256 for h in sorted(hits)[4:])
    assert "Prefix cache hit rate, usage:" in stdout and "/metrics:" in stdout
    report = subprocess.run(
        [sys.executable, "-m", "app", "report", str(tmp_path)], capture_output=True, text=True
    )
    head, row = report.stdout.splitlines()[:2]
    assert "hit usage" in head and "hit /metrics" in head and "accept" not in head
    assert f"{client:.1%}" in row and f"{server:.1%}" in row


def test_reasoning_run_ttft_before_ttfo_and_tokens_equal_usage(make_sim, tmp_path: Path) -> None:
    sim = make_sim(reasoning_share=0.25)
    raw, stdout = _sweep(
        sim.base_url,
        tmp_path,
        "--backend",
        "openai-chat",
        "--dataset-name",
        "random",
        "--random-input-len",
        "32",
        "--output-len",
        "40",
        "--num-prompts",
        "6",
        "--max-concurrency",
        "3",
    )
    block = raw["tpotbench"]
    assert all(t < o for t, o in zip(raw["ttfts"], block["ttfos"], strict=True))
    assert block["reasoning_lens"] == [10] * 6  # 40 x 0.25, as usage reports
    assert block["reasoning_tokens"]["source"] == {"usage": 6}
    assert block["ttfo_ms"]["mean"] > raw["mean_ttft_ms"]
    assert block["tpot_answer_ms"]["mean"] > 0
    assert "Mean TTFO (ms):" in stdout and "Mean reasoning tokens (usage):" in stdout
    assert "mean_ttfo_ms" not in raw  # vLLM's keys untouched; ours live in the block


def test_speculative_decoding_acceptance_beside_tokens_per_chunk(make_sim, tmp_path: Path) -> None:
    sim = make_sim(num_speculative_tokens=3)
    raw, stdout = _sweep(
        sim.base_url,
        tmp_path,
        "--backend",
        "openai-chat",
        "--dataset-name",
        "random",
        "--random-input-len",
        "32",
        "--output-len",
        "30",
        "--num-prompts",
        "4",
        "--max-concurrency",
        "2",
    )
    spec = raw["tpotbench"]["server_metrics"]["spec_decode"]
    assert 1 < spec["mean_acceptance_length"] <= 4
    lines = stdout.splitlines()
    chunk = next(i for i, line in enumerate(lines) if line.startswith("Tokens per chunk"))
    assert any(line.startswith("Mean acceptance length:") for line in lines[chunk:])
    assert f"{spec['mean_acceptance_length']:.2f}" in stdout
