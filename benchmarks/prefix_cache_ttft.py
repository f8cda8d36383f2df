"""Prefix dataset against the simulator: hit rate on both sides vs the hand-computed one,
and the TTFT a hit saves vs what the cost model predicts for that prefill.

Usage: python benchmarks/prefix_cache_ttft.py [--prefixes 8 --prefix-len 1024 ...]
One request at a time (concurrency 1), so a prompt's TTFT is its own prefill step plus the
HTTP path; the step-time difference is the cost model's prediction of the drop. Timings
measured on a busy machine are noisy; the hit rates are exact counts.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from app import jsonfile
from app.sim.config import SimConfig
from app.sim.embedded import start_sim_thread
from app.sim.timing import StepCostModel, StepWork


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prefixes", type=int, default=8)
    parser.add_argument("--prefix-len", type=int, default=1024)
    parser.add_argument("--suffix-len", type=int, default=128)
    parser.add_argument("--num-prompts", type=int, default=200)
    args = parser.parse_args()
    config = SimConfig()
    with start_sim_thread(config, port=0) as sim, tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "app", "sweep", "--base-url", sim.base_url]
        cmd += ["--backend", "openai", "--dataset-name", "prefix", "--max-concurrency", "1"]
        cmd += ["--prefix-repetition-num-prefixes", str(args.prefixes)]
        cmd += ["--prefix-repetition-prefix-len", str(args.prefix_len)]
        cmd += ["--prefix-repetition-suffix-len", str(args.suffix_len)]
        cmd += ["--prefix-repetition-output-len", "2", "--num-prompts", str(args.num_prompts)]
        cmd += ["--save-detailed", "--server-metrics", "--disable-tqdm", "--result-dir", out]
        subprocess.run(cmd, check=True, capture_output=True)
        (path,) = Path(out).glob("*.json")
        raw = jsonfile.loads(path.read_text(encoding="utf-8"))  # the file as written
    block = raw["tpotbench"]
    cached = [c or 0 for c in block["cached_lens"]]
    expected = (args.num_prompts - args.prefixes) * args.prefix_len / raw["total_input_tokens"]
    print(f"hit rate: expected {expected:.4f}")
    print(f"          usage    {block['prefix_cache_client']['hit_rate']:.4f}")
    print(f"          /metrics {block['server_metrics']['prefix_cache']['hit_rate']:.4f}")
    hits = [t for t, c in zip(raw["ttfts"], cached, strict=True) if c]
    misses = [t for t, c in zip(raw["ttfts"], cached, strict=True) if not c]
    hit_ms, miss_ms = statistics.median(hits) * 1e3, statistics.median(misses) * 1e3
    length = round(statistics.mean(raw["input_lens"]))
    hit_tokens = round(statistics.mean(c for c in cached if c))
    model = StepCostModel(config)
    cold = model.step_seconds(StepWork(prefill_chunks=((length, 0),), samples=1)) * 1e3
    warm = model.step_seconds(
        StepWork(prefill_chunks=((length - hit_tokens, hit_tokens),), samples=1)
    )
    warm *= 1e3
    print(f"TTFT median: miss {miss_ms:.1f} ms ({len(misses)}), hit {hit_ms:.1f} ms ({len(hits)})")
    print(f"TTFT drop measured {miss_ms - hit_ms:.1f} ms; cost model: prefill of {length} tokens")
    print(
        f"  {cold:.1f} ms cold, {warm:.1f} ms with {hit_tokens} cached: drop {cold - warm:.1f} ms"
    )


if __name__ == "__main__":
    main()
